import { describe, expect, it } from 'vitest';
import { eventsOf, isEvent, useE2eWorld } from '../../helpers/e2e-world.js';

describe('the edge-runtime recipe', () => {
  it('“navigation() found no pages” in the dev server’s output is said once, with the docs’ fix', async () => {
    const world = await useE2eWorld();
    // The example route with navigation() as on an edge runtime: no file system, so no pages.
    const cli = world.start({ env: { MEDIAN_EXAMPLE_NAVIGATION: 'edge' } });
    const said = await cli.waitForEvent((e) => isEvent(e, 'log', { level: 'warn' }) && String(e.message).includes('navigation() found no pages'), 30_000);
    expect(said.message).toContain('Median: navigation() found no pages, so the agent has no way to move anybody.');
    expect(said.message).toContain('Pass routes to navigation(), or run the route on Node 20.16 or later, or Bun.');
    // The route still loads and syncs, without goToPage.
    const synced = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
    expect((synced.tools as Array<{ name: string }>).map((t) => t.name)).not.toContain('goToPage');
    expect(eventsOf(cli, 'log').filter((e) => String(e.message).includes('navigation() found no pages'))).toHaveLength(1);
  });
});
