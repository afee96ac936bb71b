import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEnvFile } from '../../src/config/index.js';
import { DECIDERS, type DaemonEvent } from '../../src/events/index.js';
import { attackerResults, openInspector } from '../helpers/inspector-page.js';
import type { DemoRun } from '../helpers/use-demo.js';
import { rawRequest } from '../helpers/use-inspector-server.js';
import { useHttpServer } from '../helpers/use-http-server.js';

/** The demo's emulator, asked as `median-dev emulate … --env demo.env` asks it. */
async function emulatorOf(demo: DemoRun) {
  const env = await readEnvFile(join(demo.dataDir, 'demo.env'));
  const ask = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const response = await fetch(`${env.MEDIAN_API_URL}${path}`, {
      method,
      headers: { authorization: `Bearer ${env.MEDIAN_KEY}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json()) as Record<string, any>;
  };
  return {
    /** A high call held for a teammate, as the agent's would be. */
    hold: async (orderNumber: string) => String((await ask('POST', '/v1/emulator/approvals', { tool: 'refundOrder', input: { orderNumber, amount: 12 } })).approval.id),
    state: async (id: string) => String((await ask('GET', `/v1/emulator/approvals/${id}`)).approval.state),
  };
}

const held = (id: string) => `[data-testid="held"] tr[data-id="${id}"]`;

describe("the inspector's buttons for the emulator's held calls, in Chromium", () => {
  it('approves a held high call: it runs at the route, recorded under its id; Deny sends nothing', { timeout: 120_000 }, async () => {
    const { demo, page, pageErrors } = await openInspector({ intervalMs: 1_000 });
    const emulator = await emulatorOf(demo);
    const approved = await emulator.hold('A7001');
    const denied = await emulator.hold('A7002');

    // Marked in the header as the emulator's; its button opens the status page, where each has its buttons.
    await page.click('[data-testid="held-pill"]', { timeout: 20_000 });
    await page.waitForSelector(held(approved), { timeout: 20_000 });
    expect(await page.textContent('[data-testid="held"] h3')).toContain("Held by median-dev's emulator");
    expect(await page.textContent(held(approved))).toContain(`refundOrder ${approved} (risk high)`);

    await page.click(`${held(approved)} [data-testid="approve-held"]`);
    await expect.poll(() => page.textContent('[data-testid="flash"]'), { timeout: 30_000 }).toContain(`✓ refundOrder ${approved} approved by ${DECIDERS.inspector}: it ran at the route, HTTP 200`);
    const call = (await demo.cli.waitForEvent((e) => e.event === 'call' && e.toolCallId === approved, 30_000)) as Extract<DaemonEvent, { event: 'call' }>;
    expect(call).toMatchObject({ tool: 'refundOrder', status: 200, signature: 'valid' });
    expect(await emulator.state(approved)).toBe('approved');
    await page.waitForSelector(held(approved), { state: 'detached', timeout: 20_000 });

    await page.click(`${held(denied)} [data-testid="deny-held"]`);
    await expect.poll(() => page.textContent('[data-testid="flash"]'), { timeout: 30_000 }).toContain(`refundOrder ${denied} denied by ${DECIDERS.inspector}: nothing was sent`);
    expect(await emulator.state(denied)).toBe('denied');
    expect(demo.cli.events().some((e) => e.event === 'call' && e.toolCallId === denied)).toBe(false);
    expect(pageErrors).toEqual([]);
  });

  it('a page on another 127.0.0.1 port, and its server with a forged Origin, cannot approve', { timeout: 120_000 }, async () => {
    const { demo, page } = await openInspector({ intervalMs: 1_000 });
    const emulator = await emulatorOf(demo);
    const id = await emulator.hold('A7003');
    const inspector = demo.inspectorUrl;
    const cookies: Array<string | undefined> = [];
    const evil = await useHttpServer((req, res) => {
      cookies.push(req.headers.cookie);
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><script>
        window.results = (async () => {
          const out = {};
          try { out.cors = (await fetch('${inspector}/api/emulator-approvals/${id}/approve', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: '{}' })).status; } catch { out.cors = 'blocked'; }
          try { await fetch('${inspector}/api/emulator-approvals/${id}/approve', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{}' }); out.noCors = 'sent'; } catch { out.noCors = 'blocked'; }
          return out;
        })();
      </script>`);
    });
    const results = await attackerResults<{ cors: unknown; noCors: unknown }>(page, evil.url);
    expect(results.cors).toBe('blocked');

    // Its server, a non-browser client, with what the browser sent it and a forged Origin: no session, nothing decided.
    const port = Number(new URL(inspector).port);
    const forged = { cookie: cookies[0] ?? '', origin: inspector, 'content-type': 'application/json' };
    for (const decision of ['approve', 'deny']) {
      const answer = await rawRequest(port, { method: 'POST', path: `/api/emulator-approvals/${id}/${decision}`, headers: forged, body: '{}' });
      expect(answer.status, decision).toBe(401);
    }
    // Without the Origin at all (what a form or no-cors request from elsewhere carries): refused before the session is looked at.
    const noOrigin = await rawRequest(port, { method: 'POST', path: `/api/emulator-approvals/${id}/approve`, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(noOrigin.status).toBe(403);
    expect(await emulator.state(id)).toBe('pending');
    expect(demo.cli.events().some((e) => e.event === 'call' && e.toolCallId === id)).toBe(false);
  });
});
