import { describe, expect, it } from 'vitest';
import { createLocaltunnelProvider, createFetchHealthProbe, recognizeLocaltunnelPage } from '../../../src/tunnel/index.js';
import { describeMiss } from '../../../src/tunnel/probe-once.js';
import { createOutageAdvisor, providerAlternatives } from '../../../src/daemon/outage-advice.js';
import { FAKES_DIR } from '../../helpers/fake-tunnel-programs.js';
import { useHttpServer } from '../../helpers/use-http-server.js';

/**
 * loca.lt's own pages, as its users observed them (localtunnel/localtunnel
 * #726, #699: "503 - Tunnel Unavailable" during outages, also for new
 * registrations; #598, #663: a 401 "Friendly Reminder" page asking browsers
 * for the tunnel password unless they send bypass-tunnel-reminder).
 */
const UNAVAILABLE = '<html><head><title>503 - Tunnel Unavailable</title></head><body><h1>503 - Tunnel Unavailable</h1></body></html>';
const REMINDER = '<html><body><h1>Friendly Reminder</h1><p>To access the website, please enter the tunnel password below.</p><p>Or send a bypass-tunnel-reminder request header.</p></body></html>';

describe('localtunnel’s own pages', () => {
  it('are recognised, and nothing else is', () => {
    expect(recognizeLocaltunnelPage(503, UNAVAILABLE)).toBe('tunnel-unavailable');
    expect(recognizeLocaltunnelPage(401, REMINDER)).toBe('reminder');
    expect(recognizeLocaltunnelPage(503, 'Service Unavailable')).toBeUndefined();
    expect(recognizeLocaltunnelPage(200, REMINDER)).toBeUndefined();
  });

  it('the probe names an outage page as such (the down message says it is the server’s)', async () => {
    const server = await useHttpServer((_req, res) => res.writeHead(503, { 'content-type': 'text/html' }).end(UNAVAILABLE));
    const probe = createFetchHealthProbe({ instanceId: 'inst_x' });
    const result = await probe(`${server.url}/__median-dev/health`, { signal: AbortSignal.timeout(5_000) });
    expect(result).toMatchObject({ kind: 'answered', status: 503, page: 'tunnel-unavailable' });
    expect(describeMiss(result)).toMatch(/503 Tunnel Unavailable \(an outage of the server/);
  });

  it('a registration refused with the outage page says so, with the other providers as the fix', async () => {
    const server = await useHttpServer((_req, res) => res.writeHead(503, { 'content-type': 'text/html' }).end(UNAVAILABLE));
    const provider = createLocaltunnelProvider({ host: server.url, openTimeoutMs: 5_000 });
    const error = await provider.open({ localPort: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'tunnel_registration_refused', hint: expect.stringContaining('--tunnel cloudflared') });
  });
});

describe('after repeated outages', () => {
  it('suggests once a provider this machine has, never without one', () => {
    let clock = 0;
    const alternatives = providerAlternatives({ PATH: FAKES_DIR }, false);
    expect(alternatives.map((a) => a.provider)).toEqual(['cloudflared']);
    const advisor = createOutageAdvisor({ alternatives, now: () => clock });
    expect(advisor.noteOutage()).toBeUndefined();
    clock += 11 * 60_000; // the first one is out of the window
    expect(advisor.noteOutage()).toBeUndefined();
    clock += 60_000;
    expect(advisor.noteOutage()).toBeUndefined();
    clock += 60_000;
    expect(advisor.noteOutage()).toContain('`median-dev start --tunnel cloudflared`');
    expect(advisor.noteOutage()).toBeUndefined();
    const none = createOutageAdvisor({ alternatives: [], now: () => clock });
    for (let i = 0; i < 5; i += 1) expect(none.noteOutage()).toBeUndefined();
  });
});
