import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { joinUrlPaths, normalizedPath, targetBasePath, upstreamPath } from '../../../src/proxy/upstream-path.js';

// http-proxy-3's own setupOutgoing (what forwarded our requests before): the path it would send must be ours.
const require = createRequire(import.meta.url);
const common = require('http-proxy-3/dist/lib/http-proxy/common.js') as {
  setupOutgoing(outgoing: object, options: { target: URL }, req: { url: string; method: string; headers: object; httpVersionMajor: number }): { path: string };
};
const libraryPath = (target: string, url: string): string =>
  common.setupOutgoing({}, { target: new URL(target) }, { url, method: 'GET', headers: {}, httpVersionMajor: 1 }).path;

const REQUEST_TARGETS = [
  '/api/median',
  '/api/median/',
  '/api/median?x=1&y=2',
  '/api/median?',
  '/api/median?a?b',
  '/',
  '',
  '?only=query',
  '//evil.example/x',
  '///triple',
  '/a//b',
  '/a/../b',
  '/a/./b',
  '/%2e%2e/etc/passwd',
  '/a/%2E./b',
  '/a\\b',
  '/a b',
  '/a"b<c>',
  '/a#frag',
  '/a?q=#frag',
  "/it's?it's",
  '/ünï?ç=ö',
  '/a%20b',
  '/a%zz',
  'http://other.example:8080/abs?x=1',
  '*',
  '/a;b=c,d:e@f!$&()*+',
  '/a?b=c;d:e@f!$&()*+/?',
  '/{x}|^`',
];

describe('the path a request is forwarded with', () => {
  it.each(REQUEST_TARGETS)('is http-proxy-3\'s for %j', (url) => {
    for (const target of ['http://127.0.0.1:3000', 'http://127.0.0.1:3000/', 'http://localhost:3000/base', 'http://[::1]:3000/base/?t=1']) {
      expect(upstreamPath(targetBasePath(new URL(target)), url)).toBe(libraryPath(target, url));
    }
  });

  it('keeps a plain path as it is, without parsing it', () => {
    expect(normalizedPath('/api/median?x=1')).toBe('/api/median?x=1');
    expect(normalizedPath('/a/../b')).toBe('/b');
  });

  it('joins segments with one slash and merges queries', () => {
    expect(joinUrlPaths('/base/', '/x?b=2')).toBe('/base/x?b=2');
    expect(joinUrlPaths('/base?a=1', '/x?b=2')).toBe('/base/x?a=1&b=2');
    expect(joinUrlPaths('base', 'x')).toBe('/base/x');
  });
});
