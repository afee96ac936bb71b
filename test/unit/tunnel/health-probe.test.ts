import { describe, expect, it } from 'vitest';
import { isProxyHealth, judgeHealthProbe, nextProbeStrikes, type HealthProbeResult, type HealthVerdict } from '../../../src/tunnel/index.js';

describe('judgeHealthProbe', () => {
  it.each<[HealthProbeResult, HealthVerdict]>([
    // Only this daemon's marked answer proves the tunnel, whatever its status.
    [{ kind: 'answered', status: 200, isFromProxy: true }, 'healthy'],
    [{ kind: 'answered', status: 404, isFromProxy: true }, 'healthy'],
    [{ kind: 'answered', status: 503, isFromProxy: true }, 'healthy'],
    // Any other answer came from something between: the tunnel server, a front proxy, another median-dev.
    [{ kind: 'answered', status: 200 }, 'tunnel-missing'],
    [{ kind: 'answered', status: 204, isFromProxy: false }, 'tunnel-missing'],
    [{ kind: 'answered', status: 404 }, 'tunnel-missing'],
    [{ kind: 'answered', status: 503 }, 'tunnel-missing'],
    [{ kind: 'answered', status: 502 }, 'tunnel-missing'],
    [{ kind: 'answered', status: 504 }, 'tunnel-missing'],
    [{ kind: 'answered', status: 500 }, 'tunnel-missing'],
    [{ kind: 'answered', status: 302 }, 'tunnel-missing'],
    // Reached, but silent: wedged.
    [{ kind: 'no-answer' }, 'tunnel-missing'],
    // Our own network may be down: proves nothing.
    [{ kind: 'unreachable', error: new Error('getaddrinfo ENOTFOUND') }, 'inconclusive'],
    [{ kind: 'unreachable' }, 'inconclusive'],
  ])('%o → %s', (result, verdict) => {
    expect(judgeHealthProbe(result)).toBe(verdict);
  });
});

describe('nextProbeStrikes', () => {
  it.each<[HealthVerdict[], number]>([
    [['tunnel-missing'], 1],
    [['tunnel-missing', 'tunnel-missing', 'tunnel-missing'], 3],
    [['tunnel-missing', 'tunnel-missing', 'healthy'], 0],
    [['tunnel-missing', 'healthy', 'tunnel-missing'], 1],
    [['tunnel-missing', 'inconclusive', 'tunnel-missing'], 2],
    [['inconclusive', 'inconclusive', 'inconclusive', 'inconclusive'], 0],
  ])('%o → %i strikes', (verdicts, expected) => {
    expect(verdicts.reduce(nextProbeStrikes, 0)).toBe(expected);
  });
});

describe('isProxyHealth', () => {
  it.each<[string, string | undefined, boolean]>([
    ['{"ok":true,"service":"median-dev","instance":"abc"}', undefined, true],
    ['{"ok":true,"service":"median-dev","instance":"abc"}', 'abc', true],
    ['{"ok":true,"service":"median-dev","instance":"abc"}', 'other', false],
    ['{"error":"no tunnel"}', undefined, false],
    ['null', undefined, false],
    ['<html>', undefined, false],
    ['', undefined, false],
  ])('%j (instance %j) → %s', (text, instanceId, expected) => {
    expect(isProxyHealth(text, instanceId)).toBe(expected);
  });
});
