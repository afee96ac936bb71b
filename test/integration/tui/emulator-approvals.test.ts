import { describe, expect, it, vi } from 'vitest';
import { createDemoTools, startToolRouteServer } from '../../../examples/tools-route/index.js';
import { resolveStartConfig } from '../../../src/config/index.js';
import { connectToDaemon } from '../../../src/control/index.js';
import { startDaemon, type Daemon } from '../../../src/daemon/index.js';
import { DECIDERS, type DaemonEvent, type EmulatorDecisionAnswer } from '../../../src/events/index.js';
import { describeDecision } from '../../../src/presentation/index.js';
import { attachTuiToControl } from '../../../src/tui/index.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { advanceShortWaitsUntil } from '../../helpers/advance-short-waits.js';
import { createManualClock, type ManualClock } from '../../helpers/manual-clock.js';
import { useEmulator } from '../../helpers/use-emulator.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { fakeTty } from '../../helpers/terminal-streams.js';
import { freeTestPort } from '../../helpers/free-test-port.js';
import { browserSession } from '../../helpers/inspector-session.js';

const POLL_MS = 1_500;

/**
 * A real daemon in front of the real example route, its Median API the real
 * emulator (`--tunnel none`: the emulator reaches the proxy on 127.0.0.1), and
 * the real TUI on a blessed screen over fake streams, attached through the
 * control channel as `median-dev watch` is. The approvals watch polls on a
 * clock the test drives.
 */
async function useWorld(options: { clock?: ManualClock; hasInspector?: boolean } = {}) {
  const { emulator } = await useEmulator();
  // The proxy's port is chosen first: the route, like a dev server median-dev started, knows its MEDIAN_TOOLS_URL.
  const port = await freeTestPort();
  const route = useTeardown(
    await startToolRouteServer({ port: 0, key: emulator.key, apiUrl: emulator.url, toolsUrl: `http://127.0.0.1:${port}/api/median`, tools: createDemoTools() }),
    (r) => r.close(),
  );
  const dataDir = await useTempDir('median-dev-held-');
  const config = await resolveStartConfig(
    { target: route.origin, route: '/api/median', port: String(port), tunnel: 'none', medianApi: emulator.url, envFile: false, dataDir, tui: false, ...(options.hasInspector ? { inspectorPort: 0 } : { inspector: false }) },
    { env: { MEDIAN_KEY: emulator.key }, cwd: dataDir, isTTY: false },
  );
  const daemon: Daemon = useTeardown(
    await startDaemon({ config, childCommand: [], baseEnv: {}, version: 'test', pid: process.pid, ...(options.clock ? { clock: options.clock } : {}), timing: { approvalPollMs: POLL_MS } }),
    (d) => d.close(),
  );
  const events: DaemonEvent[] = [];
  daemon.events.on((event) => void events.push(event));
  const isSynced = () => events.some((e) => e.event === 'endpoint' && e.action === 'synced');
  if (options.clock) {
    // The daemon's wait for Median's sync polls on the test's clock: it is moved on to each poll (never as far as
    // the approvals watch's first ask, POLL_MS) while the emulator is not syncing, until the endpoint is synced.
    const isSyncing = () => emulator.endpoints().some((e) => e.status === 'pending');
    const synced = vi.waitFor(() => expect(isSynced(), JSON.stringify(events)).toBe(true), { timeout: 20_000, interval: 5 });
    await advanceShortWaitsUntil(options.clock, synced, POLL_MS - 500, () => !isSyncing());
  }
  await vi.waitFor(() => expect(isSynced(), JSON.stringify(events)).toBe(true), { timeout: 20_000, interval: 50 });
  return { emulator, daemon, events, dataDir };
}

async function attachScreen(dataDir: string) {
  const tty = fakeTty(150, 30);
  const client = await connectToDaemon(dataDir);
  const attached = useTeardown(attachTuiToControl(client, { input: tty.input, output: tty.output, terminal: 'xterm-256color' }), (a) => a.close());
  useTeardown(client, (c) => c.close());
  return { tty, screen: () => attached.tui.screenText().join('\n') };
}

describe("the emulator's held calls in the TUI", () => {
  it('a high call held by the emulator shows in the header; a approves it and it runs at the route, recorded', { timeout: 60_000 }, async () => {
    const clock = createManualClock();
    const { emulator, daemon, events, dataDir } = await useWorld({ clock });
    const { tty, screen } = await attachScreen(dataDir);

    const conversation = await emulator.startConversation();
    const held = await emulator.requestApproval({ tool: 'refundOrder', input: { orderNumber: 'A1001', amount: 20 }, conversationId: conversation.id });
    expect(held.id).toMatch(/^apr_/);
    // Not shown before the watch asks: it asks on the clock.
    expect(screen()).not.toContain('⏸ emulator holds');
    clock.advance(POLL_MS);
    await vi.waitFor(() => expect(screen()).toContain(`⏸ emulator holds refundOrder ${held.id} (risk high)`), { timeout: 10_000 });
    expect(daemon.snapshot().emulatorApprovals?.map((a) => a.id)).toEqual([held.id]);
    expect(events.some((e) => e.event === 'call' && e.toolCallId === held.id)).toBe(false);

    tty.input.write('a');
    // Decided in the terminal UI, and named so: on the screen, in the call's approvedBy, in the emulator's records.
    await vi.waitFor(() => expect(screen()).toContain(`✓ refundOrder ${held.id} approved by ${DECIDERS.tui}: it ran at the route, HTTP 200 answered.`), { timeout: 15_000 });
    // The call ran at the route through the proxy: recorded under the approval's id, approvedBy set.
    await vi.waitFor(() => expect(events.find((e) => e.event === 'call' && e.toolCallId === held.id)).toBeDefined(), { timeout: 10_000 });
    const call = events.find((e): e is Extract<DaemonEvent, { event: 'call' }> => e.event === 'call' && e.toolCallId === held.id)!;
    expect(call).toMatchObject({ tool: 'refundOrder', status: 200, verdict: 'answered', signature: 'valid' });
    expect(JSON.parse(call.record!.request.body).context).toMatchObject({ risk: 'high', approvedBy: DECIDERS.tui });
    expect(emulator.approvals('approved').map((a) => [a.id, a.decidedBy])).toEqual([[held.id, DECIDERS.tui]]);
    expect(emulator.conversation(conversation.id).thread.map((entry) => entry.text)).toContain(`refundOrder ran (answered), approved by ${DECIDERS.tui}.`);
    // The decision asked again at once: the header no longer shows it.
    await vi.waitFor(() => expect(screen()).not.toContain('⏸ emulator holds'), { timeout: 10_000 });
  });

  it('v denies the selected one (Tab moves to the next): nothing reaches the route', { timeout: 60_000 }, async () => {
    const clock = createManualClock();
    const { emulator, events, dataDir } = await useWorld({ clock });
    const { tty, screen } = await attachScreen(dataDir);
    const conversation = await emulator.startConversation();
    const first = await emulator.requestApproval({ tool: 'refundOrder', input: { orderNumber: 'A1001', amount: 5 } });
    const second = await emulator.requestApproval({ tool: 'refundOrder', input: { orderNumber: 'A1002', amount: 6 }, conversationId: conversation.id });
    clock.advance(POLL_MS);
    await vi.waitFor(() => expect(screen()).toContain(`⏸ emulator holds refundOrder ${first.id} (risk high) a approve · v deny (1 of 2, Tab next)`), { timeout: 10_000 });
    tty.input.write('\t');
    await vi.waitFor(() => expect(screen()).toContain(`refundOrder ${second.id} (risk high) a approve · v deny (2 of 2`));
    tty.input.write('v');
    await vi.waitFor(() => expect(screen()).toContain(`refundOrder ${second.id} denied by ${DECIDERS.tui}: nothing was sent`), { timeout: 15_000 });
    expect(emulator.approvals('denied').map((a) => [a.id, a.decidedBy])).toEqual([[second.id, DECIDERS.tui]]);
    expect(emulator.conversation(conversation.id).thread.map((entry) => entry.text)).toContain(`refundOrder was declined by ${DECIDERS.tui}.`);
    expect(emulator.approvals('pending').map((a) => a.id)).toEqual([first.id]);
    expect(events.some((e) => e.event === 'call' && (e.toolCallId === second.id || e.toolCallId === first.id))).toBe(false);
  });

  it('the inspector names its user as the decider, apart from the TUI: in the answer, approvedBy and the thread', { timeout: 60_000 }, async () => {
    const { emulator, daemon, events } = await useWorld({ hasInspector: true });
    const { link } = (await daemon.handleCommand({ command: 'inspector-link' })) as { link: string };
    const session = await browserSession(link);
    const conversation = await emulator.startConversation();
    const approved = await emulator.requestApproval({ tool: 'refundOrder', input: { orderNumber: 'A1001', amount: 7 }, conversationId: conversation.id });
    const denied = await emulator.requestApproval({ tool: 'refundOrder', input: { orderNumber: 'A1002', amount: 8 }, conversationId: conversation.id });

    // The page's buttons post these; the flash is describeDecision of the answer.
    const approval = (await (await session.post(`/api/emulator-approvals/${approved.id}/approve`, {})).json()) as EmulatorDecisionAnswer;
    expect(approval).toMatchObject({ id: approved.id, decision: 'approve', by: DECIDERS.inspector, status: 200 });
    expect(describeDecision(approval)).toContain(`approved by ${DECIDERS.inspector}`);
    const call = await vi.waitFor(() => {
      const found = events.find((e): e is Extract<DaemonEvent, { event: 'call' }> => e.event === 'call' && e.toolCallId === approved.id);
      expect(found).toBeDefined();
      return found!;
    }, { timeout: 10_000 });
    expect(JSON.parse(call.record!.request.body).context).toMatchObject({ approvedBy: DECIDERS.inspector });
    const refusal = (await (await session.post(`/api/emulator-approvals/${denied.id}/deny`, {})).json()) as EmulatorDecisionAnswer;
    expect(refusal).toMatchObject({ id: denied.id, decision: 'deny', by: DECIDERS.inspector });
    expect(emulator.approvals().map((a) => [a.id, a.decidedBy])).toEqual([[approved.id, DECIDERS.inspector], [denied.id, DECIDERS.inspector]]);
    const thread = emulator.conversation(conversation.id).thread.map((entry) => entry.text);
    expect(thread).toEqual(expect.arrayContaining([`refundOrder ran (answered), approved by ${DECIDERS.inspector}.`, `refundOrder was declined by ${DECIDERS.inspector}.`]));
    expect(DECIDERS.inspector).not.toBe(DECIDERS.tui);
  });

  it('a real Median (an API off this machine) is never asked, and a decision is refused: not_emulator', async () => {
    const dataDir = await useTempDir('median-dev-held-real-');
    const config = await resolveStartConfig(
      { target: 'http://127.0.0.1:9', route: '/api/median', port: '0', tunnel: 'none', medianApi: 'https://api.median.invalid', envFile: false, dataDir, tui: false, inspector: false },
      { env: {}, cwd: dataDir, isTTY: false },
    );
    const clock = createManualClock();
    const daemon = useTeardown(await startDaemon({ config, childCommand: [], baseEnv: {}, version: 'test', pid: process.pid, clock }), (d) => d.close());
    clock.advance(60_000);
    expect(daemon.snapshot().emulatorApprovals).toBeUndefined();
    await expect(daemon.handleCommand({ command: 'emulator-decision', id: 'apr_x', decision: 'approve' })).rejects.toMatchObject({ code: 'not_emulator' });
  });
});
