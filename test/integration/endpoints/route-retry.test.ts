import { describe, expect, it, vi } from 'vitest';
import { createRouteRetry, isWaitingForRoute } from '../../../src/endpoints/index.js';
import type { DaemonFact, NewDaemonEvent } from '../../../src/events/index.js';
import type { Endpoint } from '../../../src/median/index.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const URL_1 = 'https://a.loca.lt/api/median';

/** A real dev server on 127.0.0.1 that kills connections until it is "up". */
async function useFlakyRoute() {
  const state = { isUp: false, hits: 0 };
  const server = await useHttpServer((req, res) => {
    state.hits += 1;
    if (!state.isUp) {
      req.socket.destroy();
      return;
    }
    res.statusCode = 401;
    res.end();
  });
  return { state, routeUrl: `${server.url}/api/median` };
}

function useRetry(routeUrl: string, isCurrent: (url: string) => boolean = () => true) {
  const abort = new AbortController();
  useTeardown(abort, (a) => a.abort());
  const facts: DaemonFact[] = [];
  const events: NewDaemonEvent[] = [];
  const retry = createRouteRetry({ routeUrl, isCurrent, report: (f) => facts.push(f), emit: (e) => events.push(e), firstWaitMs: 20, maxWaitMs: 40, signal: abort.signal });
  return { retry, facts, events, abort };
}

describe('the endpoint retry (route.answering)', () => {
  it('reports route.answering once a dev server that did not answer answers, and only once for two watches', async () => {
    const route = await useFlakyRoute();
    const { retry, facts, events } = useRetry(route.routeUrl);
    retry.watch(URL_1);
    retry.watch(URL_1);
    await vi.waitFor(() => expect(route.state.hits).toBeGreaterThanOrEqual(2));
    expect(facts).toEqual([]);

    route.state.isUp = true;
    await vi.waitFor(() => expect(facts).toEqual([{ type: 'route.answering', toolsUrl: URL_1 }]));
    expect(events).toEqual([{ event: 'log', level: 'info', message: 'The dev server answers again: fixing the endpoint.' }]);
  });

  it('does not watch a route that answers already (the failure was something else)', async () => {
    const route = await useFlakyRoute();
    route.state.isUp = true;
    const { retry, facts } = useRetry(route.routeUrl);
    // The watch ends after its one look: no timer is left for another.
    await retry.watch(URL_1);
    expect(route.state.hits).toBe(1);
    expect(facts).toEqual([]);
  });

  it('ends the watch when another URL is in use, or on abort', async () => {
    const route = await useFlakyRoute();
    let current = URL_1;
    const { retry, facts, abort } = useRetry(route.routeUrl, (url) => url === current);
    const watched = retry.watch(URL_1);
    await vi.waitFor(() => expect(route.state.hits).toBeGreaterThanOrEqual(1));
    const hitsBefore = route.state.hits;
    current = 'https://b.loca.lt/api/median';
    // After its pause the watch sees the URL changed and ends, without looking again: nothing reported.
    await watched;
    expect(route.state.hits).toBeLessThanOrEqual(hitsBefore + 1); // a look already under way when the URL changed
    expect(facts).toEqual([]);

    // A new watch after an abort ends at once, nothing reported.
    abort.abort();
    await retry.watch(URL_1);
    expect(facts).toEqual([]);
  });
});

describe('isWaitingForRoute', () => {
  const endpoint = (status: Endpoint['status'], error: string | null): Endpoint => ({ id: 'ep', url: URL_1, status, error, tools: [], createdAt: '', syncedAt: null });
  it.each([
    ['no endpoint', undefined, true],
    ['synced', endpoint('synced', null), false],
    ['failed: the route did not answer', endpoint('failed', 'The route did not answer within 10 s.'), true],
    ['failed: 502', endpoint('failed', 'The route answered 502 Bad Gateway.'), true],
    ['failed: something else', endpoint('failed', 'The tool name "x" already comes from y.'), false],
  ])('%s', (_name, value, expected) => {
    expect(isWaitingForRoute(value)).toBe(expected);
  });
});
