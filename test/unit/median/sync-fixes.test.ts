import { describe, expect, it } from 'vitest';
import { CONNECT_MESSAGES, connectFix, judgeSyncAnswer, SYNC_MESSAGES, syncFix, type SyncFetchOutcome } from '../../../src/median/index.js';

const URL_ = 'https://mine.loca.lt/api/median';
const answer = (status: number, body: string, headers: Record<string, string> = {}): SyncFetchOutcome => ({
  kind: 'answer',
  status,
  headers,
  body: new TextEncoder().encode(body),
});
const judged = (outcome: SyncFetchOutcome): string => {
  const j = judgeSyncAnswer(outcome, URL_);
  if (j.ok) throw new Error('expected a failed sync');
  return j.message;
};
const tool = (patch: Record<string, unknown>) =>
  JSON.stringify({
    version: 1,
    tools: [{ name: 'orderStatus', description: 'Order status.', risk: 'low', inputSchema: { type: 'object', properties: {}, additionalProperties: false }, ...patch }],
  });

/** Every row of the docs' Sync errors table: the message Median shows, and the docs' Fix column in ours. */
describe('every sync error prints the docs’ fix', () => {
  it.each<[string, string, string]>([
    ['401: the signature', judged(answer(401, '{}')), 'Reconnect'],
    ['404', judged(answer(404, '{}')), '404 is usually the wrong path'],
    ['500', judged(answer(500, '{}')), '500 is often a missing MEDIAN_KEY'],
    ['another status', judged(answer(503, '{}')), 'Check the URL and your server logs'],
    ['not JSON', judged(answer(200, '<html></html>')), 'point it at the route file'],
    ['no answer', judged({ kind: 'no-answer' }), 'Check the URL, DNS and that the server is up'],
    ['this machine', SYNC_MESSAGES.ownMachine('http://localhost:3000'), 'Use a tunnel'],
    ['a named redirect', judged(answer(301, '', { location: 'https://www.acme.com/api/median' })), 'Use the URL in the message'],
    ['a redirect it will not name', judged(answer(302, '', { location: 'http://localhost/x' })), 'Use the final URL'],
    ['a private address', SYNC_MESSAGES.privateAddress, 'Use a public address'],
    ['too large', SYNC_MESSAGES.tooLarge, 'cut descriptions or tools'],
    ['a clash', SYNC_MESSAGES.nameClash('orderStatus', 'https://acme.com/api/median'), 'Rename one, or remove the old endpoint'],
    ['over 20 tools', SYNC_MESSAGES.tooManyTools(21, 20), 'Remove tools or endpoints'],
    ['a reserved name', judged(answer(200, tool({ name: 'handoff' }))), 'Rename the tool'],
    ['a long description', judged(answer(200, tool({ description: 'x'.repeat(501) }))), 'Shorten the description'],
    ['too many fields', SYNC_MESSAGES.tooManyFields('tools[0].inputSchema', 21, 20), 'Split the tool'],
    ['a long schema', SYNC_MESSAGES.schemaTooLong('tools[0].inputSchema', 8000), 'Shorten the schema'],
    ['another version', judged(answer(200, JSON.stringify({ version: 2, tools: [] }))), 'Update @mediansh/agent-tools'],
    ['Median failed', SYNC_MESSAGES.couldNotSync, 'Sync again'],
    ['rate limited', SYNC_MESSAGES.rateLimited, 'Wait'],
    ['the manifest’s shape', judged(answer(200, tool({ inputSchema: { type: 'object', properties: {}, additionalProperties: true } }))), 'Fix the field the message names'],
  ])('%s', (_row, message, fix) => {
    expect(syncFix(message)).toContain(fix);
  });

  it('the reserved-name row is the docs’ message (the test builds it through the real rules)', () => {
    expect(judged(answer(200, tool({ name: 'handoff' })))).toMatch(/is one of the agent’s own tools/);
  });

  it('has no fix for a message that is not in the table', () => {
    expect(syncFix('Something else.')).toBeUndefined();
    expect(syncFix(null)).toBeUndefined();
  });
});

describe('invalid_url says which invalid_url it was', () => {
  it.each<[string, string]>([
    [CONNECT_MESSAGES.urlNotHttps, 'https://'],
    [CONNECT_MESSAGES.urlPrivate, 'public address, or a tunnel'],
    [CONNECT_MESSAGES.urlTooLong, '512 characters'],
    [CONNECT_MESSAGES.urlInvalid, 'full URL'],
  ])('%s', (message, fix) => {
    expect(connectFix('invalid_url', message)).toContain(fix);
  });

  it('a private address is not told to use https', () => {
    expect(connectFix('invalid_url', CONNECT_MESSAGES.urlPrivate)).not.toContain('https://');
  });
});
