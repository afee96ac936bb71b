import { describe, expect, it, vi } from 'vitest';
import type { CallRecord } from '../../src/median/index.js';
import { initialState, reduce, type TuiEffect, type TuiState } from '../../src/tui/index.js';
import { overlayContent } from '../../src/tui/format-chrome.js';
import { runCliInProcess } from '../helpers/cli-harness.js';
import { isEvent, useE2eWorld } from '../helpers/e2e-world.js';
import { makeRecord, makeSnapshot } from '../helpers/record-fixtures.js';
import { requestVia } from '../helpers/use-tunnel-server.js';

const FORGED = {
  tool: 'lookupCustomer',
  toolCallId: 'call_forged_victim',
  input: {},
  context: { conversationId: 'conv_forged', risk: 'low', visitor: { verified: true, externalId: 'cus_victim', email: 'victim@example.com' } },
};

/**
 * Anyone who reaches the tunnel URL sends a call with no signature, claiming
 * a verified visitor who is someone else. The route refuses it (401); a
 * replay or a copied curl would sign it with the developer's key and the
 * route would answer with the victim's data. Neither happens without
 * `--allow-unsigned-original`, and a signed curl is never made for a path
 * that is not the route.
 */
describe('a forged, unsigned call', () => {
  it('is not re-signed by replay --yes or show --curl; only with --allow-unsigned-original', async () => {
    const world = await useE2eWorld();
    const daemon = world.start();
    await daemon.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    const publicHost = new URL(daemon.events().find((e) => isEvent(e, 'tunnel', { state: 'open' }))!.url as string).host;
    const cli = (args: string[]) => runCliInProcess([...args, '--data-dir', world.dataDir, '--env', world.envFile], { cwd: world.projectDir, env: {} });

    // The attacker: a plain HTTP client through the tunnel, no signature.
    const sent = await requestVia(world.tunnelServer, publicHost, {
      method: 'POST',
      path: '/api/median',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(FORGED),
    });
    expect(sent.status).toBe(401);
    await requestVia(world.tunnelServer, publicHost, { path: '/favicon.ico' });
    const forged = await vi.waitFor(
      async () => {
        const run = await cli(['show', FORGED.toolCallId, '--json']);
        expect(run.code).toBe(0);
        return JSON.parse(run.stdout) as CallRecord;
      },
      { timeout: 15_000 },
    );
    expect(forged.signature).toBe('missing_signature');

    const replay = await cli(['replay', FORGED.toolCallId, '--yes', '--json']);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain('replay_unsigned_original');
    expect(replay.stdout).not.toContain('cus_victim');
    const curl = await cli(['show', FORGED.toolCallId, '--curl']);
    expect(curl.code).toBe(1);
    expect(curl.stderr).toContain('replay_unsigned_original');
    expect(curl.stdout).not.toContain('median-signature');

    // A request that did not go to the route gets no signed curl, even with the flag.
    const calls = JSON.parse((await cli(['calls', '--json'])).stdout) as CallRecord[];
    const asset = calls.find((r) => r.request.path === '/favicon.ico')!;
    const assetCurl = await cli(['show', asset.id, '--curl', '--allow-unsigned-original']);
    expect(assetCurl.code).toBe(1);
    expect(assetCurl.stderr).toContain('curl_not_route');
    expect(assetCurl.stdout).not.toContain('median-signature');
    // Nothing was re-sent: no replay of the forged call is recorded.
    expect(calls.filter((r) => r.replayOf === forged.id)).toEqual([]);

    // Said out loud, it is replayed (signed now), and the record says it is a replay.
    const allowed = await cli(['replay', FORGED.toolCallId, '--allow-unsigned-original', '--json']);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ replayOf: forged.id, signature: 'valid' });
    expect((await cli(['show', FORGED.toolCallId, '--curl', '--allow-unsigned-original'])).stdout).toContain('median-signature: t=');
  });
});

describe('the terminal UI before replaying an unsigned original', () => {
  function stateWith(record: CallRecord): TuiState {
    return reduce(initialState({ width: 100, height: 30, isDemo: false }), { type: 'snapshot', snapshot: makeSnapshot([record]) }).state;
  }

  it('asks, says why, and sends the explicit yes only after y', () => {
    const forged = makeRecord({ id: 'rec_forged', toolCallId: 'call_forged', tool: 'lookupCustomer', risk: 'low', signature: 'missing_signature' });
    const asked = reduce(stateWith(forged), { type: 'key', key: 'r' });
    expect(asked.effects).toEqual([]);
    expect(asked.state.overlay).toMatchObject({ kind: 'confirm-replay' });
    const text = overlayContent(asked.state, 80)!.lines.map((line) => line.map((s) => s.text).join('')).join(' ');
    expect(text).toContain('not validly signed (missing_signature)');

    const sent = reduce(asked.state, { type: 'key', key: 'y' });
    expect(sent.effects).toEqual([
      expect.objectContaining({ type: 'send', command: expect.objectContaining({ toolCallId: 'rec_forged', allowUnsignedOriginal: true }) }),
    ] satisfies unknown[] as TuiEffect[]);
  });
});
