/**
 * The terminal UI's keys, written once. The TUI's reducer, its help screen and
 * footer, every message that tells the user to press a key (`keyLabel`), and
 * docs/cli.md's key table (test/unit/tui/key-map.test.ts compares them) are
 * all made from this list, so a message can never name a key that does
 * something else.
 */
export type KeyAction =
  | 'select-newer'
  | 'select-older'
  | 'page-newer'
  | 'page-older'
  | 'select-newest'
  | 'select-oldest'
  | 'toggle-detail'
  | 'back'
  | 'replay'
  | 'replay-new-id'
  | 'edit-replay'
  | 'filter'
  | 'copy-curl'
  | 'export-har'
  | 'save-call'
  | 'sync'
  | 'diagnostics'
  | 'approve-held'
  | 'deny-held'
  | 'next-held'
  | 'restart-dev-server'
  | 'dev-server-output'
  | 'hostname-change'
  | 'help'
  | 'quit';

export interface KeyBinding {
  action: KeyAction;
  /** The view model's key names (`r`, `R`, `C-r`, `up`, `enter`); the first is the one messages name. */
  keys: readonly string[];
  /** Its line in `?` and docs/cli.md; a binding without one shares the line above. */
  help?: string;
  /** Further lines under `help`. */
  more?: readonly string[];
  /** Its label in the footer (left out: not in the footer). */
  footer?: string;
  /** The key sends a call to the route (it must never be a key a message names for something else). */
  isCallSender?: boolean;
  isDemoOnly?: boolean;
}

export const KEY_MAP: readonly KeyBinding[] = [
  { action: 'select-newer', keys: ['up', 'k'], help: 'move (the newest call stays selected until you move)' },
  { action: 'select-older', keys: ['down', 'j'] },
  { action: 'page-newer', keys: ['pageup'], help: 'move a page' },
  { action: 'page-older', keys: ['pagedown'] },
  { action: 'select-newest', keys: ['g', 'home'], help: 'newest (follow) / oldest' },
  { action: 'select-oldest', keys: ['G', 'end'] },
  { action: 'toggle-detail', keys: ['enter'], help: 'read the selected call (it stays while newer calls arrive) / back to the list (following again)', footer: 'details' },
  { action: 'back', keys: ['escape'], footer: 'back' },
  {
    action: 'replay',
    keys: ['r'],
    help: 'replay the selected call (same toolCallId)',
    more: ['(risk reviewed/high asks first: y to send)'],
    footer: 'replay',
    isCallSender: true,
  },
  { action: 'replay-new-id', keys: ['n'], help: 'replay it with a new toolCallId', footer: 'new id', isCallSender: true },
  { action: 'edit-replay', keys: ['e'], help: 'edit its input, then replay it (new toolCallId)', footer: 'edit', isCallSender: true },
  {
    action: 'filter',
    keys: ['/'],
    help: 'filter: words match anywhere; tool:x verdict:refused',
    more: ['status:5xx sig:invalid risk:high is:replay, -word negates'],
    footer: 'filter',
  },
  { action: 'restart-dev-server', keys: ['R', 'C-r'], help: 'restart the dev server (after it exited, or to give it a new MEDIAN_TOOLS_URL)', footer: 'restart' },
  { action: 'dev-server-output', keys: ['o'], help: "the dev server's output, its last lines (they open by themselves when it exits)", footer: 'dev output' },
  { action: 'help', keys: ['?'], help: 'this help', footer: 'help' },
  { action: 'quit', keys: ['q', 'C-c'], help: 'quit (stops the dev server like Ctrl-C)', footer: 'quit' },
  { action: 'hostname-change', keys: ['h'], help: '(demo) simulate a tunnel hostname change', footer: 'hostname change', isDemoOnly: true },
  { action: 'copy-curl', keys: ['c'], help: 'copy the call as curl', footer: 'curl' },
  { action: 'export-har', keys: ['x'], help: 'export the calls as HAR (into the data dir)', footer: 'HAR' },
  { action: 'save-call', keys: ['t'], help: 'save the selected call as a test (median-calls/, run by median-dev test)' },
  { action: 'sync', keys: ['s'], help: 'ask Median to sync the endpoint', footer: 'sync' },
  { action: 'diagnostics', keys: ['d'], help: 'send a diagnostics call', footer: 'diagnostics', isCallSender: true },
  {
    action: 'approve-held',
    keys: ['a'],
    help: "(median-dev's emulator only) approve the held call the header shows: it runs at the route",
    isCallSender: true,
  },
  // Not `D`: Shift-d beside `d` (diagnostics) made one slip send the wrong thing. `v` for veto, no case-variant taken.
  { action: 'deny-held', keys: ['v'], help: '(emulator) deny (veto) it: nothing is sent, the agent is told no' },
  { action: 'next-held', keys: ['tab'], help: '(emulator) the next held call' },
];

const BY_KEY = new Map<string, KeyBinding>(KEY_MAP.flatMap((binding) => binding.keys.map((key) => [key, binding] as const)));

/** The action a key press means in the list and detail pane, if any. */
export function actionOfKey(key: string): KeyAction | undefined {
  return BY_KEY.get(key)?.action;
}

export function bindingOf(action: KeyAction): KeyBinding {
  const binding = KEY_MAP.find((candidate) => candidate.action === action);
  if (!binding) throw new Error(`no key for ${action}`);
  return binding;
}

const DISPLAY: Readonly<Record<string, string>> = {
  up: '↑',
  down: '↓',
  left: '←',
  right: '→',
  pageup: 'PgUp',
  pagedown: 'PgDn',
  home: 'Home',
  end: 'End',
  enter: 'Enter',
  escape: 'Esc',
  backspace: 'Backspace',
  tab: 'Tab',
};

/** A key as people write it: `r`, `Ctrl-R`, `↑`, `Enter`. */
export function displayKey(key: string): string {
  if (key.startsWith('C-')) return `Ctrl-${key.slice(2).toUpperCase()}`;
  return DISPLAY[key] ?? key;
}

/** The key a message names for an action: `R` for restarting the dev server. */
export function keyLabel(action: KeyAction): string {
  return displayKey(bindingOf(action).keys[0] ?? '?');
}

/** One `?`/docs line: its keys as people write them and what they do. */
export interface KeyHelpRow {
  keys: string[];
  help: string;
  more: readonly string[];
  isDemoOnly: boolean;
}

/** The help rows in order: a binding without `help` joins the row above. */
export function keyHelpRows(): KeyHelpRow[] {
  const rows: KeyHelpRow[] = [];
  for (const binding of KEY_MAP) {
    const keys = binding.keys.map(displayKey);
    const last = rows.at(-1);
    if (binding.help === undefined && last) last.keys.push(...keys);
    else rows.push({ keys, help: binding.help ?? '', more: binding.more ?? [], isDemoOnly: binding.isDemoOnly === true });
  }
  return rows;
}

/** What a message says to restart the dev server: the TUI key, or the command for a second terminal. */
export function restartHint(): string {
  return `${keyLabel('restart-dev-server')} in the terminal UI, or median-dev restart`;
}
