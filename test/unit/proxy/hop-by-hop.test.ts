import { describe, expect, it } from 'vitest';
import { forwardableRequestHeaders, forwardableResponseHeaders, maskCredentials } from '../../../src/proxy/hop-by-hop.js';

describe('forwardableRequestHeaders', () => {
  it.each([
    { name: 'keeps end-to-end headers', given: { 'median-signature': 't=1,v1=ab', 'content-type': 'application/json', host: 'x' }, kept: ['median-signature', 'content-type', 'host'] },
    { name: 'drops the fixed hop-by-hop set', given: { connection: 'keep-alive', 'keep-alive': 'timeout=5', te: 'trailers', trailer: 'x', upgrade: 'h2c', 'proxy-authorization': 'Basic x', 'proxy-connection': 'keep-alive', expect: '100-continue', accept: '*/*' }, kept: ['accept'] },
    { name: 'drops headers the Connection header names', given: { connection: 'close, X-Private', 'x-private': '1', 'x-public': '2' }, kept: ['x-public'] },
    { name: 'keeps transfer-encoding (Node re-frames the body)', given: { 'transfer-encoding': 'chunked' }, kept: ['transfer-encoding'] },
    { name: "drops median-dev's own replay header", given: { 'x-median-dev-replay-of': 'rec_0', accept: '*/*' }, kept: ['accept'] },
  ])('$name', ({ given, kept }) => {
    expect(Object.keys(forwardableRequestHeaders(given))).toEqual(kept);
  });

  it('copies, leaving the received headers as they were', () => {
    const given = { connection: 'keep-alive', accept: '*/*' };
    forwardableRequestHeaders(given);
    expect(given).toEqual({ connection: 'keep-alive', accept: '*/*' });
  });
});

describe('forwardableResponseHeaders', () => {
  it.each([
    { name: 'keeps order, spelling and repeats', raw: ['Set-Cookie', 'a=1', 'X-Mixed', 'v', 'Set-Cookie', 'b=2'], connection: undefined, out: ['Set-Cookie', 'a=1', 'X-Mixed', 'v', 'Set-Cookie', 'b=2'] },
    { name: 'drops framing and connection headers', raw: ['Transfer-Encoding', 'chunked', 'Connection', 'keep-alive', 'Keep-Alive', 'timeout=5', 'Content-Type', 'text/plain'], connection: 'keep-alive', out: ['Content-Type', 'text/plain'] },
    { name: 'drops headers the Connection header names', raw: ['Connection', 'x-hop', 'X-Hop', '1', 'ETag', '"a"'], connection: 'x-hop', out: ['ETag', '"a"'] },
  ])('$name', ({ raw, connection, out }) => {
    expect(forwardableResponseHeaders(raw, connection)).toEqual(out);
  });
});

describe('maskCredentials', () => {
  it.each([
    { given: `Bearer median_key_${'a1B2'.repeat(8)}wxyz`, masked: 'Bearer …wxyz' },
    { given: 'Basic dXNlcjpwYXNzd29yZA==', masked: 'Basic …' },
    { given: 'sometoken', masked: '…' },
  ])('masks $given as $masked', ({ given, masked }) => {
    expect(maskCredentials({ authorization: given, accept: '*/*' })).toEqual({ authorization: masked, accept: '*/*' });
  });

  it('masks proxy-authorization too and leaves other headers alone', () => {
    expect(maskCredentials({ 'proxy-authorization': 'Basic abc', cookie: 'a=1' })).toEqual({ 'proxy-authorization': 'Basic …', cookie: 'a=1' });
  });
});
