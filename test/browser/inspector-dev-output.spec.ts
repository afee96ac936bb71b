import { describe, expect, it } from 'vitest';
import { openInspector } from '../helpers/inspector-page.js';

describe('the inspector\'s status page, in Chromium against the demo', () => {
  it('shows the dev server\'s last output lines and where the whole log is', async () => {
    const { page, pageErrors } = await openInspector();
    await page.click('[data-testid="tab-status"]');
    // The demo's dev server (the example route) says where it listens when it starts.
    await expect.poll(() => page.textContent('[data-testid="dev-output"]').catch(() => null), { timeout: 20_000 }).toContain('listening');
    expect(await page.textContent('[data-testid="status"]')).toContain('dev-server.log');
    expect(pageErrors).toEqual([]);
  });
});
