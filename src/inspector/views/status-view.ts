import { isDevServerLocalOnly } from '../../events/daemon-events.js';
import type { InspectorStatus, TimelineEntry } from '../../events/inspector-api.js';
import { formatDuration } from '../../presentation/index.js';
import { el } from '../dom.js';
import type { InspectorState } from '../state.js';
import type { Controller } from '../controller.js';
import type { EmulatorApproval } from '../../events/daemon-events.js';
import { heldLabel } from '../../presentation/index.js';
import { endpointColor } from './header-view.js';

const KIND_TITLES: Record<TimelineEntry['kind'], string> = {
  'tunnel-drop': 'tunnel dropped',
  'hostname-change': 'hostname changed',
  'endpoint-heal': 'endpoint healed',
};

const row = (name: string, ...value: (Node | string)[]) => el('tr', {}, el('th', {}, name), el('td', {}, ...value));

/** The endpoint row while a heal is under way: its step and target, and what the endpoint still is meanwhile. */
function healRow(heal: NonNullable<InspectorStatus['daemon']['heal']>, endpoint: InspectorStatus['daemon']['endpoint']): HTMLElement {
  const was = endpoint ? el('div', { class: 'c-gray' }, `until then: ${endpoint.status} on ${endpoint.url}`) : '';
  return row('endpoint', el('span', { class: 'c-yellow', data: { testid: 'endpoint-state' } }, heal.state), ` → ${heal.url}`, el('span', { class: 'c-gray' }, ` (since ${new Date(heal.startedAt).toLocaleTimeString()})`), was);
}

/** The dev server's last lines (the whole output is in the data dir's dev-server.log). */
function devOutputCard(lines: readonly string[], log: string | undefined): HTMLElement {
  return el(
    'section',
    { class: 'card' },
    el('h3', {}, 'Dev server output'),
    lines.length === 0 ? el('p', { class: 'c-gray' }, 'Nothing printed yet.') : el('pre', { data: { testid: 'dev-output' } }, lines.slice(-40).join('\n')),
    log ? el('p', { class: 'c-gray' }, `All of it: ${log}`) : '',
  );
}

/**
 * The calls median-dev's emulator holds for a decision, with a button for
 * each: marked as the emulator's, since a real Median's approvals are never
 * listed here (the daemon asks only its emulator).
 */
function heldCard(held: readonly EmulatorApproval[], controller: Controller): HTMLElement {
  return el(
    'section',
    { class: 'card held', data: { testid: 'held' } },
    el('h3', {}, "Held by median-dev's emulator (not a real Median)"),
    el('p', { class: 'c-gray' }, 'Reviewed and high calls wait for a decision, as Median holds them. Approve one and the emulator runs it at your route, through the tunnel; it is recorded under its approval id.'),
    el(
      'table',
      { class: 'headers' },
      ...held.map((approval) =>
        el(
          'tr',
          { data: { id: approval.id } },
          el('th', {}, heldLabel(approval)),
          el('td', { class: 'mono' }, JSON.stringify(approval.input)),
          el('td', { class: 'c-gray' }, `waits for ${approval.waitingFor === 'reviewer' ? 'the reviewer' : 'a teammate'}`),
          el(
            'td',
            {},
            el('button', { class: 'button', data: { testid: 'approve-held' }, on: { click: () => void controller.decideHeld(approval.id, 'approve') } }, 'Approve'),
            ' ',
            el('button', { class: 'button', data: { testid: 'deny-held' }, on: { click: () => void controller.decideHeld(approval.id, 'deny') } }, 'Deny'),
          ),
        ),
      ),
    ),
  );
}

/** Tunnel, endpoint (its in-between heal states too), child, key, the emulator's held calls, and the timeline of drops and heals. */
export function createStatusView(controller: Controller): { element: HTMLElement; draw(state: InspectorState): void } {
  const element = el('section', { class: 'status-page', data: { testid: 'status' } });
  let drawn: InspectorState['status'] | undefined;

  function draw(state: InspectorState): void {
    element.hidden = state.tab !== 'status';
    if (state.tab !== 'status' || state.status === drawn) return;
    drawn = state.status;
    const status = state.status;
    if (!status) {
      element.replaceChildren(el('p', { class: 'c-gray' }, 'Waiting for the daemon…'));
      return;
    }
    const { daemon } = status;
    const entries = status.timeline.slice().reverse();
    const held = daemon.emulatorApprovals ?? [];
    element.replaceChildren(
      ...(held.length > 0 ? [heldCard(held, controller)] : []),
      el(
        'section',
        { class: 'card' },
        el('h3', {}, 'Now'),
        el(
          'table',
          { class: 'headers' },
          row('tunnel', el('span', { class: daemon.tunnel.state === 'open' ? 'c-green' : 'c-yellow' }, daemon.tunnel.state), ` ${daemon.tunnel.url ?? ''}`, daemon.tunnel.reason ? ` (${daemon.tunnel.reason})` : '', isDevServerLocalOnly(daemon) ? el('div', { class: 'c-yellow', data: { testid: 'local-only' } }, 'The dev server runs locally meanwhile; the tunnel URL and the endpoint follow once the tunnel opens.') : ''),
          row('MEDIAN_TOOLS_URL', daemon.toolsUrl ?? '—'),
          daemon.heal ? healRow(daemon.heal, daemon.endpoint) : row('endpoint', daemon.endpoint ? el('span', { class: `c-${endpointColor(daemon.endpoint.status)}`, data: { testid: 'endpoint-state' } }, daemon.endpoint.status) : 'none yet', daemon.endpoint ? ` ${daemon.endpoint.id} ${daemon.endpoint.url}` : '', daemon.endpoint?.error ? el('div', { class: 'c-red' }, daemon.endpoint.error) : ''),
          row('child', `${daemon.child.state}${daemon.child.pid ? ` (pid ${daemon.child.pid})` : ''}${daemon.child.command ? `: ${daemon.child.command}` : ''}`),
          row('key', daemon.keyFingerprint ?? 'not set'),
          row('proxy', daemon.proxyUrl ?? '—'),
          row('recording', el('span', { class: status.recording === 'ok' ? 'c-green' : 'c-red' }, status.recording)),
          row('calls recorded', daemon.callCount.toLocaleString('en')),
          row('version', daemon.version),
        ),
      ),
      devOutputCard(daemon.devServerOutput ?? [], daemon.devServerLog),
      el(
        'section',
        { class: 'card' },
        el('h3', {}, 'History'),
        entries.length === 0
          ? el('p', { class: 'c-gray' }, 'No tunnel drop, hostname change or endpoint heal yet.')
          : el(
              'table',
              { class: 'timeline', data: { testid: 'timeline' } },
              el('tr', {}, el('th', {}, 'when'), el('th', {}, 'what'), el('th', {}, 'took'), el('th', {}, '')),
              ...entries.map((entry) =>
                el(
                  'tr',
                  { data: { kind: entry.kind } },
                  el('td', { class: 'c-gray' }, new Date(entry.startedAt).toLocaleTimeString()),
                  el('td', { class: entry.outcome === 'failed' ? 'c-red' : entry.outcome === 'open' ? 'c-yellow' : '' }, KIND_TITLES[entry.kind], entry.outcome === 'open' ? ` (${entry.step ?? 'under way'})` : entry.outcome === 'failed' ? ' (failed)' : ''),
                  el('td', { class: 'num' }, entry.durationMs === null ? '…' : formatDuration(entry.durationMs)),
                  el('td', { class: 'c-gray' }, entry.detail),
                ),
              ),
            ),
      ),
    );
  }
  return { element, draw };
}
