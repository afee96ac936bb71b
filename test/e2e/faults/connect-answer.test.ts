import { describe, expect, it } from 'vitest';
import { isEvent, useE2eWorld } from '../../helpers/e2e-world.js';

/**
 * Issue #11 ("Also"): a route that answers the connect request 200 with a
 * body that is not a connect answer (another page or handler at that path)
 * gave "answered 200 … with an error". It is said for what it is.
 */
const NOT_THE_ROUTE = [
  process.execPath,
  '-e',
  "require('node:http').createServer((q, s) => { s.setHeader('content-type', 'application/json'); s.end('{\"ok\":true}'); }).listen(Number(process.env.PORT), '127.0.0.1');",
];

describe('median-dev start: a connect answered 200 by something that is not the route', () => {
  it('reports connect_answer_unexpected with a hint about --target and --route, not an error answer', { timeout: 60_000 }, async () => {
    const world = await useE2eWorld();
    const cli = world.start({ childCommand: NOT_THE_ROUTE });
    const error = await cli.waitForEvent((e) => isEvent(e, 'error', { code: 'connect_answer_unexpected' }), 40_000);
    expect(error.message).toMatch(/answered 200 to the connect request, but not with \{"connected": true\}/);
    expect(error.hint).toMatch(/--target and --route/);
    expect(cli.events().filter((e) => e.event === 'error' && /with an error/.test(String(e.hint)))).toEqual([]);
    await cli.stop();
  });
});
