import { writeFile } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import type { NewDaemonEvent } from '../../../src/events/index.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { KEY, ROUTE, useDispatch } from './dispatch-harness.js';

const ORIGIN = 'https://calm-otter.loca.lt';
const URL_1 = `${ORIGIN}${ROUTE}`;
const ORIGIN_2 = 'https://brave-lynx.loca.lt';
const URL_2 = `${ORIGIN_2}${ROUTE}`;

/** The heal's states and the tools-URL news, in the order they were emitted. */
function healTrail(events: NewDaemonEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.event === 'heal') return [(e.state === 'done' ? `done ${e.url} synced=${String(e.synced)}` : `${e.state} ${e.url}`) + (e.resumed ? ' resumed' : '')];
    if (e.event === 'tools-url') return [`tools-url ${e.url}`];
    if (e.event === 'endpoint') return [`endpoint ${e.action}`];
    return [];
  });
}

const lastHeal = (events: NewDaemonEvent[]) => events.filter((e) => e.event === 'heal').at(-1);

describe('the dispatch: the in-between states of a heal', () => {
  it('says changing, connecting, syncing, then done, each with the target URL, as each step begins', async () => {
    const world = await useDispatch();
    const held = world.holdRoute();

    const healing = world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    await vi.waitFor(() => expect(world.steps).toContain('child.waitUntilAnswering'));
    // The dev server restarted and its route does not answer yet: connecting, not syncing.
    expect(lastHeal(world.events)).toEqual({ event: 'heal', state: 'connecting', url: URL_1 });
    expect(world.steps.some((s) => s.startsWith('endpoint.'))).toBe(false);
    held.release();
    await healing;

    expect(healTrail(world.events)).toEqual([`changing ${URL_1}`, `tools-url ${URL_1}`, `connecting ${URL_1}`, `syncing ${URL_1}`, `done ${URL_1} synced=true`]);
    const done = lastHeal(world.events) as Extract<NewDaemonEvent, { event: 'heal' }>;
    expect(done.durationMs).toEqual(expect.any(Number));
    expect(done.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('a hostname change heals toward the new URL: every state names it', async () => {
    const world = await useDispatch();
    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    const mark = world.events.length;

    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN_2, isHostnameChange: true });

    expect(healTrail(world.events.slice(mark))).toEqual([`changing ${URL_2}`, `tools-url ${URL_2}`, `connecting ${URL_2}`, `syncing ${URL_2}`, `done ${URL_2} synced=true`]);
    expect(world.steps.filter((s) => s.startsWith('child.restartFor')).map((s) => s.split(' (')[0])).toEqual([`child.restartFor ${URL_1}`, `child.restartFor ${URL_2}`]);
  });

  it('a reopen under the same URL changes nothing: no `changing`, only connecting and syncing', async () => {
    const world = await useDispatch();
    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    const mark = world.events.length;

    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });

    expect(healTrail(world.events.slice(mark))).toEqual([`connecting ${URL_1}`, `syncing ${URL_1}`, `done ${URL_1} synced=true`]);
  });

  it('ends with synced=false when the sync failed, when no key is set, and when the production guard stops it', async () => {
    const failed = await useDispatch();
    failed.ensureAnswers.push({ id: 'ep_1', url: URL_1, status: 'failed', error: 'boom', tools: [], createdAt: '2026-01-01T00:00:00.000Z', syncedAt: null });
    await failed.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    expect(healTrail(failed.events).at(-1)).toBe(`done ${URL_1} synced=false`);

    const keyless = await useDispatch({ key: '' });
    await keyless.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    // Nothing is synced without a key: no `syncing` state.
    expect(healTrail(keyless.events)).toEqual([`changing ${URL_1}`, `tools-url ${URL_1}`, `connecting ${URL_1}`, `done ${URL_1} synced=false`]);

    const guarded = await useDispatch();
    guarded.guardAnswers.push({ kind: 'stop', code: 'production_org', message: 'production', hint: 'allow it', production: [] });
    await guarded.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    expect(healTrail(guarded.events)).toEqual([`changing ${URL_1}`, `tools-url ${URL_1}`, `connecting ${URL_1}`, `done ${URL_1} synced=false`]);
  });
});

describe('the dispatch: a heal left unsynced because the dev server did not answer', () => {
  it('resumes once the route answers: syncing, then done synced, timed from the heal\'s first start', async () => {
    let isUp = false;
    let looks = 0;
    const route = await useHttpServer((req, res) => {
      looks += 1;
      if (!isUp) return void req.socket.destroy(); // not answering: the connection dies
      res.statusCode = 401;
      res.end();
    });
    const world = await useDispatch({ routeUrl: `${route.url}${ROUTE}` });
    // Median could not reach the route: the endpoint keeper found no endpoint to fix.
    world.ensureAnswers.push(undefined);

    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    const healedAt = Date.now();
    expect(healTrail(world.events)).toEqual([`changing ${URL_1}`, `tools-url ${URL_1}`, `connecting ${URL_1}`, `syncing ${URL_1}`, `done ${URL_1} synced=false`]);
    const mark = world.events.length;
    // The route retry looked (at once, then after a pause) and found nobody: now the dev server answers.
    await vi.waitFor(() => expect(looks).toBeGreaterThanOrEqual(2));
    isUp = true;
    const upAt = Date.now();

    await vi.waitFor(() => expect(lastHeal(world.events)).toMatchObject({ state: 'done', resumed: true }));
    expect(healTrail(world.events.slice(mark))).toEqual([`syncing ${URL_1} resumed`, `done ${URL_1} synced=true resumed`]);
    expect(world.steps.filter((s) => s.startsWith('endpoint.ensure'))).toEqual([`endpoint.ensure ${URL_1}`, `endpoint.ensure ${URL_1}`]);
    const done = lastHeal(world.events) as Extract<NewDaemonEvent, { event: 'heal' }>;
    // From the first `changing`, not from the resume: at least the time the dev server was away.
    expect(done.durationMs).toBeGreaterThanOrEqual(upAt - healedAt);
  });

  it('a newer heal replaces the unsynced one: a later route.answering resumes nothing and says no heal state', async () => {
    const world = await useDispatch();
    world.ensureAnswers.push(undefined);
    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    expect(healTrail(world.events).at(-1)).toBe(`done ${URL_1} synced=false`);
    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN_2, isHostnameChange: true });
    expect(healTrail(world.events).at(-1)).toBe(`done ${URL_2} synced=true`);
    const mark = world.events.length;
    world.steps.length = 0;

    await world.dispatch({ type: 'route.answering', toolsUrl: URL_1 });
    await world.dispatch({ type: 'route.answering', toolsUrl: URL_2 });

    expect(world.steps).toEqual([`endpoint.ensure ${URL_2}`]);
    expect(healTrail(world.events.slice(mark))).toEqual([]);
  });
});

describe('the dispatch: no tunnel yet', () => {
  it('starts the dev server with the env file as it is, says so once, and applies the URL order once the tunnel opens', async () => {
    const world = await useDispatch({ isChildStarted: false });

    await world.dispatch({ type: 'daemon.started' });
    await world.dispatch({ type: 'tunnel.openFailed', isFinal: false });
    await world.dispatch({ type: 'tunnel.openFailed', isFinal: false });

    expect(world.steps).toEqual(['child.startAtRememberedUrl', 'child.startLocally (env file says none)']);
    const said = world.events.filter((e) => e.event === 'local-only');
    expect(said).toEqual([{ event: 'local-only', toolsUrl: null, message: expect.stringContaining('keeps opening the tunnel') }]);

    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    expect(world.steps.slice(2)).toEqual([`child.restartFor ${URL_1} (env file says ${URL_1})`, 'child.waitUntilAnswering', 'route answers', `endpoint.ensure ${URL_1}`]);
  });

  it('does not restart a dev server whose env file already had the URL the tunnel opens with', async () => {
    const world = await useDispatch({ isChildStarted: false });
    await writeFile(world.envFile, `MEDIAN_KEY=${KEY}\nMEDIAN_TOOLS_URL=${URL_1}\n`);

    await world.dispatch({ type: 'tunnel.openFailed', isFinal: false });
    expect(world.events.filter((e) => e.event === 'local-only')).toEqual([expect.objectContaining({ toolsUrl: URL_1 })]);
    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });

    expect(world.steps).toEqual([`child.startLocally (env file says ${URL_1})`, 'child.waitUntilAnswering', 'route answers', `endpoint.ensure ${URL_1}`]);
    expect(world.events).toContainEqual({ event: 'tools-url', url: URL_1, envFile: world.envFile });
  });

  it('a tunnel that will never open still leaves the dev server running, and says the tunnel will not follow', async () => {
    const world = await useDispatch({ isChildStarted: false });
    await world.dispatch({ type: 'tunnel.openFailed', isFinal: true });
    expect(world.steps).toEqual(['child.startLocally (env file says none)']);
    expect(world.events.filter((e) => e.event === 'local-only')).toEqual([expect.objectContaining({ message: expect.stringContaining('will not open') })]);
  });

  it('after the tunnel was open once, a failed open changes nothing', async () => {
    const world = await useDispatch({ isChildStarted: false });
    await world.dispatch({ type: 'tunnel.opened', origin: ORIGIN, isHostnameChange: false });
    const steps = world.steps.length;
    await world.dispatch({ type: 'tunnel.openFailed', isFinal: false });
    expect(world.steps.length).toBe(steps);
    expect(world.events.filter((e) => e.event === 'local-only')).toEqual([]);
  });
});
