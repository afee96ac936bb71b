import { describe, expect, it } from 'vitest';
import { checkOrganisation } from '../../../src/endpoints/index.js';
import type { Endpoint } from '../../../src/median/index.js';

function endpoint(id: string, url: string, tools: string[]): Endpoint {
  return { id, url, status: 'synced', error: null, tools: tools.map((name) => ({ name, enabled: true })), createdAt: '2026-01-01T00:00:00.000Z', syncedAt: null };
}

const names = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('the organisation-wide rules before a sync', () => {
  it('passes when names are unique, tools ≤ 20 and the endpoint fits', () => {
    expect(checkOrganisation(['orderStatus'], [endpoint('tep_p', 'https://acme.com/api/median', ['shipParcel'])], {})).toEqual([]);
  });

  it('reports every clash with the other endpoint’s URL and class, leaving this project’s current endpoint out', () => {
    const problems = checkOrganisation(
      ['orderStatus', 'lookupCustomer', 'cancelOrder'],
      [
        endpoint('tep_p', 'https://acme.com/api/median', ['orderStatus']),
        endpoint('tep_m', 'https://dana.loca.lt/api/median', ['lookupCustomer']),
        endpoint('tep_me', 'https://mine.loca.lt/api/median', ['orderStatus', 'lookupCustomer', 'cancelOrder']),
      ],
      { endpointId: 'tep_me', tunnelUrls: ['https://mine.loca.lt/api/median'] },
    );
    expect(problems.map((p) => [p.rule, p.otherUrl, p.otherOwner])).toEqual([
      ['unique-names', 'https://acme.com/api/median', 'production'],
      ['unique-names', 'https://dana.loca.lt/api/median', 'dev-tunnel'],
    ]);
    expect(problems[0]?.message).toBe('The tool name "orderStatus" already comes from https://acme.com/api/median. Tool names have to be unique across every endpoint.');
    expect(problems[0]?.fix).toContain('never removes it');
    expect(problems[1]?.fix).toContain('confirm it by name');
  });

  it('reports the 20-tool limit with the docs’ message', () => {
    const problems = checkOrganisation(names(6, 'mine'), [endpoint('tep_p', 'https://acme.com/api/median', names(15, 'prod'))], {});
    expect(problems).toEqual([
      expect.objectContaining({ rule: 'tool-limit', message: 'These endpoints would declare 21 tools together, and the organization limit is 20.' }),
    ]);
    expect(problems[0]?.fix).toContain('https://acme.com/api/median (production or a preview): 15');
  });

  it('reports the 10-endpoint limit only when this project would add an endpoint', () => {
    const ten = names(10, 'e').map((id, i) => endpoint(id, `https://t${i}.loca.lt/api/median`, []));
    expect(checkOrganisation(['orderStatus'], ten, {})).toEqual([
      expect.objectContaining({ rule: 'endpoint-limit', message: 'You can connect 10 tool endpoints at once. Remove one before adding another.' }),
    ]);
    expect(checkOrganisation(['orderStatus'], ten, { tunnelUrls: ['https://t3.loca.lt/api/median'] })).toEqual([]);
  });
});
