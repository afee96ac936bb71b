import { mkdir, rm, writeFile } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { OTHER_KEY, ROUTE, useDispatch } from './dispatch-harness.js';

const ORIGIN = 'https://calm-otter.loca.lt';
const URL_1 = `${ORIGIN}${ROUTE}`;
const ORIGIN_2 = 'https://brave-lynx.loca.lt';
const URL_2 = `${ORIGIN_2}${ROUTE}`;

describe('the dispatch: a new public URL', () => {
  it('heals in the SPEC §2.1 order: env file, then the dev server, then its route answers, then the endpoint', async () => {
    const world = await useDispatch();

    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });

    expect(world.steps).toEqual([
      // The dev server restarts only once the env file already says the new URL.
      `child.restartFor ${URL_1} (env file says ${URL_1})`,
      'child.waitUntilAnswering',
      'route answers',
      `endpoint.ensure ${URL_1}`,
    ]);
    expect(world.events).toContainEqual({ event: 'tools-url', url: URL_1, envFile: world.envFile });
    expect(world.events.filter((e) => e.event === 'error')).toEqual([]);
  });

  it('runs a second URL change only after the first one finished', async () => {
    const world = await useDispatch();
    const held = world.holdRoute();

    const first = world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    const second = world.dispatch({ type: 'tunnel.opened', origin: ORIGIN_2, isHostnameChange: true });
    await vi.waitFor(() => expect(world.steps).toContain('child.waitUntilAnswering'));
    expect(world.steps.some((s) => s.includes(URL_2))).toBe(false);
    held.release();
    await Promise.all([first, second]);

    expect(world.steps.map((s) => s.split(' (')[0])).toEqual([
      `child.restartFor ${URL_1}`,
      'child.waitUntilAnswering',
      'route answers',
      `endpoint.ensure ${URL_1}`,
      `child.restartFor ${URL_2}`,
      'child.waitUntilAnswering',
      'route answers',
      `endpoint.ensure ${URL_2}`,
    ]);
    expect(await world.readEnvFile()).toContain(`MEDIAN_TOOLS_URL=${URL_2}`);
  });

  it('waits for a route that answers late before it touches the endpoint', async () => {
    const world = await useDispatch();
    const held = world.holdRoute();

    const healing = world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    await vi.waitFor(() => expect(world.steps).toContain('child.waitUntilAnswering'));
    // The dev server is still compiling: Median must not be asked to sync a route that does not answer.
    await new Promise((resolve) => setImmediate(resolve));
    expect(world.steps.at(-1)).toBe('child.waitUntilAnswering');
    held.release();
    await healing;

    expect(world.steps.slice(-2)).toEqual(['route answers', `endpoint.ensure ${URL_1}`]);
  });

  it('without a key, writes the URL and restarts the dev server, and says how to connect instead of calling Median', async () => {
    const world = await useDispatch({ key: '' });

    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });

    expect(world.steps.some((s) => s.startsWith('endpoint.'))).toBe(false);
    expect(world.steps[0]).toContain('child.restartFor');
    expect(world.events).toContainEqual(expect.objectContaining({ event: 'error', code: 'missing_key' }));
  });

  it('a lost tunnel changes nothing by itself: the next open heals', async () => {
    const world = await useDispatch();
    await world.dispatch({ type: 'tunnel.lost', reason: 'sockets-gone' });
    expect(world.steps).toEqual([]);
  });
});

describe('the dispatch: the endpoint retry', () => {
  it('fixes the endpoint again once a dev server that did not answer answers (route.answering)', async () => {
    let isUp = false;
    let hits = 0;
    const route = await useHttpServer((req, res) => {
      hits += 1;
      if (!isUp) {
        req.socket.destroy(); // not answering: the connection dies
        return;
      }
      res.statusCode = 401;
      res.end();
    });
    const world = await useDispatch({ routeUrl: `${route.url}${ROUTE}` });
    // Median could not reach the route: the endpoint keeper found no endpoint to fix.
    world.ensureAnswers.push(undefined);

    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    expect(world.steps.filter((s) => s.startsWith('endpoint.ensure'))).toHaveLength(1);
    // The retry has looked and found nobody (its first look, then one after a pause): now the dev server comes up.
    await vi.waitFor(() => expect(hits).toBeGreaterThanOrEqual(2));
    isUp = true;

    await vi.waitFor(() => expect(world.steps.filter((s) => s.startsWith('endpoint.ensure'))).toHaveLength(2));
    expect(world.events).toContainEqual({ event: 'log', level: 'info', message: 'The dev server answers again: fixing the endpoint.' });
  });

  it('ignores a route.answering for a URL no longer in use', async () => {
    const world = await useDispatch();
    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN_2, isHostnameChange: false });
    world.steps.length = 0;

    await world.dispatch({ type: 'route.answering', toolsUrl: URL_1 });
    expect(world.steps).toEqual([]);
    await world.dispatch({ type: 'route.answering', toolsUrl: URL_2 });
    expect(world.steps).toEqual([`endpoint.ensure ${URL_2}`]);
  });
});

describe('the dispatch: key rotation', () => {
  it('a new MEDIAN_KEY in the env file: signers and maskers follow, the dev server restarts and answers, then the endpoint reconnects', async () => {
    const world = await useDispatch();
    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    world.steps.length = 0;

    await writeFile(world.envFile, `MEDIAN_KEY=${OTHER_KEY}\nMEDIAN_TOOLS_URL=${URL_1}\n`);
    await world.dispatch({ type: 'envFile.changed' });

    // The re-read reports envFile.keyChanged; its reaction runs right after on the queue.
    await vi.waitFor(() => expect(world.steps).toContain(`endpoint.reconnect ${URL_1}`));
    expect(world.followedKeys).toEqual([OTHER_KEY]);
    // The dev server follows the key from the file it came from (restarted unless it reloads that file).
    expect(world.steps).toEqual(['child.followKey .env.local', 'child.waitUntilAnswering', 'route answers', `endpoint.reconnect ${URL_1}`]);
    expect(world.events).toContainEqual(expect.objectContaining({ event: 'log', level: 'info', message: expect.stringContaining('MEDIAN_KEY changed') }));
  });

  it('an env file edit that keeps the key changes nothing', async () => {
    const world = await useDispatch();
    await writeFile(world.envFile, `# a comment\nMEDIAN_KEY=${(await world.readEnvFile()).split('=')[1]!.trim()}\n`);
    await world.dispatch({ type: 'envFile.changed' });
    // A key change would be reported while the re-read ran, and its reaction queued then: a command queued
    // now runs after it.
    await world.dispatch({ type: 'command.received', command: { command: 'restart-child' } });
    expect(world.followedKeys).toEqual([]);
    expect(world.steps).toEqual(['child.restart']);
  });
});

describe('the dispatch: the dev server and watched files', () => {
  it('starts the dev server at the remembered URL when the daemon has started', async () => {
    const world = await useDispatch();
    await world.dispatch({ type: 'daemon.started' });
    expect(world.steps).toEqual(['child.startAtRememberedUrl']);
  });

  it('a dev server that exited stays down: no restart', async () => {
    const world = await useDispatch();
    await world.dispatch({ type: 'child.exited', code: 1, signal: null });
    expect(world.steps).toEqual([]);
  });

  it('syncs when watched files change, once there is a URL', async () => {
    const world = await useDispatch();
    await world.dispatch({ type: 'files.changed', count: 2 });
    expect(world.steps).toEqual([]);

    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    world.steps.length = 0;
    await world.dispatch({ type: 'files.changed', count: 2 });
    expect(world.steps).toEqual([`endpoint.sync ${URL_1}`]);
    expect(world.events).toContainEqual({ event: 'log', level: 'info', message: '2 watched files changed: syncing.' });
  });
});

describe('the dispatch: control commands', () => {
  it('a sync arriving mid-heal runs after the heal, on the new URL; a replay does not wait', async () => {
    const world = await useDispatch();
    const held = world.holdRoute();
    const healing = world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    await vi.waitFor(() => expect(world.steps).toContain('child.waitUntilAnswering'));

    const sync = world.dispatch({ type: 'command.received', command: { command: 'sync' } });
    const replay = await world.dispatch({ type: 'command.received', command: { command: 'replay', toolCallId: 'tc_1' } });
    expect(replay).toEqual({ replayed: true });
    expect(world.steps).not.toContain(`endpoint.sync ${URL_1}`);

    held.release();
    await healing;
    expect(await sync).toEqual({ synced: true });
    expect(world.steps.slice(-3)).toEqual(['route answers', `endpoint.ensure ${URL_1}`, `endpoint.sync ${URL_1}`]);
    expect(world.steps.indexOf('replay tc_1')).toBeLessThan(world.steps.indexOf('route answers'));
  });

  it('answers each command, and a sync before any URL with no_tools_url', async () => {
    const world = await useDispatch();
    await expect(world.dispatch({ type: 'command.received', command: { command: 'sync' } })).rejects.toMatchObject({ code: 'no_tools_url' });
    expect(await world.dispatch({ type: 'command.received', command: { command: 'restart-child' } })).toEqual({ restarted: true });
    expect(await world.dispatch({ type: 'command.received', command: { command: 'diagnostics' } })).toEqual({ status: 200 });
    expect(await world.dispatch({ type: 'command.received', command: { command: 'simulate-hostname-change' } })).toEqual({ requested: true });
    expect(await world.dispatch({ type: 'command.received', command: { command: 'clear' } })).toEqual({ cleared: true });
    expect(await world.dispatch({ type: 'command.received', command: { command: 'inspector-link' } })).toMatchObject({ link: expect.stringContaining('/session?token=') });
    expect(world.steps).toEqual(['child.restart', 'simulate-hostname-change', 'clear', 'inspector-link']);
  });

  it('refuses a command it does not know with unknown_command', async () => {
    const world = await useDispatch();
    const command = { command: 'dance' } as unknown as { command: 'clear' };
    await expect(world.dispatch({ type: 'command.received', command })).rejects.toMatchObject({ code: 'unknown_command' });
  });
});

describe('the dispatch: shutdown', () => {
  it('during a heal: aborts the wait, lets the running step end, drops what was queued, closes parts in order, reports no error', async () => {
    const world = await useDispatch();
    world.holdRoute();
    const healing = world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    await vi.waitFor(() => expect(world.steps).toContain('child.waitUntilAnswering'));
    const queuedHeal = world.dispatch({ type: 'tunnel.opened', origin: ORIGIN_2, isHostnameChange: true });

    await world.dispatch({ type: 'shutdown.requested' });
    await Promise.all([healing, queuedHeal]);

    expect(world.signal.aborted).toBe(true);
    expect(world.closeOrder).toEqual(['tunnel', 'watcher', 'queue', 'child', 'inspector', 'control', 'proxy', 'recorder']);
    expect(world.steps.some((s) => s.includes(URL_2))).toBe(false);
    expect(world.events.filter((e) => e.event === 'error')).toEqual([]);
    // Idempotent: a second request closes nothing twice.
    await world.dispatch({ type: 'shutdown.requested' });
    expect(world.closeOrder).toHaveLength(8);
  });

  it('a command after shutdown is refused with daemon_closed', async () => {
    const world = await useDispatch();
    await world.dispatch({ type: 'shutdown.requested' });
    await expect(world.dispatch({ type: 'command.received', command: { command: 'restart-child' } })).rejects.toMatchObject({ code: 'daemon_closed' });
  });
});

describe('the dispatch: a failing reaction', () => {
  it('becomes an error event with its code; the next fact is handled as usual', async () => {
    const world = await useDispatch();
    // An env file that cannot be read (a folder in its place): the re-read fails with env_file_not_regular.
    await rm(world.envFile);
    await mkdir(world.envFile);
    await world.dispatch({ type: 'envFile.changed' });
    expect(world.events.filter((e) => e.event === 'error')).toEqual([expect.objectContaining({ code: 'env_file_not_regular' })]);

    await rm(world.envFile, { recursive: true });
    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    expect(world.steps.at(-1)).toBe(`endpoint.ensure ${URL_1}`);
  });
});

describe('the dispatch: the production guard before every connect', () => {
  const STOP = {
    kind: 'stop' as const,
    production: [],
    code: 'production_org' as const,
    message: 'This MEDIAN_KEY’s organisation already has a production (or a preview) endpoint: https://acme.com/api/median.',
    hint: 'Use a key from a separate development organisation.',
  };

  it('a new URL in a production organisation: the env file and the dev server follow, the endpoint is not connected, the reason is an error event', async () => {
    const world = await useDispatch();
    world.guardAnswers.push(STOP);
    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    // The guard is asked while the dev server starts (Median's list does not wait for it), and decides once it answers.
    expect(world.steps).toEqual([`child.restartFor ${URL_1} (env file says ${URL_1})`, 'endpoint.productionGuard stop', 'child.waitUntilAnswering', 'route answers']);
    expect(world.steps.filter((step) => step.startsWith('endpoint.ensure'))).toEqual([]);
    expect(world.events).toContainEqual({ event: 'error', code: 'production_org', message: STOP.message, hint: STOP.hint });
  });

  it('a sync with no endpoint at Median connects only through the guard', async () => {
    const world = await useDispatch();
    world.guardAnswers.push(STOP);
    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    world.steps.length = 0;
    world.syncsWithoutEndpoint.count = 1;
    world.guardAnswers.push(STOP);
    await world.dispatch({ type: 'command.received', command: { command: 'sync' } });
    expect(world.steps).toEqual([`endpoint.sync ${URL_1}`, 'endpoint.productionGuard stop']);
    // Allowed (another key's organisation, or the flag): the same sync connects.
    world.steps.length = 0;
    world.syncsWithoutEndpoint.count = 1;
    await world.dispatch({ type: 'command.received', command: { command: 'sync' } });
    expect(world.steps).toEqual([`endpoint.sync ${URL_1}`, `endpoint.ensure ${URL_1}`]);
  });

  it('a key rotation asks again: the new key’s organisation may serve production', async () => {
    const world = await useDispatch();
    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    world.steps.length = 0;
    world.guardAnswers.push(STOP);
    await writeFile(world.envFile, `MEDIAN_KEY=${OTHER_KEY}\nMEDIAN_TOOLS_URL=${URL_1}\n`);
    await world.dispatch({ type: 'envFile.changed' });
    await vi.waitFor(() => expect(world.steps).toContain('endpoint.productionGuard stop'));
    expect(world.steps).not.toContain(`endpoint.reconnect ${URL_1}`);
    expect(world.events).toContainEqual(expect.objectContaining({ event: 'error', code: 'production_org' }));
  });
});
