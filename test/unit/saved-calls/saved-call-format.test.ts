import { describe, expect, it } from 'vitest';
import {
  parseSavedCall,
  savedCallFromRecord,
  serializeSavedCall,
  VISITOR_PLACEHOLDERS,
  type SavedCall,
} from '../../../src/saved-calls/index.js';
import { KEY, makeRecord } from '../../helpers/make-record.js';

const visitorBody = (visitor: Record<string, unknown>) =>
  JSON.stringify({
    tool: 'lookupCustomer',
    toolCallId: 'call_0123456789abcdef0123456789abcdef',
    input: { note: 'for ada@example.com' },
    context: { conversationId: 'conv_1', risk: 'low', visitor },
  });

function lookupRecord() {
  return makeRecord({
    tool: 'lookupCustomer',
    toolCallId: 'call_0123456789abcdef0123456789abcdef',
    request: {
      method: 'POST',
      path: '/api/median',
      headers: { 'median-signature': 't=1,v1=ab', cookie: 'sid=secret-session', authorization: `Bearer ${KEY}` },
      body: visitorBody({ verified: true, externalId: 'cus_4411', email: 'ada@example.com', name: 'Ada Lovelace' }),
    },
    response: {
      status: 200,
      headers: { 'content-type': 'application/json', 'set-cookie': 'sid=new', date: 'Tue, 01 Dec 2026 09:00:00 GMT', connection: 'keep-alive' },
      body: JSON.stringify({ result: { customerId: 'cus_4411', name: 'Ada Lovelace', email: 'ada@example.com', orders: ['A1001'] } }),
    },
    verdict: { kind: 'answered', agentSees: '{"customerId":"cus_4411","name":"Ada Lovelace"}', warnings: [] },
  });
}

describe('a saved call file', () => {
  it('round-trips: parse(serialize(x)) is x, and serializing again gives the same bytes', () => {
    const saved = { ...savedCallFromRecord(lookupRecord()), ignore: ['result.orders.*'] };
    const text = serializeSavedCall(saved);
    const back = parseSavedCall(text, 'x.json');
    expect(back).toEqual(saved);
    expect(serializeSavedCall(back)).toBe(text);
  });

  it('keeps its own key order and sorts the data inside, so a re-save does not reorder it', () => {
    const a = savedCallFromRecord(lookupRecord());
    const reordered: SavedCall = { ...a, call: { ...a.call, input: { z: 1, a: 2 } } };
    const text = serializeSavedCall(reordered);
    expect(Object.keys(JSON.parse(text) as object)).toEqual(['format', 'name', 'call', 'expect', 'savedFrom']);
    expect(text.indexOf('"a": 2')).toBeLessThan(text.indexOf('"z": 1'));
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('holds no key, signature, cookie, date or hop-by-hop header', () => {
    const text = serializeSavedCall(savedCallFromRecord(lookupRecord()));
    for (const secret of [KEY, 'median-signature', 'sid=', 'set-cookie', 'cookie', 'authorization', 'keep-alive', '09:00:00']) expect(text).not.toContain(secret);
    expect(JSON.parse(text).expect.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('replaces the visitor with placeholders, in the input and the answer too', () => {
    const saved = savedCallFromRecord(lookupRecord());
    expect(saved.call.context.visitor).toEqual({ verified: true, ...VISITOR_PLACEHOLDERS });
    const text = serializeSavedCall(saved);
    for (const real of ['cus_4411', 'ada@example.com', 'Ada Lovelace']) expect(text).not.toContain(real);
    expect(saved.call.input).toEqual({ note: `for ${VISITOR_PLACEHOLDERS.email}` });
    expect(saved.expect.body).toEqual({ result: { customerId: 'visitor-1', name: 'A Visitor', email: 'visitor@example.com', orders: ['A1001'] } });
    expect(saved.savedFrom.visitor).toBe('placeholders');
  });

  it('keeps the visitor when asked', () => {
    const saved = savedCallFromRecord(lookupRecord(), { keepVisitor: true });
    expect(saved.call.context.visitor.email).toBe('ada@example.com');
    expect(saved.savedFrom.visitor).toBe('kept');
  });

  it('names a call <tool>-<id tail>, or --as', () => {
    expect(savedCallFromRecord(lookupRecord()).name).toBe('lookupCustomer-89abcdef');
    expect(savedCallFromRecord(lookupRecord(), { name: 'vip-lookup' }).name).toBe('vip-lookup');
  });

  it.each([
    ['a bad --as', () => savedCallFromRecord(lookupRecord(), { name: '../etc' }), 'invalid_saved_name'],
    ['a manifest read', () => savedCallFromRecord(makeRecord({ kind: 'manifest' })), 'not_a_tool_call'],
    ['a cut request body', () => savedCallFromRecord(makeRecord({ request: { ...makeRecord().request, truncated: true } })), 'replay_body_truncated'],
    ['a file of another format', () => parseSavedCall('{"format":"other"}', 'x.json'), 'invalid_saved_call'],
    ['a file that is not JSON', () => parseSavedCall('nope', 'x.json'), 'invalid_saved_call'],
    ['an unknown verdict', () => parseSavedCall(serializeSavedCall(savedCallFromRecord(makeRecord())).replace('"answered"', '"maybe"'), 'x.json'), 'invalid_saved_call'],
  ])('refuses %s with a code', (_name, run, code) => {
    expect(run).toThrow(expect.objectContaining({ code }));
  });

  it('keeps a non-JSON answer as text and a cut answer as cut', () => {
    const text = savedCallFromRecord(makeRecord({ response: { status: 502, headers: {}, body: '<html>bad gateway</html>' } }));
    expect(text.expect).toMatchObject({ status: 502, bodyText: '<html>bad gateway</html>' });
    const cut = savedCallFromRecord(makeRecord({ response: { status: 200, headers: {}, body: '{"result":"xx', truncated: true } }));
    expect(cut.expect.isBodyCut).toBe(true);
    expect(cut.expect.body).toBeUndefined();
    const none = savedCallFromRecord(makeRecord({ response: null }));
    expect(none.expect.status).toBeNull();
  });
});
