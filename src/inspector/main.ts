// src/inspector: the browser inspector's page (state, reducer, views), bundled by Vite into dist/inspector; a program of its own that talks to src/inspector-server over HTTP.
// Layer: the inspector page. May import: src/events, src/median, src/config, src/presentation, src/shared, src/platform (and no Node module: it runs in the browser).
import './styles.css';
import { createController } from './controller.js';
import { el, setText } from './dom.js';
import type { InspectorState } from './state.js';
import { createDetailView } from './views/detail-view.js';
import { createDiffView } from './views/diff-view.js';
import { createHeaderView } from './views/header-view.js';
import { createListView } from './views/list-view.js';
import { createReplayView } from './views/replay-view.js';
import { createStatusView } from './views/status-view.js';

/** The page: views drawn from the one state, at most once a frame. */
const root = document.getElementById('app')!;
let isScheduled = false;
const controller = createController(() => {
  if (isScheduled) return;
  isScheduled = true;
  requestAnimationFrame(() => {
    isScheduled = false;
    draw(controller.state());
  });
});

const header = createHeaderView(controller);
const list = createListView(controller);
const detail = createDetailView(controller);
const status = createStatusView(controller);
const replay = createReplayView(controller);
const diff = createDiffView(controller);
const flash = el('div', { class: 'flash', data: { testid: 'flash' } });
const calls = el('main', { class: 'calls' }, list.element, detail.element);
const noSession = el(
  'main',
  { class: 'no-session', data: { testid: 'no-session' } },
  el('h2', {}, 'This browser has no inspector session.'),
  el('p', {}, 'Run ', el('code', {}, 'median-dev inspect'), ' in the project folder: it opens a fresh one-time link.'),
);

function draw(state: InspectorState): void {
  if (state.session === 'none') {
    root.replaceChildren(noSession);
    return;
  }
  if (!root.contains(header.element)) root.replaceChildren(header.element, calls, status.element, replay.element, diff.element, flash);
  header.draw(state);
  calls.hidden = state.tab !== 'calls';
  if (!calls.hidden) {
    list.draw(state);
    detail.draw(state);
  }
  status.draw(state);
  replay.draw(state);
  diff.draw(state);
  setText(flash, state.flash?.text ?? '');
  flash.className = `flash ${state.flash?.level === 'error' ? 'c-red' : 'c-green'}`;
  document.body.dataset.ready = state.session === 'ok' && state.live === 'live' ? 'live' : state.live;
}

window.addEventListener('resize', () => list.draw(controller.state()));
void controller.boot();
