import { describe, expect, it, vi } from 'vitest';
import { MedianDevError } from '../../../src/shared/index.js';
import { type ControlCommand, type DaemonEvent, type DaemonSnapshot } from '../../../src/events/index.js';
import { attachTuiToControl, type TuiControlClient, type TuiEffect } from '../../../src/tui/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { callEvent, makeRecord, makeSnapshot } from '../../helpers/record-fixtures.js';
import { fakeTty } from '../../helpers/terminal-streams.js';

/** An in-memory control client: the shape src/control's client offers the TUI. */
function memoryClient(snapshot: DaemonSnapshot) {
  const listeners = new Set<(event: DaemonEvent) => void>();
  const closeListeners = new Set<(reason?: string) => void>();
  const sent: ControlCommand[] = [];
  let isClosed = false;
  const client: TuiControlClient = {
    snapshot,
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onClose(listener) {
      closeListeners.add(listener);
      return () => closeListeners.delete(listener);
    },
    async send(command) {
      sent.push(command);
      if (command.command === 'sync') throw new MedianDevError('no_endpoint', 'No endpoint yet.', { hint: 'Wait for the tunnel.' });
      // The daemon answers a replay with the toolCallId it sent (the TUI names the record by its id).
      if (command.command === 'replay') {
        const record = snapshot.records.find((r) => r.id === command.toolCallId);
        return { toolCallId: record?.toolCallId ?? command.toolCallId, status: 200, verdict: 'answered', durationMs: 5 };
      }
      return {};
    },
    close() {
      isClosed = true;
    },
  };
  return {
    client,
    sent,
    emit: (event: DaemonEvent) => listeners.forEach((listener) => listener(event)),
    drop: (reason: string) => closeListeners.forEach((listener) => listener(reason)),
    listenerCount: () => listeners.size + closeListeners.size,
    isClosed: () => isClosed,
  };
}

describe('attachTuiToControl', () => {
  it('shows the snapshot and live events, sends commands and shows their results', async () => {
    const tty = fakeTty(110, 30);
    const first = makeRecord({ tool: 'lookup_order' });
    const memory = memoryClient(makeSnapshot([first]));
    const otherEffects: TuiEffect[] = [];
    const attached = useTeardown(
      attachTuiToControl(memory.client, { input: tty.input, output: tty.output, terminal: 'xterm-256color', onEffect: (effect) => void otherEffects.push(effect) }),
      (a) => a.close(),
    );
    const screen = () => attached.tui.screenText().join('\n');
    expect(screen()).toContain('lookup_order');

    const second = makeRecord({ tool: 'cancel_order' });
    memory.emit(callEvent(second));
    await vi.waitFor(() => expect(screen()).toContain('cancel_order'));

    tty.input.write('r');
    await vi.waitFor(() => expect(screen()).toContain(`↻ Replayed ${second.id}: HTTP 200 answered in 5 ms.`));
    expect(memory.sent).toEqual([{ command: 'replay', toolCallId: second.id }]);

    tty.input.write('s');
    await vi.waitFor(() => expect(screen()).toContain('sync failed: No endpoint yet. Wait for the tunnel.'));

    tty.input.write('x');
    tty.input.write('q');
    await vi.waitFor(() => expect(otherEffects).toEqual([{ type: 'export-har' }, { type: 'quit' }]));

    memory.drop('daemon stopped');
    await vi.waitFor(() => expect(screen()).toContain('Lost the connection to the daemon (daemon stopped)'));

    await attached.close();
    expect(memory.listenerCount()).toBe(0);
    expect(memory.isClosed()).toBe(true);
    await attached.close();
  });
});
