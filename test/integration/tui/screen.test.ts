import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { startTui, type Tui, type TuiEffect, type TuiOptions } from '../../../src/tui/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { callEvent, makeRecord, makeSnapshot } from '../../helpers/record-fixtures.js';
import { fakeTty, type FakeTty } from '../../helpers/terminal-streams.js';

/** vi.waitFor's default 1 s is too short when the suite's other workers load both cores. */
const waitFor = <T>(check: () => T | Promise<T>): Promise<T> => vi.waitFor(check, { timeout: 5_000 });

/** Lets blessed's setImmediate flush and the stream deliver what was written (no timers involved). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

function start(tty: FakeTty, options: Partial<TuiOptions> = {}): { tui: Tui; effects: TuiEffect[] } {
  const effects: TuiEffect[] = [];
  const tui = useTeardown(
    startTui({ input: tty.input, output: tty.output, terminal: 'xterm-256color', onEffect: (effect) => void effects.push(effect), ...options }),
    (t) => t.close(),
  );
  return { tui, effects };
}

describe('the blessed screen', () => {
  it('draws the calls, replays the selected one on r, and shows the replay', async () => {
    const tty = fakeTty(100, 30);
    const { tui, effects } = start(tty);
    const older = makeRecord({ tool: 'lookup_order' });
    const newer = makeRecord({ tool: 'cancel_order' });
    tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot([older]) });
    tui.dispatch({ type: 'event', event: callEvent(newer) });

    await waitFor(() => {
      // What is on screen: blessed writes only the cells that changed, so a row drawn over
      // `lookup_order` may reach the stream as `cancel` and a cursor move (a slow machine draws twice).
      const text = tui.screenText().join('\n');
      expect(text).toContain('https://calm-otter.loca.lt');
      expect(text).toContain('lookup_order');
      expect(text).toContain('cancel_order');
    });
    await waitFor(() => expect(tty.plain()).toContain('lookup_order'));
    const rows = tui.screenText();
    expect(rows).toHaveLength(30);
    expect(rows.findIndex((row) => row.includes('cancel_order'))).toBeLessThan(rows.findIndex((row) => row.includes('lookup_order')));

    tty.input.write('r');
    await waitFor(() => expect(effects).toEqual([{ type: 'send', command: { command: 'replay', toolCallId: newer.id } }]));

    const replay = makeRecord({ tool: 'cancel_order', toolCallId: newer.toolCallId, replayOf: newer.id });
    tui.dispatch({ type: 'event', event: callEvent(replay) });
    await waitFor(() => expect(tty.plain()).toContain('↻'));
    const after = tui.screenText();
    const replayRow = after.findIndex((row) => row.includes('cancel_order') && row.includes('↻'));
    expect(replayRow).toBeGreaterThan(0);
    expect(replayRow).toBeLessThan(after.findIndex((row) => row.includes('cancel_order') && !row.includes('↻') && row.includes(':')));
    // Following: the replay, now the newest, is the selected call.
    expect(tui.state.selection).toBe('follow');
    expect(after.join('\n')).toContain('↻ replay of');
  });

  it('shows a heal under way in the header (endpoint syncing → the new URL), then the endpoint synced', async () => {
    const tty = fakeTty(160, 30);
    const { tui } = start(tty);
    const next = 'https://brave-lynx.loca.lt/api/median';
    tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot([]) });
    await waitFor(() => expect(tui.screenText().join('\n')).toContain('endpoint synced'));
    tui.dispatch({ type: 'event', event: { event: 'heal', at: new Date().toISOString(), state: 'changing', url: next } });
    tui.dispatch({ type: 'event', event: { event: 'heal', at: new Date().toISOString(), state: 'syncing', url: next } });
    await waitFor(() => expect(tui.screenText().join('\n')).toContain(`endpoint syncing → ${next}`));
    expect(tui.screenText().join('\n')).not.toContain('endpoint synced');
    tui.dispatch({ type: 'event', event: { event: 'endpoint', at: new Date().toISOString(), action: 'synced', id: 'ep_1', url: next } });
    tui.dispatch({ type: 'event', event: { event: 'heal', at: new Date().toISOString(), state: 'done', url: next, durationMs: 900, synced: true } });
    await waitFor(() => expect(tui.screenText().join('\n')).toContain('endpoint synced'));
  });

  it('says in the header which file the key came from', async () => {
    const tty = fakeTty(160, 30);
    const { tui } = start(tty);
    tui.dispatch({ type: 'snapshot', snapshot: { ...makeSnapshot([]), keyFingerprint: '…Zq7X', keySource: '.env' } });
    await waitFor(() => expect(tty.plain()).toContain('key …Zq7X from .env'));
    tui.dispatch({ type: 'snapshot', snapshot: { ...makeSnapshot([]), keyFingerprint: null, keySource: null } });
    await waitFor(() => expect(tui.screenText().join('\n')).toContain('key not set'));
    expect(tui.screenText().join('\n')).not.toContain(' from .env');
  });

  it('asks before replaying a high-risk call and sends the yes', async () => {
    const tty = fakeTty(100, 30);
    const { tui, effects } = start(tty);
    const risky = makeRecord({ tool: 'refund_order', risk: 'high' });
    tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot([risky]) });
    tty.input.write('r');
    await waitFor(() => expect(tui.screenText().join('\n')).toContain('Its risk is high'));
    expect(effects).toEqual([]);
    tty.input.write('y');
    await waitFor(() => expect(effects).toEqual([{ type: 'send', command: { command: 'replay', toolCallId: risky.id, confirmed: true } }]));
  });

  it('copies a call as curl with OSC 52 and shows it', async () => {
    const tty = fakeTty(120, 30);
    const { tui } = start(tty, { curlOf: (record) => `curl resigned ${record.toolCallId}` });
    const record = makeRecord();
    tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot([record]) });
    tty.input.write('c');
    const text = `curl resigned ${record.toolCallId}`;
    await waitFor(() => expect(tty.captured()).toContain(`\u001b]52;c;${Buffer.from(text).toString('base64')}\u0007`));
    await waitFor(() => expect(tui.screenText().join('\n')).toContain(text));
  });

  it('hands the terminal to the editor and replays the edited input', async () => {
    const tty = fakeTty(100, 30);
    const opened: string[] = [];
    let finishEdit: (text: string | undefined) => void = () => undefined;
    const { tui, effects } = start(tty, {
      editor: {
        open: (text) => {
          opened.push(text);
          return new Promise((resolve) => {
            finishEdit = resolve;
          });
        },
      },
    });
    const record = makeRecord({ input: { orderNumber: 'A-1' } });
    tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot([record]) });
    expect(tty.input.isRaw).toBe(true);
    tty.input.write('e');
    await waitFor(() => expect(opened).toEqual(['{\n  "orderNumber": "A-1"\n}\n']));
    expect(tty.input.isRaw).toBe(false);
    finishEdit('{"orderNumber":"B-7"}');
    await waitFor(() =>
      expect(effects).toEqual([{ type: 'send', command: { command: 'replay', toolCallId: record.id, newId: true, input: { orderNumber: 'B-7' } } }]),
    );
    expect(tty.input.isRaw).toBe(true);
  });

  it('never passes control characters or markup from a record to the terminal', async () => {
    const tty = fakeTty(100, 70);
    const { tui } = start(tty);
    const hostile = makeRecord({
      tool: 'x{bold}y',
      response: { status: 200, headers: {}, body: 'before \u001b]0;pwned\u0007 after' },
    });
    tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot([hostile]) });
    await waitFor(() => expect(tui.screenText().join('\n')).toContain('before \ufffd]0;pwned\ufffd after'));
    expect(tui.screenText().join('\n')).toContain('x{bold}y');
    await settle();
    expect(tty.captured()).not.toContain('\u001b]0;pwned');
  });

  it('follows a terminal resize', async () => {
    const tty = fakeTty(100, 30);
    const { tui } = start(tty);
    tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot([makeRecord()]) });
    expect(tui.screenText()[0]).toHaveLength(100);
    tty.output.columns = 70;
    tty.output.rows = 20;
    tty.output.emit('resize');
    await waitFor(() => expect(tui.state.width).toBe(70));
    const rows = tui.screenText();
    expect(rows).toHaveLength(20);
    expect(rows[0]).toHaveLength(70);
    expect(rows.join('\n')).toContain('lookup_order');
  });

  it('shows the inspector URL in its header, from the snapshot and when the daemon announces it', async () => {
    const tty = fakeTty(160, 24);
    const { tui } = start(tty);
    tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot([makeRecord()]) });
    await waitFor(() => expect(tty.plain()).toContain('lookup_order'));
    expect(tui.screenText()[0]).not.toContain('inspector');

    tui.dispatch({ type: 'snapshot', snapshot: makeSnapshot([makeRecord()], { inspectorUrl: 'http://127.0.0.1:4040' }) });
    // Written to the terminal (blessed moves the cursor over blank cells, so only the URL is in one piece there).
    await waitFor(() => expect(tty.plain()).toContain('http://127.0.0.1:4040'));
    expect(tui.screenText()[0]).toContain('│  inspector http://127.0.0.1:4040');

    // A daemon that moved to a free port says so; the header follows.
    tui.dispatch({ type: 'event', event: { event: 'inspector', at: new Date().toISOString(), url: 'http://127.0.0.1:40411' } });
    await waitFor(() => expect(tui.screenText()[0]).toContain('inspector http://127.0.0.1:40411'));
  });

  it('quits on q and on Ctrl-C', async () => {
    const tty = fakeTty(80, 24);
    const { effects } = start(tty);
    tty.input.write('q');
    tty.input.write('\u0003');
    await waitFor(() => expect(effects).toEqual([{ type: 'quit' }, { type: 'quit' }]));
  });

  it('close restores the terminal and leaves no timer or listener behind', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const signalListeners = process.listenerCount('SIGINT');
    const exitListeners = process.listenerCount('exit');
    const tty = fakeTty(80, 24);
    const tui = startTui({ input: tty.input, output: tty.output, terminal: 'xterm-256color', onEffect: () => undefined });
    await settle();
    expect(tty.captured()).toContain('\u001b[?1049h');
    expect(tty.input.isRaw).toBe(true);
    for (let i = 0; i < 20; i++) tui.dispatch({ type: 'event', event: callEvent(makeRecord()) });
    expect(vi.getTimerCount()).toBe(1); // the throttled redraw

    tui.close();
    expect(vi.getTimerCount()).toBe(0);
    expect(tty.input.isRaw).toBe(false);
    await settle();
    const written = tty.captured();
    expect(written.slice(written.lastIndexOf('\u001b[?1049h'))).toContain('\u001b[?25h');
    expect(written.endsWith('\u001b[?1049l')).toBe(true);
    expect(process.listenerCount('SIGINT')).toBe(signalListeners);
    expect(process.listenerCount('exit')).toBe(exitListeners);

    tui.close();
    tui.dispatch({ type: 'event', event: callEvent(makeRecord()) });
    tui.restoreTerminal();
    await settle();
    expect(tty.captured()).toBe(written);
    expect(vi.getTimerCount()).toBe(0);
  });
});
