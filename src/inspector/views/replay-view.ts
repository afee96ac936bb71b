import { unsignedOriginalReason } from '../../median/unsigned-original.js';
import { el, setText } from '../dom.js';
import type { Controller } from '../controller.js';
import type { InspectorState } from '../state.js';

/** The signature ages offered: now, near the edge of the five-minute window, and past it. */
const AGES: [number, string][] = [
  [0, 'now'],
  [-60_000, '1 minute old'],
  [-290_000, '4 min 50 s old (still valid)'],
  [-310_000, '5 min 10 s old (stale)'],
  [310_000, '5 min 10 s ahead (stale)'],
];

/**
 * Replay: the input in a JSON editor checked against the tool's inputSchema
 * from the last manifest read (the docs' invalid_input words), same or new
 * id, a signature age; risk reviewed/high asks first, naming tool and input.
 */
export function createReplayView(controller: Controller): { element: HTMLElement; draw(state: InspectorState): void } {
  const element = el('div', { class: 'overlay', data: { testid: 'replay-dialog' } });
  const editor = el('textarea', { class: 'editor mono', data: { testid: 'replay-input' }, attrs: { spellcheck: 'false', rows: '14' } });
  editor.addEventListener('input', () => controller.dispatch({ type: 'replay-edited', draft: editor.value }));
  const status = el('div', {});
  const note = el('span', { data: { testid: 'schema-note' } });
  let drawn: { replay: InspectorState['replay']; tools: InspectorState['tools'] } | undefined;

  function draw(state: InspectorState): void {
    const { replay, tools } = state;
    if (drawn && drawn.replay === replay && drawn.tools === tools) return;
    const isNew = drawn?.replay?.record !== replay?.record;
    drawn = { replay, tools };
    element.hidden = !replay;
    if (!replay) return;
    if (isNew || editor.value !== replay.draft) editor.value = replay.draft;
    const record = replay.record;
    const close = () => controller.dispatch({ type: 'replay-closed' });
    const schemaNote = tools?.tools?.some((t) => t.name === record.tool)
      ? `checked against ${record.tool}'s inputSchema from the manifest read ${tools.readAt ? new Date(tools.readAt).toLocaleTimeString() : ''}`
      : tools?.error
        ? `no manifest to check against: ${tools.error.message}`
        : 'reading the manifest…';
    setText(note, schemaNote);
    const age = el(
      'select',
      { data: { testid: 'replay-age' }, on: { change: (event) => controller.dispatch({ type: 'replay-option', atOffsetMs: Number((event.target as HTMLSelectElement).value) }) } },
      ...AGES.map(([ms, label]) => {
        const option = el('option', { attrs: { value: String(ms) } }, label);
        option.selected = ms === replay.atOffsetMs;
        return option;
      }),
    );
    const newId = el('input', { attrs: { type: 'checkbox' }, data: { testid: 'replay-new-id-box' }, on: { change: (event) => controller.dispatch({ type: 'replay-option', isNewId: (event.target as HTMLInputElement).checked }) } });
    newId.checked = replay.isNewId;
    editor.disabled = replay.refusal !== null;
    const problem = replay.refusal
      ? el('div', { class: 'problem c-red', data: { testid: 'replay-refused' } }, `${replay.refusal.message} [${replay.refusal.code}]`)
      : el('div', { class: replay.problem ? 'problem c-red' : 'problem c-green', data: { testid: 'replay-problem' } }, replay.problem ? `invalid_input: ${replay.problem}` : 'valid');
    const error = replay.error ? el('div', { class: 'c-red', data: { testid: 'replay-error' } }, `${replay.error.message} [${replay.error.code}]`) : null;
    const footer = replay.isConfirming
      ? el(
          'div',
          { class: 'confirm', data: { testid: 'replay-confirm' }, attrs: { role: 'alertdialog' } },
          unsignedOriginalReason(record) === undefined
            ? el('p', {}, el('strong', {}, `${record.tool ?? '?'} has risk "${record.risk ?? '?'}".`), ' A person approved the original call; a replay runs the action again without asking them. It sends this input:')
            : el('p', { data: { testid: 'replay-unsigned' } }, el('strong', {}, `${unsignedOriginalReason(record)}.`), ` Sending re-signs it with your key (risk "${record.risk ?? '?'}"). It sends this input:`),
          el('pre', { class: 'text mono' }, replay.draft),
          el('div', { class: 'actions' }, el('button', { class: 'danger', data: { testid: 'replay-confirm-yes' }, on: { click: () => controller.confirmReplay() } }, `Run ${record.tool ?? 'it'} again`), el('button', { on: { click: close } }, 'Cancel')),
        )
      : el(
          'div',
          { class: 'actions' },
          el('button', { class: 'primary', data: { testid: 'replay-send' }, attrs: replay.problem || replay.refusal || replay.isSending ? { disabled: '' } : {}, on: { click: () => controller.sendReplay() } }, replay.isSending ? 'Sending…' : 'Send'),
          el('button', { on: { click: close } }, 'Cancel'),
        );
    // The editor stays where it is while the user types (moving it would take its focus away).
    status.replaceChildren(problem, ...(error ? [error] : []), footer);
    if (!isNew) return;
    element.replaceChildren(
      el(
        'div',
        { class: 'dialog' },
        el('header', {}, el('h2', {}, `Replay ${record.tool ?? '?'}`), el('button', { class: 'close', on: { click: close } }, '×')),
        el('p', { class: 'c-gray mono' }, record.toolCallId),
        el('label', { class: 'option' }, newId, ' send with a new toolCallId (call_ + 32 hex)'),
        el('label', { class: 'option' }, 'signature ', age),
        el('div', { class: 'c-gray small' }, 'input — ', note),
        editor,
        status,
      ),
    );
  }
  return { element, draw };
}
