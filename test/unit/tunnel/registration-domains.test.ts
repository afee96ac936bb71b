import { describe, expect, it } from 'vitest';
import { registrationDomains, registrationUrlProblem } from '../../../src/tunnel/index.js';

/** Which public URLs a tunnel server may hand out (issue 18, item 1). */
describe('a registration url', () => {
  it.each([
    ['https://localtunnel.me', 'https://quiet-fox.loca.lt', true],
    ['https://localtunnel.me', 'https://a.localtunnel.me', true],
    ['https://localtunnel.me', 'https://acme.example', false],
    ['https://localtunnel.me', 'https://loca.lt', false],
    ['https://localtunnel.me', 'https://evil-loca.lt', false],
    ['https://localtunnel.me', 'http://quiet-fox.loca.lt', false],
    ['https://localtunnel.me', 'https://user:pw@quiet-fox.loca.lt', false],
    ['https://tunnels.example.com', 'https://abc.tunnels.example.com:8443', true],
    ['https://tunnels.example.com', 'https://abc.example.com', false],
    ['http://127.0.0.1:8080', 'https://lt-1.lt.median.test', true],
    ['http://127.0.0.1:8080', 'http://lt-1.lt.example.test:8080', true],
    ['http://localhost:8080', 'https://lt-1.lt.median.test', true],
    ['http://127.0.0.1:8080', 'https://acme.example', false],
    ['http://10.0.0.5:8080', 'https://lt-1.lt.median.test', false],
  ])('from %s: %s allowed = %s', (host, url, isAllowed) => {
    expect(registrationUrlProblem(new URL(url), new URL(host)) === undefined).toBe(isAllowed);
  });

  it('a domain the server was configured with (--tunnel-domain) counts too', () => {
    const host = new URL('http://127.0.0.1:8080');
    expect(registrationUrlProblem(new URL('https://lt-1.tunnels.corp.example'), host)).toBeDefined();
    expect(registrationUrlProblem(new URL('https://lt-1.tunnels.corp.example'), host, ['tunnels.corp.example'])).toBeUndefined();
    expect(registrationUrlProblem(new URL('https://corp.example'), host, ['tunnels.corp.example'])).toBeDefined();
  });

  it('a server named by IP address off this machine has no domain', () => {
    expect(registrationDomains(new URL('http://10.0.0.5:8080'))).toEqual([]);
  });
});
