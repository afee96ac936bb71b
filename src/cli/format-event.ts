import type { DaemonEvent, HealState } from '../events/daemon-events.js';
import { callEventLine } from '../events/call-event.js';
import { childExitText } from '../events/child-exit.js';
import { OWNER_LABELS, type EndpointOwner } from '../shared/endpoint-owner.js';
import { safeJson, safeStrings } from '../shared/output-sanitiser.js';
import { styleSignature, styleVerdict, type Style } from './terminal-style.js';

/** One `--json` line: the event without the embedded record (the store has it). */
export function eventToJsonLine(event: DaemonEvent): string {
  return safeJson(event.event === 'call' ? callEventLine(event) : event);
}

const label = (style: Style, text: string) => style.dim(text.padEnd(9));

/** What each in-between heal state means, for the plain log. */
const HEAL_STEPS: Record<HealState, string> = {
  changing: 'writing the URL, restarting the dev server',
  connecting: 'waiting for the route to answer',
  syncing: 'moving the endpoint, waiting for its sync',
};

/** Milliseconds as seconds with one decimal. */
const seconds = (ms: number): string => (Math.round(ms / 100) / 10).toFixed(1);

const ownerLabel = (owner: EndpointOwner | null | undefined): string => (owner ? OWNER_LABELS[owner] : 'no longer listed');

/** A plain log line for `--no-tui`, or undefined for events not worth a line. */
export function eventToLogLine(raw: DaemonEvent, style: Style): string | undefined {
  // Tool names, toolCallIds, dev server output and messages come from outside: one line each, controls escaped.
  // A call's line shows none of its embedded record: it is not walked (a whole request and answer, every call).
  const event = safeStrings(raw.event === 'call' && raw.record !== undefined ? callEventLine(raw) : raw);
  switch (event.event) {
    case 'proxy':
      return `${label(style, 'proxy')}listening on ${event.url}`;
    case 'tunnel':
      if (event.state === 'open') {
        const change = event.isHostnameChange
          ? style.yellow(`  (hostname changed${event.requestedSubdomain ? `: asked for ${event.requestedSubdomain}, got ${event.subdomain ?? '?'}` : ''})`)
          : '';
        return `${label(style, 'tunnel')}${style.green('open')} ${event.url ?? ''}${change}`;
      }
      if (event.state === 'down') return `${label(style, 'tunnel')}${style.red('down')} ${event.reason ?? ''}`;
      if (event.state === 'connecting') return `${label(style, 'tunnel')}connecting…`;
      return `${label(style, 'tunnel')}closed`;
    case 'tools-url':
      return `${label(style, 'env')}MEDIAN_TOOLS_URL=${event.url}${event.envFile ? style.dim(`  (written to ${event.envFile})`) : ''}`;
    case 'heal': {
      const resumed = event.resumed ? ' (resumed: the dev server answers)' : '';
      if (event.state === 'done') {
        const took = event.durationMs === undefined ? '' : ` in ${seconds(event.durationMs)} s`;
        return `${label(style, 'heal')}${event.synced ? style.green('done') : style.yellow('done, endpoint not synced')} ${event.url}${style.dim(`${took}${resumed}`)}`;
      }
      return `${label(style, 'heal')}${style.yellow(event.state)} → ${event.url}${style.dim(`  (${HEAL_STEPS[event.state]})${resumed}`)}`;
    }
    case 'emulator-approvals':
      return emulatorApprovalsLine(event, style);
    case 'local-only':
      return `${label(style, 'tunnel')}${style.yellow('not open yet')}: ${event.message}`;
    case 'endpoint': {
      const tools = event.tools ? style.dim(` (${event.tools.length} tool${event.tools.length === 1 ? '' : 's'})`) : '';
      const base = `${label(style, 'endpoint')}${event.action} ${event.id} ${event.url}`;
      if (event.action === 'sync-failed') {
        const fix = event.fix ? `\n${' '.repeat(9)}${style.yellow(`→ ${event.fix}`)}` : '';
        return `${base}\n${' '.repeat(9)}${style.red(event.error ?? 'sync failed')}${fix}`;
      }
      if (event.action === 'clash') {
        const whose = event.otherUrl ? `${' '.repeat(9)}clashes with ${event.otherUrl} (${ownerLabel(event.otherOwner)})\n` : '';
        return `${base}\n${whose}${' '.repeat(9)}${style.yellow(`→ ${event.fix ?? 'median-dev endpoints'}`)}`;
      }
      if (event.action === 'waiting') {
        return `${label(style, 'endpoint')}${style.yellow('waiting')} ${event.id} ${event.url}\n${' '.repeat(9)}${style.dim(`the dev server is still starting (${event.error ?? 'no answer'}): syncing again for a few seconds`)}`;
      }
      if (event.action === 'synced') return `${label(style, 'endpoint')}${style.green('synced')} ${event.id} ${event.url}${tools}`;
      return base + tools;
    }
    case 'call':
      return [
        label(style, 'call'),
        event.at.slice(11, 23),
        ' ',
        `${event.tool ?? `(${event.kind ?? "request"})`}${event.repeats === undefined ? '' : ` ×${event.repeats}`}`.padEnd(18),
        String(event.status ?? '—').padEnd(4),
        styleVerdict(style, event.verdict).padEnd(15),
        ` ${event.durationMs === null ? '—' : `${Math.round(event.durationMs)}ms`}`.padEnd(8),
        ' ',
        styleSignature(style, event.signature),
        ' ',
        style.dim(event.toolCallId || event.id),
        event.replayOf ? style.cyan(' ↻ replay') : '',
      ].join('');
    case 'child':
      if (event.state === 'running') return `${label(style, 'child')}running (pid ${event.pid ?? '?'})${event.command ? style.dim(`: ${event.command}`) : ''}`;
      if (event.state === 'exited')
        return `${label(style, 'child')}${style.yellow(`exited (${childExitText(event)})`)} — the tunnel stays up; run \`median-dev restart\` to start it again`;
      return `${label(style, 'child')}${event.state}`;
    case 'inspector':
      return `${label(style, 'inspect')}${event.link ?? event.url}${event.link ? style.dim('  (one-time link; `median-dev inspect` makes another)') : ''}`;
    case 'output':
      return `${style.dim('[dev]')} ${event.line}`;
    case 'target':
      if (!event.message) return undefined; // a state change only: the header's
      return `${label(style, 'target')}${event.how === 'remembered' || event.how === 'default' ? style.yellow(event.message) : event.message}`;
    case 'recording':
      return event.state === 'failing'
        ? `${label(style, 'recorder')}${style.red(`cannot write recordings: ${event.message ?? ''}`)} (calls still pass through)`
        : `${label(style, 'recorder')}recording again`;
    case 'key':
      return undefined; // The rotation's own log line says it, with the file.
    case 'log':
      return `${label(style, event.level)}${event.level === 'warn' ? style.yellow(event.message) : event.message}`;
    case 'error':
      return `${label(style, 'error')}${style.red(`${event.message} [${event.code}]`)}${event.hint ? `\n${' '.repeat(9)}→ ${event.hint}` : ''}`;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** The emulator's held calls changed: what waits now (the TUI and the inspector can approve them). */
function emulatorApprovalsLine(event: Extract<DaemonEvent, { event: 'emulator-approvals' }>, style: Style): string {
  if (event.approvals.length === 0) return `${label(style, 'emulator')}no call waits for approval`;
  const held = event.approvals.map((a) => `${a.id} ${a.tool} (risk ${a.risk})`).join(', ');
  return `${label(style, 'emulator')}${style.yellow(`${event.approvals.length} held for approval`)}: ${held}`;
}
