import { describe, expect, it } from 'vitest';
import { localPortOf, ngrokError, quickTunnelHostname, readAgentEndpoints, readCloudflaredLine, readSshLine, readyConnections } from '../../../src/tunnel/index.js';

describe('cloudflared lines', () => {
  it.each([
    ['2025-01-01T00:00:00Z INF |  https://seasonal-deck-organisms-sf.trycloudflare.com                                      |', { kind: 'url', url: 'https://seasonal-deck-organisms-sf.trycloudflare.com' }],
    ['[INFO] |    https://offering-towers-satin-carol.trycloudflare.com  |', { kind: 'url', url: 'https://offering-towers-satin-carol.trycloudflare.com' }],
    ['2025-01-01T00:00:00Z INF |  Your quick Tunnel has been created! Visit it at (it may take some time to be reachable):  |', { kind: 'other' }],
    ['2025-01-01T00:00:01Z INF Registered tunnel connection connIndex=0 connection=x event=0 ip=198.41.200.193 location=ams02 protocol=quic', { kind: 'registered' }],
    ['failed to request quick Tunnel: Error unmarshaling QuickTunnel response: error code: 1015 status_code="429 Too Many Requests"', { kind: 'rate-limited' }],
    ['2025-01-01T00:00:00Z INF Starting metrics server on 127.0.0.1:41853/metrics', { kind: 'metrics', origin: 'http://127.0.0.1:41853' }],
    ['{"level":"info","time":"2025-01-01T00:00:00Z","message":"Starting metrics server on [::1]:20241/metrics"}', { kind: 'metrics', origin: 'http://[::1]:20241' }],
    ['2025-01-01T00:00:00Z INF Starting metrics server on 192.168.1.5:41853/metrics', { kind: 'other' }],
    ['2025-01-01T00:00:00Z INF Starting metrics server on 127.0.0.1:0/metrics', { kind: 'other' }],
    ['failed to request quick Tunnel: Post "https://api.trycloudflare.com/tunnel": dial tcp: lookup api.trycloudflare.com: no such host', { kind: 'failed' }],
  ])('%s', (line, expected) => {
    expect(readCloudflaredLine(line)).toMatchObject(expected);
  });

  it('reads the metrics server', () => {
    expect(quickTunnelHostname({ hostname: 'A-b.trycloudflare.com' })).toBe('a-b.trycloudflare.com');
    expect(quickTunnelHostname({ hostname: '' })).toBeUndefined();
    expect(quickTunnelHostname(undefined)).toBeUndefined();
    expect(readyConnections(200, { status: 200, readyConnections: 4 })).toBe(4);
    expect(readyConnections(503, { status: 503, readyConnections: 0 })).toBe(0);
    expect(readyConnections(200, { readyConnections: '4' })).toBe(0);
  });
});

describe('ssh tunnel servers’ lines', () => {
  it.each([
    ['3a5b7c9d1e2f.lhr.life tunneled with tls termination, https://3a5b7c9d1e2f.lhr.life', { kind: 'url', url: 'https://3a5b7c9d1e2f.lhr.life' }],
    ['{"event":"tcpip-forward","address":"3a5b7c9d1e2f.lhr.life","listen_port":80}', { kind: 'url', url: 'https://3a5b7c9d1e2f.lhr.life' }],
    ['Forwarding HTTP traffic from https://abc123.serveo.net', { kind: 'url', url: 'https://abc123.serveo.net' }],
    ['   https://rnxyz-1-2-3-4.a.free.pinggy.link   ', { kind: 'url', url: 'https://rnxyz-1-2-3-4.a.free.pinggy.link' }],
    ['To set up and manage custom domains go to https://admin.localhost.run/', { kind: 'other' }],
    ['https://localhost.run/docs/forever-free/', { kind: 'other' }],
    ['https://admin.localhost.run/', { kind: 'other' }],
    ['Host key verification failed.', { kind: 'host-key-unknown' }],
    ['nokey@127.0.0.1: Permission denied (publickey).', { kind: 'auth-failed' }],
    ['Warning: remote port forwarding failed for listen port 80', { kind: 'forward-refused' }],
  ])('%s', (line, expected) => {
    expect(readSshLine(line)).toEqual(expected);
  });
});

describe('the ngrok agent API', () => {
  it('reads both shapes, and where each endpoint forwards', () => {
    expect(readAgentEndpoints({ endpoints: [{ url: 'https://a.ngrok-free.dev', upstream: { url: 'http://localhost:4141' } }] })).toEqual([
      { url: 'https://a.ngrok-free.dev', upstream: 'http://localhost:4141', upstreamPort: 4141 },
    ]);
    expect(readAgentEndpoints({ tunnels: [{ public_url: 'https://b.ngrok.app', config: { addr: 'localhost:80' } }, { public_url: 'tcp://0.tcp.ngrok.io:1', config: { addr: '22' } }] })).toEqual([
      { url: 'https://b.ngrok.app', upstream: 'localhost:80', upstreamPort: 80 },
    ]);
    expect(readAgentEndpoints({ nothing: true })).toBeUndefined();
  });

  it.each([
    ['4141', 4141],
    ['localhost:4141', 4141],
    ['127.0.0.1:4141', 4141],
    ['http://localhost:4141', 4141],
    ['[::1]:4141', 4141],
    ['https://localhost', 443],
    ['192.168.1.2:80', undefined],
    ['example.com:4141', undefined],
  ])('the port of %s', (upstream, port) => {
    expect(localPortOf(upstream)).toBe(port);
  });
});

describe('ngrok’s errors', () => {
  const withCode = (errorCode?: string) => Object.assign(new Error('failed to start tunnel'), errorCode ? { errorCode } : {});
  it.each([
    ['ERR_NGROK_4018', 'ngrok_authtoken_missing'],
    ['ERR_NGROK_105', 'ngrok_authtoken_invalid'],
    ['ERR_NGROK_326', 'ngrok_domain_invalid'],
    ['ERR_NGROK_108', 'ngrok_failed'],
    ['ERR_NGROK_999', 'ngrok_failed'],
    [undefined, 'ngrok_unreachable'],
  ])('%s → %s', (code, expected) => {
    expect(ngrokError(withCode(code), 'x.ngrok-free.dev').code).toBe(expected);
  });
});
