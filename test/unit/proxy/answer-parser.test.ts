import { describe, expect, it } from 'vitest';
import { AnswerFramingError, AnswerParser, type AnswerHead } from '../../../src/proxy/answer-parser.js';

interface Seen {
  heads: Array<Pick<AnswerHead, 'statusCode' | 'statusMessage' | 'rawHeaders'>>;
  body: string;
  ends: boolean[];
}

/** Feeds `raw` to a fresh parser in the given pieces; what it reported. */
function parse(pieces: Buffer[], isHead = false): Seen & { parser: AnswerParser } {
  const seen: Seen = { heads: [], body: '', ends: [] };
  const parser = new AnswerParser({
    answerHead: (head) => seen.heads.push({ statusCode: head.statusCode, statusMessage: head.statusMessage, rawHeaders: head.rawHeaders }),
    answerBody: (chunk) => (seen.body += chunk.toString('latin1')),
    answerEnd: (keepAlive) => seen.ends.push(keepAlive),
  });
  parser.begin(isHead);
  for (const piece of pieces) parser.execute(piece);
  return { ...seen, parser };
}

/** Every way of cutting `raw` in two, and byte by byte. */
function splits(raw: string): Buffer[][] {
  const bytes = Buffer.from(raw, 'latin1');
  const ways: Buffer[][] = [[bytes], [...bytes].map((byte) => Buffer.from([byte]))];
  for (let at = 1; at < bytes.length; at++) ways.push([bytes.subarray(0, at), bytes.subarray(at)]);
  return ways;
}

const CHUNKED = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n4;ext="a b"\r\nWiki\r\n0b\r\npedia in \r\n\r\n0\r\nX-Trailer: t\r\n\r\n';

describe('the strict answer parser', () => {
  it.each([
    ['a Content-Length answer', 'HTTP/1.1 201 Created\r\nContent-Length: 5\r\nX-A:  spaced  \r\n\r\nhello', 'hello', [true]],
    ['a chunked answer with an extension and trailers', CHUNKED, 'Wikipedia in \r\n', [true]],
    ['a chunked answer without trailers', 'HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n', 'abc', [true]],
    ['1xx answers skipped', 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok', 'ok', [true]],
    ['a 204 without a body', 'HTTP/1.1 204 No Content\r\n\r\n', '', [true]],
    ['a 304 with a length but no body', 'HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n', '', [true]],
    ['Connection: close', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive, close\r\n\r\nok', 'ok', [false]],
    ['an HTTP/1.0 answer', 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok', 'ok', [false]],
    ['an empty reason', 'HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n', '', [true]],
    ['no reason at all', 'HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n', '', [true]],
  ])('frames %s the same however its bytes are cut', (_label, raw, body, ends) => {
    for (const pieces of splits(raw)) {
      const seen = parse(pieces);
      expect(seen.body).toBe(body);
      expect(seen.ends).toEqual(ends);
      expect(seen.parser.excess).toBe(false);
    }
  });

  it('gives the head as sent: status, reason, names in their spelling, values without the spaces around them', () => {
    const seen = parse([Buffer.from("HTTP/1.1 418 I'm a teapot\r\nX-A:  spaced  \r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 0\r\n\r\n", 'latin1')]);
    expect(seen.heads).toEqual([
      { statusCode: 418, statusMessage: "I'm a teapot", rawHeaders: ['X-A', 'spaced', 'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'Content-Length', '0'] },
    ]);
  });

  it('a HEAD answer has no body whatever its length says', () => {
    const seen = parse([Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n')], true);
    expect([seen.body, seen.ends]).toEqual(['', [true]]);
  });

  it('an answer without a length is read until the connection closes', () => {
    const seen = parse([Buffer.from('HTTP/1.1 200 OK\r\n\r\nall of '), Buffer.from('it')]);
    expect(seen.ends).toEqual([]);
    seen.parser.eof();
    expect([seen.body, seen.ends]).toEqual(['all of it', [false]]);
  });

  it('notes bytes after the end of an answer', () => {
    const seen = parse([Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n')]);
    expect([seen.body, seen.parser.excess]).toEqual(['ok', true]);
  });

  it.each([
    ['two Content-Lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\na', 'HPE_UNEXPECTED_CONTENT_LENGTH'],
    ['Content-Length and Transfer-Encoding', 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n', 'HPE_UNEXPECTED_CONTENT_LENGTH'],
    ['two Transfer-Encodings', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n', 'HPE_INVALID_TRANSFER_ENCODING'],
    ['chunked on HTTP/1.0', 'HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', 'HPE_INVALID_TRANSFER_ENCODING'],
    ['a signed Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: +1\r\n\r\na', 'HPE_INVALID_CONTENT_LENGTH'],
    ['an empty Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n', 'HPE_INVALID_CONTENT_LENGTH'],
    ['obs-fold', 'HTTP/1.1 200 OK\r\nX-A: a\r\n\tb\r\nContent-Length: 0\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN'],
    ['a NUL in a value', 'HTTP/1.1 200 OK\r\nX-A: a\u0000b\r\nContent-Length: 0\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN'],
    ['an empty name', 'HTTP/1.1 200 OK\r\n: a\r\nContent-Length: 0\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN'],
    ['a bare CR', 'HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 0\r\n\r\n', 'HPE_CR_EXPECTED'],
    ['a bare LF', 'HTTP/1.1 200 OK\r\nX-A: a\nContent-Length: 0\r\n\r\n', 'HPE_CR_EXPECTED'],
    ['a lower-case protocol', 'http/1.1 200 OK\r\nContent-Length: 0\r\n\r\n', 'HPE_INVALID_STATUS'],
    ['a four-digit status', 'HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n', 'HPE_INVALID_STATUS'],
    ['a 101 nobody asked for', 'HTTP/1.1 101 Switching Protocols\r\n\r\n', 'HPE_INVALID_STATUS'],
    ['a chunk size that is not hex', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n', 'HPE_INVALID_CHUNK_SIZE'],
    ['a chunk size too large to hold', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n', 'HPE_INVALID_CHUNK_SIZE'],
    ['a chunk longer than its size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n0\r\n\r\n', 'HPE_STRICT'],
    ['a trailer that is no field', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nnot a field\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN'],
    ['a head over 16 KiB', `HTTP/1.1 200 OK\r\nX-A: ${'a'.repeat(16 * 1024)}\r\n\r\n`, 'HPE_HEADER_OVERFLOW'],
    ['a head over 16 KiB that never ends', `HTTP/1.1 200 OK\r\nX-A: ${'a'.repeat(16 * 1024)}`, 'HPE_HEADER_OVERFLOW'],
    ['over 2,000 fields', `HTTP/1.1 200 OK\r\n${'a:\r\n'.repeat(2_001)}\r\n`, 'HPE_HEADER_OVERFLOW'],
  ])('refuses %s, however its bytes are cut', (_label, raw, code) => {
    for (const pieces of splits(raw).slice(0, 40)) {
      let refused: unknown;
      try {
        parse(pieces);
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(AnswerFramingError);
      expect((refused as AnswerFramingError).code).toBe(code);
    }
  });

  it('a close before the answer is whole is an error, not an end', () => {
    for (const raw of ['HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n', 'HTTP/1.1 200 OK\r\nContent-']) {
      const seen = parse([Buffer.from(raw)]);
      expect(() => seen.parser.eof()).toThrow(AnswerFramingError);
      expect(seen.ends).toEqual([]);
    }
  });

  it('one parser frames answer after answer on a kept connection', () => {
    const seen: string[] = [];
    const parser = new AnswerParser({ answerHead: () => undefined, answerBody: (chunk) => seen.push(chunk.toString()), answerEnd: () => seen.push('|') });
    for (const raw of ['HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na', CHUNKED, 'HTTP/1.1 204 No Content\r\n\r\n']) {
      parser.begin(false);
      parser.execute(Buffer.from(raw, 'latin1'));
    }
    expect(seen.join('')).toBe('a|Wikipedia in \r\n||');
  });
});
