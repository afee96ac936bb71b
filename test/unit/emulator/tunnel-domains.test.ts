import { describe, expect, it } from 'vitest';
import { parseTunnelDomain, tunnelDomainResolver, tunnelHostUrl } from '../../../src/emulator/index.js';
import { codeOf } from '../../../src/shared/errors.js';

describe('--tunnel-domain <domain>=<host>:<port>', () => {
  it.each([
    ['lt.example.test=127.0.0.1:8080', { domain: 'lt.example.test', host: '127.0.0.1', port: 8080 }],
    ['LT.Example.Test=localhost:80', { domain: 'lt.example.test', host: 'localhost', port: 80 }],
    ['*.lt.example.test=http://127.0.0.1:8080/', { domain: 'lt.example.test', host: '127.0.0.1', port: 8080 }],
    ['tunnels.test=[::1]:9000', { domain: 'tunnels.test', host: '::1', port: 9000 }],
  ])('%s', (text, expected) => {
    expect(parseTunnelDomain(text)).toEqual(expected);
  });

  it.each(['lt.example.test', 'lt.example.test=127.0.0.1', '=127.0.0.1:80', 'a b=127.0.0.1:80', 'x.test=127.0.0.1:0', 'x.test=127.0.0.1:65536', 'x.test=https://h:1'])(
    '%s is invalid_tunnel_domain, naming the form',
    (text) => {
      let error: unknown;
      try {
        parseTunnelDomain(text);
      } catch (caught) {
        error = caught;
      }
      expect(codeOf(error, 'internal_error')).toBe('invalid_tunnel_domain');
      expect((error as Error).message).toContain('<domain>=<host>:<port>');
    },
  );

  it('routes the domain and every name under it, the longest domain first, nothing else', () => {
    const resolve = tunnelDomainResolver([parseTunnelDomain('example.test=127.0.0.1:1000'), parseTunnelDomain('lt.example.test=127.0.0.1:2000')]);
    expect(resolve('abc.lt.example.test')).toEqual({ host: '127.0.0.1', port: 2000 });
    expect(resolve('LT.EXAMPLE.TEST.')).toEqual({ host: '127.0.0.1', port: 2000 });
    expect(resolve('www.example.test')).toEqual({ host: '127.0.0.1', port: 1000 });
    expect(resolve('notexample.test')).toBeUndefined();
    expect(resolve('abc.loca.lt')).toBeUndefined();
  });

  it('names the server as a --tunnel-host URL', () => {
    expect(tunnelHostUrl(parseTunnelDomain('t.test=[::1]:9000'))).toBe('http://[::1]:9000');
  });
});
