import { describe, expect, it } from 'vitest';
import { CALL_MESSAGES, CONNECT_MESSAGES, LOAD_MESSAGES, SYNC_MESSAGES, connectFix, sameMessage, syncFix } from '../../../src/median/index.js';

/**
 * Median's own words, as its docs print them (tool-errors.txt): curly quotes
 * and apostrophes outside code spans, straight ones inside them.
 */
describe('messages in the docs’ wording', () => {
  it.each<[string, string, string]>([
    ['refused signature', SYNC_MESSAGES.refusedSignature, 'The endpoint refused the signature. Open the route once to reconnect it with that deployment’s MEDIAN_KEY.'],
    ['own machine', SYNC_MESSAGES.ownMachine('http://localhost:3000').split(' Median calls')[0]!, 'http://localhost:3000 is this deployment’s own machine, not yours.'],
    ['reserved name', SYNC_MESSAGES.reservedName('tools[0].name', 'handoff'), 'tools[0].name "handoff" is one of the agent’s own tools. Pick another name.'],
    ['not a URL', CONNECT_MESSAGES.endpointUnknown, 'Median: MEDIAN_TOOLS_URL is not a URL. Set it to this route’s public address, like https://example.com/api/median.'],
    ['bad risk', LOAD_MESSAGES.badRisk('x', 'y'), 'Median: the tool "x" has risk "y". Use “low”, “medium”, “reviewed” or “high”.'],
    ['connected, 2 tools', CONNECT_MESSAGES.connected(2), 'Connected. Median is syncing 2 tools.'],
    ['connected, 1 tool', CONNECT_MESSAGES.connected(1), 'Connected. Median is syncing 1 tool.'],
    ['a refusal', CALL_MESSAGES.refusal('not_signed_in', 'Sign in to see orders.'), 'not_signed_in: Sign in to see orders.'],
    ['a refusal without detail keeps the colon', CALL_MESSAGES.refusal('tool_refused', ''), 'tool_refused:'],
  ])('%s', (_name, ours, docs) => {
    expect(ours).toBe(docs);
  });

  it('a message Median sent with straight quotes still gets its fix', () => {
    const straight = "The endpoint refused the signature. Open the route once to reconnect it with that deployment's MEDIAN_KEY.";
    expect(sameMessage(straight, SYNC_MESSAGES.refusedSignature)).toBe(true);
    expect(syncFix(straight)).toBe(syncFix(SYNC_MESSAGES.refusedSignature));
    expect(syncFix(SYNC_MESSAGES.refusedSignature)).toBeDefined();
    expect(syncFix("tools[0].name \"x\" is one of the agent's own tools. Pick another name.")).toBe('Rename the tool.');
    expect(syncFix(SYNC_MESSAGES.ownMachine('http://localhost:3000'))).toBeDefined();
  });

  it('duplicate_endpoint: the docs’ fix (remove the other endpoint first)', () => {
    expect(connectFix('duplicate_endpoint')).toContain('Remove the other endpoint first');
    expect(connectFix('duplicate_endpoint')).not.toContain('adopts');
  });
});
