import { describe, expect, it } from 'vitest';
import { ALLOW_PRODUCTION_FLAG, decideProductionGuard } from '../../../src/endpoints/index.js';
import type { Endpoint } from '../../../src/median/index.js';

function endpoint(id: string, url: string): Endpoint {
  return { id, url, status: 'synced', error: null, tools: [{ name: 'shipParcel', enabled: true }], createdAt: '2026-01-01T00:00:00.000Z', syncedAt: null };
}

const PROD = endpoint('tep_prod', 'https://acme.com/api/median');
const MATE = endpoint('tep_mate', 'https://dana.loca.lt/api/median');
const MINE = endpoint('tep_mine', 'https://mine.loca.lt/api/median');

describe('the production guard', () => {
  it('proceeds in an organisation of dev tunnels and this project only', () => {
    expect(decideProductionGuard([MATE, MINE], { tunnelUrls: [MINE.url] })).toEqual({ kind: 'proceed', production: [] });
    expect(decideProductionGuard([], {})).toMatchObject({ kind: 'proceed' });
  });

  it('stops before connecting into an organisation with production, naming it, why, and what to do instead', () => {
    const decision = decideProductionGuard([PROD, MATE], {});
    expect(decision.kind).toBe('stop');
    if (decision.kind !== 'stop') return;
    expect(decision.code).toBe('production_org');
    expect(decision.production.map((e) => e.id)).toEqual(['tep_prod']);
    expect(decision.message).toContain(PROD.url);
    expect(decision.message).toContain('live agent would see the tools');
    expect(decision.message).toContain('would wait for a sync of this laptop');
    expect(decision.hint).toContain('separate development organisation (Settings → API in that organisation)');
    expect(decision.hint).toContain(ALLOW_PRODUCTION_FLAG);
  });

  it('stops even when this project is connected there already, and proceeds once the flag was given', () => {
    expect(decideProductionGuard([PROD, MINE], { endpointId: MINE.id }).kind).toBe('stop');
    expect(decideProductionGuard([PROD, MINE], { endpointId: MINE.id, allowProductionOrg: true })).toMatchObject({
      kind: 'proceed',
      production: [expect.objectContaining({ id: 'tep_prod' })],
    });
    expect(decideProductionGuard([PROD], { allowProductionOrg: false }).kind).toBe('stop');
  });
});
