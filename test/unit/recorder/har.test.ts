import { describe, expect, it } from 'vitest';
import { toHar } from '../../../src/recorder/index.js';
import { makeRecord } from '../../helpers/make-record.js';

type Shape = Record<string, 'string' | 'number' | 'object' | 'array' | 'string?' | 'number?' | 'object?' | 'array?'>;

/**
 * A small HAR 1.2 checker: the required fields and their types per the spec
 * (http://www.softwareishard.com/blog/har-12-spec/), only known or `_custom`
 * fields, ISO dates, absolute URLs, timings that add up.
 */
function checkHar(doc: unknown): string[] {
  const problems: string[] = [];
  const check = (value: unknown, shape: Shape, where: string): Record<string, unknown> => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      problems.push(`${where} is not an object`);
      return {};
    }
    const object = value as Record<string, unknown>;
    for (const [key, type] of Object.entries(shape)) {
      const optional = type.endsWith('?');
      const base = type.replace('?', '');
      const field = object[key];
      if (field === undefined) {
        if (!optional) problems.push(`${where}.${key} is missing`);
        continue;
      }
      const actual = Array.isArray(field) ? 'array' : field === null ? 'null' : typeof field;
      if (actual !== base) problems.push(`${where}.${key} is ${actual}, not ${base}`);
    }
    for (const key of Object.keys(object)) {
      if (!(key in shape) && key !== 'comment' && !key.startsWith('_')) problems.push(`${where}.${key} is not a HAR field`);
    }
    return object;
  };
  const nameValues = (list: unknown, where: string) => {
    if (Array.isArray(list)) list.forEach((item, i) => check(item, { name: 'string', value: 'string' }, `${where}[${i}]`));
  };

  const root = check(doc, { log: 'object' }, 'har');
  const log = check(root.log, { version: 'string', creator: 'object', browser: 'object?', pages: 'array?', entries: 'array' }, 'log');
  if (log.version !== '1.2') problems.push('log.version is not "1.2"');
  check(log.creator, { name: 'string', version: 'string' }, 'log.creator');
  (Array.isArray(log.entries) ? log.entries : []).forEach((item, i) => {
    const at = `entries[${i}]`;
    const entry = check(
      item,
      {
        pageref: 'string?',
        startedDateTime: 'string',
        time: 'number',
        request: 'object',
        response: 'object',
        cache: 'object',
        timings: 'object',
        serverIPAddress: 'string?',
        connection: 'string?',
      },
      at,
    );
    if (typeof entry.startedDateTime === 'string' && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(entry.startedDateTime)) {
      problems.push(`${at}.startedDateTime is not ISO 8601`);
    }
    const request = check(
      entry.request,
      {
        method: 'string',
        url: 'string',
        httpVersion: 'string',
        cookies: 'array',
        headers: 'array',
        queryString: 'array',
        postData: 'object?',
        headersSize: 'number',
        bodySize: 'number',
      },
      `${at}.request`,
    );
    if (typeof request.url === 'string' && !/^https?:\/\//.test(request.url)) problems.push(`${at}.request.url is not absolute`);
    nameValues(request.cookies, `${at}.request.cookies`);
    nameValues(request.headers, `${at}.request.headers`);
    nameValues(request.queryString, `${at}.request.queryString`);
    if (request.postData !== undefined) {
      const post = check(request.postData, { mimeType: 'string', params: 'array?', text: 'string?' }, `${at}.request.postData`);
      if ((post.params === undefined) === (post.text === undefined)) problems.push(`${at}.request.postData needs text or params`);
    }
    const response = check(
      entry.response,
      {
        status: 'number',
        statusText: 'string',
        httpVersion: 'string',
        cookies: 'array',
        headers: 'array',
        content: 'object',
        redirectURL: 'string',
        headersSize: 'number',
        bodySize: 'number',
      },
      `${at}.response`,
    );
    nameValues(response.cookies, `${at}.response.cookies`);
    nameValues(response.headers, `${at}.response.headers`);
    check(
      response.content,
      { size: 'number', compression: 'number?', mimeType: 'string', text: 'string?', encoding: 'string?' },
      `${at}.response.content`,
    );
    check(entry.cache, { beforeRequest: 'object?', afterRequest: 'object?' }, `${at}.cache`);
    const timings = check(
      entry.timings,
      { blocked: 'number?', dns: 'number?', connect: 'number?', send: 'number', wait: 'number', receive: 'number', ssl: 'number?' },
      `${at}.timings`,
    );
    for (const key of ['send', 'wait', 'receive'] as const) {
      if (typeof timings[key] === 'number' && (timings[key] as number) < 0) problems.push(`${at}.timings.${key} is negative`);
    }
    const sum = Object.entries(timings)
      .filter(([key, value]) => key !== 'ssl' && typeof value === 'number' && value !== -1)
      .reduce((total, [, value]) => total + (value as number), 0);
    if (entry.time !== sum) problems.push(`${at}.time ${String(entry.time)} is not the sum of its timings (${sum})`);
  });
  return problems;
}

const creator = { name: 'median-dev', version: '0.1.0' };

describe('toHar', () => {
  const records = [
    makeRecord({ n: 1 }),
    makeRecord({
      n: 2,
      kind: 'manifest',
      tool: null,
      request: { method: 'GET', path: '/api/median?debug=1&x=a%20b', headers: { cookie: 'a=1; b=2', accept: ['a', 'b'] }, body: '' },
      response: {
        status: 302,
        headers: { location: 'https://elsewhere.test/', 'set-cookie': ['s=1; Path=/', 't=2'] },
        body: '',
      },
    }),
    makeRecord({ n: 3, response: null, durationMs: null, error: { code: 'target_down', message: 'connect ECONNREFUSED' } }),
  ];
  const har = toHar(records, { creator, baseUrl: 'https://demo.loca.lt' });

  it('is a valid HAR 1.2 log that survives JSON', () => {
    const parsed = JSON.parse(JSON.stringify(har)) as unknown;
    expect(checkHar(parsed)).toEqual([]);
    expect(har.log.version).toBe('1.2');
    expect(har.log.creator).toEqual(creator);
  });

  it('the checker catches a broken log', () => {
    const broken = JSON.parse(JSON.stringify(har)) as { log: { entries: Record<string, unknown>[] } };
    delete broken.log.entries[0]!.timings;
    (broken.log.entries[1] as { request: Record<string, unknown> }).request.url = '/relative';
    broken.log.entries[2]!.bogus = 1;
    expect(checkHar(broken)).toEqual(
      expect.arrayContaining([
        'entries[0].timings is missing',
        'entries[1].request.url is not absolute',
        'entries[2].bogus is not a HAR field',
      ]),
    );
  });

  it('carries the request and the answer', () => {
    const [first, second, third] = har.log.entries;
    expect(har.log.entries.map((e) => e._recordId)).toEqual(records.map((r) => r.id));
    expect(first?.request).toMatchObject({
      method: 'POST',
      url: 'https://demo.loca.lt/api/median',
      postData: { mimeType: 'application/json', text: records[0]!.request.body },
      bodySize: Buffer.byteLength(records[0]!.request.body),
    });
    expect(first?.response).toMatchObject({ status: 200, statusText: 'OK', content: { mimeType: 'application/json', text: records[0]!.response!.body } });
    expect(first?.startedDateTime).toBe(records[0]!.receivedAt);
    expect(first?.time).toBe(12);
    expect(second?.request.queryString).toEqual([
      { name: 'debug', value: '1' },
      { name: 'x', value: 'a b' },
    ]);
    expect(second?.request.postData).toBeUndefined();
    expect(second?.request.cookies).toEqual([
      { name: 'a', value: '1' },
      { name: 'b', value: '2' },
    ]);
    expect(second?.request.headers.filter((h) => h.name === 'accept')).toHaveLength(2);
    expect(second?.response).toMatchObject({ status: 302, statusText: 'Found', redirectURL: 'https://elsewhere.test/' });
    expect(second?.response.cookies.map((c) => c.name)).toEqual(['s', 't']);
    expect(third?.response).toMatchObject({ status: 0, _error: { code: 'target_down' } });
    expect(third?.time).toBe(0);
  });

  it('resolves paths against http://localhost without a base URL', () => {
    expect(toHar([makeRecord()], { creator }).log.entries[0]?.request.url).toBe('http://localhost/api/median');
    expect(checkHar(toHar([], { creator }))).toEqual([]);
  });

  it('lists the calls oldest first by when they came in, whatever order they were written in', () => {
    const slow = makeRecord({ n: 10, receivedAt: '2026-01-05T14:02:00.000Z', durationMs: 3_000 });
    const quick = makeRecord({ n: 11, receivedAt: '2026-01-05T14:02:00.500Z' });
    const later = makeRecord({ n: 12, receivedAt: '2026-01-05T14:02:01.000Z' });
    // Newest written first, as the store reads them: the slow call finished last.
    const entries = toHar([slow, later, quick], { creator }).log.entries;
    expect(entries.map((e) => e._recordId)).toEqual([slow.id, quick.id, later.id]);
    expect(toHar([later, slow], { creator, isOrderKept: true }).log.entries.map((e) => e._recordId)).toEqual([later.id, slow.id]);
  });

  it.each([
    ['a call through the tunnel', { host: 'my-shop-3f9a1c.loca.lt', 'x-forwarded-proto': 'https' }, 'https://my-shop-3f9a1c.loca.lt/api/median'],
    ['a call to the proxy itself', { host: '127.0.0.1:4141' }, 'http://127.0.0.1:4141/api/median'],
    ['the base URL’s host takes its scheme', { host: 'demo.loca.lt' }, 'https://demo.loca.lt/api/median'],
    ['an IPv6 host', { host: '[::1]:4141' }, 'http://[::1]:4141/api/median'],
    ['no Host header: the base URL', {}, 'https://demo.loca.lt/api/median'],
    ['a Host that is not a host: the base URL', { host: 'evil.test/@x' }, 'https://demo.loca.lt/api/median'],
  ])('URL of %s: the host and port the request had', (_name, headers, url) => {
    const record = makeRecord({ request: { method: 'POST', path: '/api/median', headers: { 'content-type': 'application/json', ...headers }, body: '{}' } });
    expect(toHar([record], { creator, baseUrl: 'https://demo.loca.lt' }).log.entries[0]?.request.url).toBe(url);
  });
});
