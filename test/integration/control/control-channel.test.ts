import { describe, expect, it, vi } from 'vitest';
import { UserError } from '../../../src/shared/index.js';
import { type ControlCommand, type DaemonEvent, type DaemonSnapshot } from '../../../src/events/index.js';
import {
  deferred,
  logEvent,
  makeSnapshot,
  rejectionOf,
  useControlClient,
  useControlServer,
  useRawClient,
} from './use-control-server.js';

describe('snapshot and events', () => {
  it('sends the snapshot first, then every live event in order', async () => {
    const snapshot = makeSnapshot({ callCount: 3, child: { state: 'running', pid: 42, command: 'npm run dev' } });
    const { server } = await useControlServer({ snapshot: () => snapshot });
    const client = await useControlClient(server);
    expect(client.snapshot).toEqual(snapshot);

    const received: DaemonEvent[] = [];
    client.onEvent((event) => received.push(event));
    const sent = Array.from({ length: 50 }, (_, n) => logEvent(n));
    for (const event of sent) server.broadcast(event);

    await vi.waitFor(() => expect(received).toHaveLength(50));
    expect(received).toEqual(sent);
  });

  it('holds events broadcast while an async snapshot is taken until after it', async () => {
    const pending = deferred<DaemonSnapshot>();
    const { server } = await useControlServer({ snapshot: () => pending.promise });
    const raw = await useRawClient(server);

    await vi.waitFor(() => expect(server.clientCount()).toBe(1));
    server.broadcast(logEvent(1));
    server.broadcast(logEvent(2));
    pending.resolve(makeSnapshot({ callCount: 7 }));

    await vi.waitFor(() => expect(raw.frames).toHaveLength(3));
    expect(raw.frames.map((f) => f.type)).toEqual(['snapshot', 'event', 'event']);
    expect(raw.frames[0]).toMatchObject({ snapshot: { callCount: 7 } });
    expect(raw.frames.slice(1).map((f) => f.event)).toEqual([logEvent(1), logEvent(2)]);
  });

  it('keeps events that arrive before the first listener and hands them to it in order', async () => {
    const { server } = await useControlServer();
    const client = await useControlClient(server);
    for (let n = 0; n < 5; n += 1) server.broadcast(logEvent(n));
    // A command round trip proves the five events reached the client before it subscribes.
    await client.send({ command: 'sync' });

    const received: DaemonEvent[] = [];
    client.onEvent((event) => received.push(event));
    server.broadcast(logEvent(5));
    await vi.waitFor(() => expect(received).toHaveLength(6));
    expect(received).toEqual([0, 1, 2, 3, 4, 5].map(logEvent));
  });

  it('closes a client with 1011 when the snapshot fails, and keeps serving others', async () => {
    let shouldFail = true;
    const { server } = await useControlServer({
      snapshot: () => {
        if (shouldFail) throw new Error('store unreadable');
        return makeSnapshot();
      },
    });
    const raw = await useRawClient(server);
    expect((await raw.closed).code).toBe(1011);

    shouldFail = false;
    const client = await useControlClient(server);
    expect(client.snapshot.version).toBe('0.1.0');
  });
});

describe('commands', () => {
  it('answers each command by id, and a thrown error as a coded failure', async () => {
    const diagnosticsArrived = deferred<void>();
    const handled: ControlCommand[] = [];
    const { server } = await useControlServer({
      async handleCommand(command) {
        handled.push(command);
        switch (command.command) {
          case 'sync':
            // Answers only after a later command: results must be matched by id, not order.
            await diagnosticsArrived.promise;
            return { synced: true };
          case 'diagnostics':
            diagnosticsArrived.resolve();
            return { checks: ['key', 'route'] };
          case 'replay':
            throw new UserError('call_not_found', `No recorded call ${command.toolCallId}.`, { hint: 'Run `median-dev calls`.' });
          case 'clear':
            throw new Error('disk on fire');
          default:
            return undefined;
        }
      },
    });
    const client = await useControlClient(server);

    const sync = client.send({ command: 'sync' });
    const diagnostics = client.send({ command: 'diagnostics' });
    expect(await diagnostics).toEqual({ checks: ['key', 'route'] });
    expect(await sync).toEqual({ synced: true });
    expect(await client.send({ command: 'restart-child' })).toBeNull();

    const notFound = await rejectionOf(client.send({ command: 'replay', toolCallId: 'call_1', newId: true }));
    expect(notFound).toMatchObject({ code: 'call_not_found', hint: 'Run `median-dev calls`.' });
    expect(await rejectionOf(client.send({ command: 'clear' }))).toMatchObject({ code: 'internal_error' });
    expect(handled).toContainEqual({ command: 'replay', toolCallId: 'call_1', newId: true });
  });

  it('times out a command the daemon does not answer', async () => {
    const { server } = await useControlServer({ handleCommand: () => new Promise(() => {}) });
    const client = await useControlClient(server);
    expect(await rejectionOf(client.send({ command: 'sync' }, { timeoutMs: 100 }))).toMatchObject({ code: 'control_timeout' });
  });
});

describe('bad frames', () => {
  it('answers unreadable frames with an error result and keeps serving the connection', async () => {
    const { server } = await useControlServer({ handleCommand: async (command) => ({ ran: command.command }) });
    const raw = await useRawClient(server);
    await vi.waitFor(() => expect(raw.frames).toHaveLength(1));

    const bad: [string, unknown, string][] = [
      ['not json {', null, 'bad_frame'],
      ['[1,2]', null, 'bad_frame'],
      ['{"type":"hello","id":"a"}', 'a', 'bad_frame'],
      ['{"type":"command","command":{"command":"sync"}}', null, 'bad_frame'],
      ['{"type":"command","id":7,"command":{"command":"format-disk"}}', 7, 'unknown_command'],
      ['{"type":"command","id":8,"command":"sync"}', 8, 'unknown_command'],
      ['{"type":"command","id":9,"command":{"command":"replay"}}', 9, 'invalid_command'],
    ];
    for (const [text] of bad) raw.ws.send(text);
    raw.ws.send(JSON.stringify({ type: 'command', id: 'ok', command: { command: 'sync' } }));

    await vi.waitFor(() => expect(raw.frames).toHaveLength(bad.length + 2));
    const results = raw.frames.slice(1);
    expect(results.slice(0, bad.length).map((f) => [f.id, (f.error as { code: string }).code])).toEqual(
      bad.map(([, id, code]) => [id, code]),
    );
    expect(results.every((f) => f.type === 'result')).toBe(true);
    expect(results.at(-1)).toEqual({ type: 'result', id: 'ok', ok: true, result: { ran: 'sync' } });
  });

  it('closes a connection that sends binary (1008) or over 1 MB (1009), and serves the next one', async () => {
    const { server } = await useControlServer();

    const binary = await useRawClient(server);
    binary.ws.send(Buffer.from([1, 2, 3]));
    expect((await binary.closed).code).toBe(1008);

    const huge = await useRawClient(server);
    huge.ws.send(JSON.stringify({ type: 'command', id: 1, command: { command: 'sync', pad: 'x'.repeat(1024 * 1024) } }));
    expect((await huge.closed).code).toBe(1009);

    const client = await useControlClient(server);
    expect(await client.send({ command: 'sync' })).toEqual({ ok: true });
    await vi.waitFor(() => expect(server.clientCount()).toBe(1));
  });
});

describe('heartbeat', () => {
  it('drops a client that stops answering pings and keeps the others', async () => {
    const { server } = await useControlServer({ heartbeatIntervalMs: 250 });
    const client = await useControlClient(server);
    const silent = await useRawClient(server, { autoPong: false });

    expect((await silent.closed).code).toBe(1006);
    await vi.waitFor(() => expect(server.clientCount()).toBe(1));
    expect(await client.send({ command: 'sync' })).toEqual({ ok: true });
  });

  it('lets the client notice a daemon that stopped pinging', async () => {
    const { server } = await useControlServer();
    const client = await useControlClient(server, { heartbeatTimeoutMs: 100 });
    const reason = await new Promise<string>((resolve) => client.onClose(resolve));
    expect(reason).toMatch(/heartbeat/);
    expect(await rejectionOf(client.send({ command: 'sync' }))).toMatchObject({ code: 'control_closed' });
  });
});
