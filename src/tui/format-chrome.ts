import { KEY_MAP, bindingOf, keyHelpRows, keyLabel } from '../events/key-map.js';
import { isDevServerLocalOnly } from '../events/daemon-events.js';
import { childExitText } from '../events/child-exit.js';
import { unsignedOriginalReason } from '../median/unsigned-original.js';
import { plainText, seg, wrapText, wrapWords, type Color, type StyledLine } from './styled-text.js';
import { flashLines, rowCount, selectedHeld, type TuiState } from './tui-state.js';
import { heldLabel } from '../presentation/held-call-text.js';

const TUNNEL_COLORS: Record<TuiState['daemon']['tunnel']['state'], Color> = {
  open: 'green',
  connecting: 'yellow',
  down: 'red',
  closed: 'gray',
};

function endpointColor(status: string): Color {
  if (status === 'synced') return 'green';
  if (status === 'failed' || status === 'sync-failed' || status === 'clash') return 'red';
  if (status === 'removed') return 'gray';
  return 'yellow';
}

const SEPARATOR = seg('  │  ', 'gray');

/** The two header lines: tunnel and URLs; endpoint, child, key, call count, filter. */
export function headerLines(state: TuiState): StyledLine[] {
  const { daemon } = state;
  const first: StyledLine = [seg('median-dev', 'cyan', { bold: true })];
  if (state.isDemo) first.push(seg(' demo', 'yellow', { bold: true }));
  first.push(seg('  '));
  if (!daemon.hasSnapshot) {
    first.push(seg('waiting for the daemon…', 'gray'));
  } else {
    const { tunnel } = daemon;
    first.push(seg(`● ${tunnel.state}`, TUNNEL_COLORS[tunnel.state]));
    if (tunnel.url) first.push(seg(` ${tunnel.url}`, undefined, { bold: true }));
    if (tunnel.reason && tunnel.state !== 'open') first.push(seg(` (${tunnel.reason})`, 'gray'));
    // No tunnel URL yet, and the dev server runs anyway: it can be used locally meanwhile.
    if (isDevServerLocalOnly(daemon)) first.push(seg(' · dev server runs locally; the tunnel URL and the endpoint follow', 'yellow'));
    if (daemon.proxyUrl) first.push(seg(` → ${daemon.proxyUrl}`, 'gray'));
    if (daemon.inspectorUrl) first.push(SEPARATOR, seg('inspector '), seg(daemon.inspectorUrl, 'cyan'));
  }

  const second: StyledLine = [];
  const held = selectedHeld(state);
  if (held) {
    // median-dev's emulator holds a call: first on the line, so a narrow screen still shows it.
    const more = state.held.length > 1 ? ` (${state.heldIndex + 1} of ${state.held.length}, ${keyLabel('next-held')} next)` : '';
    second.push(seg(`⏸ emulator holds ${heldLabel(held)}`, 'yellow', { bold: true }), seg(` ${keyLabel('approve-held')} approve · ${keyLabel('deny-held')} deny${more}`, 'gray'), SEPARATOR);
  }
  const { endpoint, child, heal } = daemon;
  if (heal) {
    // The endpoint still points at the old URL: say where the heal is, never the old "synced".
    second.push(seg('endpoint '), seg(`${heal.state} → ${heal.url}`, 'yellow'));
  } else if (endpoint) {
    second.push(seg('endpoint '), seg(endpoint.status, endpointColor(endpoint.status)));
    if (endpoint.error) second.push(seg(`: ${endpoint.error}`, 'red'));
  } else if (daemon.endpointBlocked) {
    second.push(seg('endpoint '), seg(daemon.endpointBlocked, 'red'));
  } else {
    second.push(seg('endpoint '), seg('none yet', 'gray'));
  }
  second.push(SEPARATOR, seg('child '));
  const childColor: Color = child.state === 'running' ? 'green' : child.state === 'exited' ? 'red' : 'gray';
  second.push(seg(child.state === 'none' ? 'none' : child.state === 'exited' ? `exited (${childExitText(child)})` : child.state, childColor));
  if (child.pid !== undefined && child.state === 'running') second.push(seg(` pid ${child.pid}`, 'gray'));
  if (child.state === 'running' || child.state === 'starting') second.push(...targetSegments(daemon.target));
  second.push(SEPARATOR, seg(`key ${daemon.keyFingerprint ?? 'not set'}`, daemon.keyFingerprint ? undefined : 'yellow'));
  if (daemon.keyFingerprint && daemon.keySource) second.push(seg(` from ${daemon.keySource}`, 'gray'));
  second.push(SEPARATOR, seg(`${state.callCount} call${state.callCount === 1 ? '' : 's'}`));
  if (daemon.recording === 'failing') second.push(SEPARATOR, seg('recording failing', 'red', { bold: true }));
  const view = state.filter.view;
  if (view) second.push(SEPARATOR, seg(`filter "${view.filter.text}": ${rowCount(state)} of ${state.records.size}`, 'yellow'));
  return [first, second];
}

/**
 * After the child, short (the header is one line at 80 columns): that it does
 * not listen yet (what the proxy knows, at once), then where, when it was found from it.
 */
function targetSegments(target: TuiState['daemon']['target']): StyledLine {
  if (!target) return [];
  if (target.state !== 'listening') return [seg(' · not listening yet', 'yellow')];
  if ((target.how !== 'announced' && target.how !== 'listening') || target.url === null) return [];
  return [seg(` · ${new URL(target.url).host}`, 'gray')];
}

export function formatHeader(state: TuiState): string {
  return headerLines(state).map(plainText).join('\n');
}

function keyHints(hints: [string, string][]): StyledLine {
  const line: StyledLine = [];
  for (const [key, label] of hints) line.push(seg(key, 'cyan', { bold: true }), seg(` ${label}  `));
  return line;
}

/** The footer's lines: a flash message (wrapped), the filter being typed, or the keys that work now. */
export function footerLines(state: TuiState): StyledLine[] {
  const flash = state.flash;
  const lines = flashLines(state);
  if (!flash || lines.length === 0) return [footerLine(state)];
  const color: Color | undefined = flash.level === 'error' ? 'red' : flash.level === 'warn' ? 'yellow' : 'green';
  return lines.map((line) => [seg(line, color, { bold: flash.level !== 'info' })]);
}

/** The footer's first line: a flash message, the filter being typed, or the keys that work now. */
export function footerLine(state: TuiState): StyledLine {
  if (state.overlay?.kind === 'filter-input') {
    return [seg('/', 'cyan', { bold: true }), seg(state.filter.draft), seg('█', 'gray'), seg('   enter apply · esc clear · tool: verdict: status: sig: is:', 'gray')];
  }
  if (state.flash) {
    const color: Color | undefined = state.flash.level === 'error' ? 'red' : state.flash.level === 'warn' ? 'yellow' : 'green';
    return [seg(state.flash.text, color, { bold: state.flash.level !== 'info' })];
  }
  const hints: [string, string][] =
    state.focus === 'detail'
      ? [[navKeys(), 'scroll'], [keyLabel('back'), 'back']]
      : [[navKeys(), 'move'], ['⏎', bindingOf('toggle-detail').footer ?? '']];
  for (const binding of KEY_MAP) {
    if (binding.footer === undefined || binding.action === 'toggle-detail' || binding.action === 'back') continue;
    if (binding.isDemoOnly && !state.isDemo) continue;
    hints.push([keyLabel(binding.action), binding.footer]);
  }
  return keyHints(hints);
}

function navKeys(): string {
  return `${keyLabel('select-newer')}${keyLabel('select-older')}`;
}

const KEY_COLUMN = 16;

/** `?`: every key, from KEY_MAP (docs/cli.md's table is made from the same rows). */
export const HELP_LINES: readonly string[] = keyHelpRows().flatMap((row) => {
  const keys = row.keys.join(' ');
  const first = keys.length < KEY_COLUMN ? `${keys.padEnd(KEY_COLUMN)}${row.help}` : `${keys}  ${row.help}`;
  return [first, ...row.more.map((line) => `${' '.repeat(KEY_COLUMN)}${line}`)];
});

/** What a box drawn over the screen holds: its title, its lines wrapped to the box, and whether a key closes it. */
export interface OverlayContent {
  title: string;
  lines: StyledLine[];
  /** Any key closes it (help, text): the box ends with a line saying so, kept in view while the rest scrolls. */
  hasCloseHint: boolean;
}

/** The box drawn over the screen, if any, its lines wrapped to `width` columns. */
export function overlayContent(state: TuiState, width: number): OverlayContent | null {
  const overlay = state.overlay;
  if (!overlay || overlay.kind === 'filter-input') return null;
  switch (overlay.kind) {
    case 'help':
      return {
        title: 'Keys',
        lines: [
          ...HELP_LINES.flatMap((line) => wrapWords(line, width, { indent: KEY_COLUMN }).map((part) => [seg(part)])),
          // The demo's command for a second terminal: wrapped as a command, so it pastes whole.
          ...(state.helpNote ? [[], ...wrapWords(state.helpNote, width, { continuation: ' \\' }).map((part) => [seg(part, 'cyan')])] : []),
        ],
        hasCloseHint: true,
      };
    case 'confirm-replay': {
      const { record, command } = overlay;
      const unsigned = unsignedOriginalReason(record);
      const isRisky = record.risk === 'reviewed' || record.risk === 'high' || unsigned === undefined;
      return {
        title: 'Replay?',
        lines: [
          [seg('Replay '), seg(record.tool ?? '?', undefined, { bold: true }), seg(` (${record.toolCallId})`, 'gray')],
          ...(unsigned ? wrapWords(`${unsigned}.`, width).map((part) => [seg(part, 'red')]) : []),
          ...(isRisky ? [[seg(record.risk ? `Its risk is ${record.risk}: the tool runs again for real.` : 'The daemon says its risk needs a yes: the tool runs again for real.', 'yellow')]] : []),
          [seg(command.newId ? 'It is sent with a new toolCallId.' : 'It is sent with the same toolCallId (your idempotency key).', 'gray')],
          [],
          [seg('y', 'cyan', { bold: true }), seg(' replay   '), seg('n', 'cyan', { bold: true }), seg('/'), seg('esc', 'cyan', { bold: true }), seg(' cancel')],
        ],
        hasCloseHint: false,
      };
    }
    case 'text':
      // Cut hard, not at spaces: a line of a curl command is shell text whose quotes a continuation would break.
      return { title: overlay.title, lines: overlay.lines.flatMap((line) => wrapText(line, width)).map((line) => [seg(line)]), hasCloseHint: true };
    default: {
      const never: never = overlay;
      return never;
    }
  }
}

/** The last line of a help or text box: how to close it, and how to scroll it when it is taller than the screen. */
export function closeHint(isScrollable: boolean): StyledLine {
  if (!isScrollable) return [seg('any key closes this', 'gray')];
  return [seg(`${navKeys()} ${keyLabel('page-newer')} ${keyLabel('page-older')} scroll · any other key closes this`, 'gray')];
}
