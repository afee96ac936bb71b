import type { TuiKey } from './tui-actions.js';

/** A key press as terminal libraries report it (blessed and Node's readline agree). */
export interface RawKey {
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

const NAMED_KEYS = new Set(['up', 'down', 'left', 'right', 'pageup', 'pagedown', 'home', 'end', 'enter', 'escape', 'backspace', 'tab', 'delete']);

/**
 * The view model's name for a key press, or undefined for presses it ignores
 * (`return`, which blessed follows with `enter`; mouse and unknown sequences).
 */
export function keyName(ch: string | undefined, key: RawKey | undefined): TuiKey | undefined {
  const name = key?.name;
  if (key?.ctrl && name) return `C-${name}`;
  if (ch !== undefined && ch.length === 1 && ch >= ' ' && ch !== '\x7f' && !key?.meta) return ch;
  if (name === 'linefeed') return 'enter';
  if (name && NAMED_KEYS.has(name)) return name;
  return undefined;
}
