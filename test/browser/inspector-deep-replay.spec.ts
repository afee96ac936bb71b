import { describe, expect, it } from 'vitest';
import type { CallPage } from '../../src/events/inspector-api.js';
import { deepToolCallBody } from '../helpers/deep-call.js';
import { apiFromPage, openFirstCall, openInspector } from '../helpers/inspector-page.js';

/**
 * A call nested 200,000 deep, sent to the demo's proxy as the tunnel
 * forwards one from the internet (unsigned: the route answers 401). The
 * page cannot read its input: each of its replay buttons opens the dialog
 * with the refusal and its code, and nothing is sent (before, the editor
 * held `{}` and the page sent that as the input).
 */
describe('the browser inspector on a call too deep to read, in Chromium', () => {
  it('refuses every replay of it with replay_too_deep, on the page, and sends nothing', { timeout: 120_000 }, async () => {
    const { demo, page, pageErrors } = await openInspector({ intervalMs: 60_000 });
    const sent = await fetch(`${demo.proxyUrl}/api/median`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: deepToolCallBody('call_deep_page') });
    expect(sent.status).toBe(401);
    await openFirstCall(page, 'call_deep_page');

    for (const button of ['replay', 'replay-new-id', 'edit-replay']) {
      await page.click(`[data-testid="${button}"]`);
      await page.waitForSelector('[data-testid="replay-dialog"]:not([hidden])');
      await expect.poll(() => page.textContent('[data-testid="replay-refused"]'), { timeout: 10_000 }).toContain('[replay_too_deep]');
      expect(await page.textContent('[data-testid="replay-refused"]'), button).toContain('median-dev replay call_deep_page');
      expect(await page.isDisabled('[data-testid="replay-send"]'), button).toBe(true);
      expect(await page.inputValue('[data-testid="replay-input"]'), button).toBe('');
      await page.click('[data-testid="replay-dialog"] button.close');
      await page.waitForSelector('[data-testid="replay-dialog"]', { state: 'hidden' });
    }
    expect((await apiFromPage<CallPage>(page, `/api/calls?filter=${encodeURIComponent('is:replay')}`)).total).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
