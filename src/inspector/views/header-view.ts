import { el, setText } from '../dom.js';
import type { Controller } from '../controller.js';
import type { InspectorState } from '../state.js';

const TUNNEL_COLORS: Record<string, string> = { open: 'green', connecting: 'yellow', down: 'red', closed: 'gray' };

export function endpointColor(status: string): string {
  if (status === 'synced') return 'green';
  if (status === 'failed' || status === 'sync-failed' || status === 'clash') return 'red';
  return 'yellow';
}

function pill(label: string, value: string, color: string, testid: string): HTMLElement {
  return el('span', { class: 'pill', data: { testid } }, el('span', { class: 'c-gray' }, `${label} `), el('span', { class: `c-${color}` }, value));
}

/** The top bar: the daemon's state at a glance, the tabs, the filter box, the HAR download. */
export function createHeaderView(controller: Controller): { element: HTMLElement; draw(state: InspectorState): void } {
  const pills = el('div', { class: 'pills' });
  const tabs = el('nav', { class: 'tabs' });
  const filter = el('input', {
    class: 'filter mono',
    data: { testid: 'filter' },
    attrs: { type: 'search', placeholder: 'filter: tool:refund verdict:ref status:5xx sig:invalid is:replay -word', spellcheck: 'false' },
  });
  let debounce: ReturnType<typeof setTimeout> | undefined;
  filter.addEventListener('input', () => {
    controller.dispatch({ type: 'filter-typed', text: filter.value });
    clearTimeout(debounce);
    debounce = setTimeout(() => controller.applyFilter(), 250);
  });
  filter.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    clearTimeout(debounce);
    controller.applyFilter();
  });
  const count = el('span', { class: 'count c-gray', data: { testid: 'count' } });
  const har = el('button', { class: 'button', data: { testid: 'har' }, on: { click: () => void controller.downloadHar() } }, 'Download HAR');
  const toolbar = el('div', { class: 'toolbar' }, filter, count, har);
  const element = el('header', { class: 'top' }, el('div', { class: 'bar' }, el('strong', { class: 'brand' }, 'median-dev'), pills, tabs), toolbar);
  let last: InspectorState | undefined;

  function draw(state: InspectorState): void {
    if (last && last.status === state.status && last.live === state.live && last.tab === state.tab && last.list === state.list) return;
    last = state;
    const daemon = state.status?.daemon;
    pills.replaceChildren(
      ...(daemon?.isDemo ? [el('span', { class: 'pill c-yellow' }, 'demo')] : []),
      pill('tunnel', daemon ? `${daemon.tunnel.state}${daemon.tunnel.url ? ` ${daemon.tunnel.url}` : ''}` : '…', TUNNEL_COLORS[daemon?.tunnel.state ?? ''] ?? 'gray', 'tunnel'),
      daemon?.heal
        ? pill('endpoint', `${daemon.heal.state} → ${daemon.heal.url}`, 'yellow', 'endpoint')
        : pill('endpoint', daemon?.endpoint ? daemon.endpoint.status : 'none yet', daemon?.endpoint ? endpointColor(daemon.endpoint.status) : 'gray', 'endpoint'),
      pill('child', daemon ? daemon.child.state : '…', daemon?.child.state === 'running' ? 'green' : daemon?.child.state === 'exited' ? 'red' : 'gray', 'child'),
      pill('key', daemon?.keyFingerprint ?? 'not set', daemon?.keyFingerprint ? 'cyan' : 'yellow', 'key'),
      ...(daemon?.emulatorApprovals?.length
        ? [
            el(
              'button',
              { class: 'pill c-yellow', data: { testid: 'held-pill' }, title: "Calls median-dev's emulator holds for a decision: approve or deny them on the status page", on: { click: () => controller.dispatch({ type: 'tab-chosen', tab: 'status' }) } },
              `⏸ ${daemon.emulatorApprovals.length} held by the emulator`,
            ),
          ]
        : []),
      pill('', state.live === 'live' ? '● live' : state.live === 'connecting' ? '○ connecting' : '○ reconnecting', state.live === 'live' ? 'green' : 'yellow', 'live'),
    );
    tabs.replaceChildren(
      ...(['calls', 'status'] as const).map((tab) =>
        el('button', { class: `tab${state.tab === tab ? ' active' : ''}`, data: { testid: `tab-${tab}` }, on: { click: () => controller.dispatch({ type: 'tab-chosen', tab }) } }, tab === 'calls' ? 'Calls' : 'Status and history'),
      ),
    );
    toolbar.hidden = state.tab !== 'calls';
    const { list } = state;
    setText(count, list.filter ? `${list.total.toLocaleString('en')} of ${list.recorded.toLocaleString('en')} calls` : `${list.total.toLocaleString('en')} calls`);
    if (document.activeElement !== filter && filter.value !== list.draft) filter.value = list.draft;
  }
  return { element, draw };
}
