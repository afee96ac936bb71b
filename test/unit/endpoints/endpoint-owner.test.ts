import { describe, expect, it } from 'vitest';
import { classifyEndpoints, foreignOwnerOf, type EndpointOwner } from '../../../src/endpoints/index.js';
import type { Endpoint } from '../../../src/median/index.js';

function endpoint(id: string, url: string, patch: Partial<Endpoint> = {}): Endpoint {
  return { id, url, status: 'synced', error: null, tools: [], createdAt: '2026-01-01T00:00:00.000Z', syncedAt: null, ...patch };
}

describe('whose an endpoint is', () => {
  it.each<[string, EndpointOwner]>([
    ['https://acme.com/api/median', 'production'],
    ['https://preview-42.acme.vercel.app/api/median', 'production'],
    ['https://dana-7f3a.loca.lt/api/median', 'dev-tunnel'],
    ['https://abc.ngrok-free.app/api/median', 'dev-tunnel'],
    ['https://x.ngrok.io/api/median', 'dev-tunnel'],
    ['https://quick-words.trycloudflare.com/api/median', 'dev-tunnel'],
    ['https://x.lhr.life/api/median', 'dev-tunnel'],
    ['https://other.lt.median.test/api/median', 'dev-tunnel'],
    ['http://127.0.0.1:3000/api/median', 'dev-tunnel'],
    ['http://localhost:3000/api/median', 'dev-tunnel'],
    ['https://10.0.0.7/api/median', 'dev-tunnel'],
    // A domain that only ends like a tunnel service is not one.
    ['https://notloca.lt/api/median', 'production'],
  ])('%s → %s', (url, owner) => {
    expect(foreignOwnerOf(url)).toBe(owner);
  });

  it('marks this project’s history, current endpoint, teammates and production', () => {
    const classified = classifyEndpoints(
      [
        endpoint('tep_prod', 'https://acme.com/api/median'),
        endpoint('tep_mate', 'https://dana.loca.lt/api/median'),
        endpoint('tep_old', 'https://mine-old.loca.lt/api/median'),
        endpoint('tep_now', 'https://mine.loca.lt/api/median', {
          status: 'failed',
          error: 'The tool name "orderStatus" already comes from https://dana.loca.lt/api/median. Tool names have to be unique across every endpoint.',
        }),
      ],
      { endpointId: 'tep_now', toolsUrl: 'https://mine.loca.lt/api/median', tunnelUrls: ['https://mine-old.loca.lt/api/median', 'https://mine.loca.lt/api/median'] },
    );
    expect(classified.map((e) => [e.id, e.owner, e.isCurrent, e.isStale, e.clashesWithCurrent])).toEqual([
      ['tep_prod', 'production', false, false, false],
      ['tep_mate', 'dev-tunnel', false, false, true],
      ['tep_old', 'this-project', false, true, false],
      ['tep_now', 'this-project', true, false, false],
    ]);
  });

  it('a production URL this project used itself (--public-url) is this project’s', () => {
    const [e] = classifyEndpoints([endpoint('tep_1', 'https://staging.acme.com/api/median')], { tunnelUrls: ['https://staging.acme.com/api/median'] });
    expect(e?.owner).toBe('this-project');
  });
});
