import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import {
  REDACTED,
  createSecretMasker,
  maskAuthorization,
  maskSecretValue,
} from '../../../src/shared/index.js';
import { KEY, MASKED_KEY, makeRecord } from '../../helpers/make-record.js';
import { escapeJsonControls } from '../../../src/shared/output-sanitiser.js';

const TOOL_SECRET = 'f0e1d2c3'.repeat(8);

describe('maskSecretValue', () => {
  it.each([
    [KEY, MASKED_KEY],
    [TOOL_SECRET, `****${TOOL_SECRET.slice(-4)}`],
    ['shortsecret', '****'],
    ['median_key_short', 'median_key_****hort'],
    [MASKED_KEY, MASKED_KEY],
    ['****abcd', '****abcd'],
  ])('%s → %s', (value, masked) => {
    expect(maskSecretValue(value)).toBe(masked);
  });
});

describe('maskAuthorization', () => {
  it.each([
    [`Bearer ${KEY}`, `Bearer ${MASKED_KEY}`],
    [`bearer   ${KEY}`, `bearer   ${MASKED_KEY}`],
    [`Basic ${'dXNlcjpwYXNzd29yZA=='}`, 'Basic ****ZA=='],
    [KEY, MASKED_KEY],
    [`Bearer ${MASKED_KEY}`, `Bearer ${MASKED_KEY}`],
    ['', ''],
  ])('%s → %s', (value, masked) => {
    expect(maskAuthorization(value)).toBe(masked);
  });
});

describe('createSecretMasker', () => {
  // Built in each test, not while the file is collected, so mutation testing
  // can tell which tests run the masker (see stryker.config.mjs).
  let masker: ReturnType<typeof createSecretMasker>;
  beforeEach(() => {
    masker = createSecretMasker([KEY, TOOL_SECRET]);
  });

  it('masks the Bearer key in the Authorization header, whatever its case or shape', () => {
    const record = makeRecord({
      request: {
        method: 'GET',
        path: '/api/median',
        headers: { Authorization: 'Bearer sk_live_notInTheListButStillACredential', 'proxy-authorization': [`Bearer ${KEY}`] },
        body: '',
      },
    });
    const masked = masker.maskRecord(record);
    expect(masked.request.headers.Authorization).toBe('Bearer ****tial');
    expect(masked.request.headers['proxy-authorization']).toEqual([`Bearer ${MASKED_KEY}`]);
  });

  it.each([
    ['a request body', (key: string) => makeRecord({ request: { method: 'POST', path: '/api/median', headers: {}, body: `{"input":{"note":"${key}"}}` } })],
    [
      'a nested response string',
      (key: string) =>
        makeRecord({ response: { status: 200, headers: { 'x-debug': `key=${key}` }, body: JSON.stringify({ result: { deep: [{ k: key }] } }) } }),
    ],
    ['the agent text', (key: string) => makeRecord({ verdict: { kind: 'answered', agentSees: `echo ${key}`, warnings: [] } })],
    ['an error message', (key: string) => makeRecord({ error: { code: 'x', message: `failed with ${key}` } })],
    ['a field added later', (key: string) => ({ ...makeRecord(), extra: { list: ['a', `${key}!`] } })],
  ])('masks the key in %s', (_where, build) => {
    const masked = JSON.stringify(masker.maskRecord(build(KEY)));
    expect(masked).not.toContain(KEY);
    expect(masked).toContain(MASKED_KEY);
  });

  it('masks every given secret, also JSON-escaped and URL-encoded', () => {
    const odd = 'p@ss"word/with spaces';
    const oddMasker = createSecretMasker([odd]);
    const record = makeRecord({
      request: { method: 'POST', path: `/api/median?s=${encodeURIComponent(odd)}`, headers: {}, body: JSON.stringify({ p: odd }) },
    });
    const text = JSON.stringify(oddMasker.maskRecord(record));
    expect(text).not.toContain(JSON.stringify(odd).slice(1, -1));
    expect(text).not.toContain(encodeURIComponent(odd));
    expect(oddMasker.mask(`x ${odd} y`)).toBe('x ****aces y');
  });

  it('masks a Median-key-shaped string it was not told about', () => {
    const other = 'median_key_' + 'Q'.repeat(36) + 'wxyz';
    expect(createSecretMasker([]).mask(`key ${other}.`)).toBe('key median_key_****wxyz.');
  });

  it('ignores secrets too short to mask safely and leaves the input untouched', () => {
    const record = makeRecord({ tool: 'orderStatus' });
    const before = structuredClone(record);
    const masked = createSecretMasker(['', 'order']).maskRecord(record);
    expect(masked).toEqual(before);
    expect(masked).not.toBe(record);
    createSecretMasker([KEY]).maskRecord({ ...record, request: { ...record.request, body: KEY } });
    expect(record).toEqual(before);
  });
});

describe('redactVisitor', () => {
  const record = makeRecord({
    response: { status: 200, headers: {}, body: '{"result":{"greeting":"Hi Ada Lovelace, mail sent to ada@example.com"}}' },
  });

  it('masks the visitor email and name in the body and wherever they are echoed', () => {
    const masked = createSecretMasker([], { redactVisitor: true }).maskRecord(record);
    const body = JSON.parse(masked.request.body) as { context: { visitor: Record<string, unknown> }; input: unknown };
    expect(body.context.visitor).toEqual({ verified: false, email: REDACTED, name: REDACTED });
    expect(body.input).toEqual(JSON.parse(record.request.body).input);
    expect(masked.response?.body).toBe(`{"result":{"greeting":"Hi ${REDACTED}, mail sent to ${REDACTED}"}}`);
    expect(JSON.stringify(masked)).not.toMatch(/ada@example\.com|Ada Lovelace/);
  });

  it('keeps every other byte of the body, whitespace included', () => {
    const pretty = '{\n  "context": {\n    "visitor": { "verified": true, "name": "Bo \\"B\\" Li", "externalId": "u1" }\n  }\n}';
    const masked = createSecretMasker([], { redactVisitor: true }).maskRecord(
      makeRecord({ request: { method: 'POST', path: '/', headers: {}, body: pretty } }),
    );
    expect(masked.request.body).toBe(pretty.replace('"Bo \\"B\\" Li"', `"${REDACTED}"`));
  });

  it('redacts a cut body that is no longer JSON', () => {
    const cut = '{"context":{"visitor":{"verified":false,"email":"ada@example.com","name":"Ada Lovelace"},"risk":"lo';
    const masked = createSecretMasker([], { redactVisitor: true }).maskRecord(
      makeRecord({ request: { method: 'POST', path: '/', headers: {}, body: cut, truncated: true } }),
    );
    expect(masked.request.body).not.toMatch(/ada@example\.com|Ada Lovelace/);
  });

  it('is off by default', () => {
    expect(createSecretMasker([]).maskRecord(record).request.body).toContain('ada@example.com');
  });
});

describe('maskToJson', () => {
  const PLAIN = 'sk_live_abcdefghijklmnop';
  const secretWithQuote = 'p@ss"word/with spaces';
  const cases: Array<[string, CallRecord, { secrets?: string[]; redactVisitor?: boolean }]> = [
    ['a clean record', makeRecord(), {}],
    ['the key in a body', makeRecord({ request: { method: 'POST', path: '/api/median', headers: {}, body: `{"k":"${KEY}"}` } }), {}],
    ['a key-shaped string nobody named', makeRecord({ error: { code: 'x', message: `median_key_${'Q'.repeat(40)}` } }), { secrets: [] }],
    [
      'an Authorization header in any case',
      makeRecord({ request: { method: 'GET', path: '/api/median', headers: { AuThOrIzAtIoN: 'Bearer sk_live_abcdefghijklmnop' }, body: '' } }),
      {},
    ],
    ['a secret JSON-escaped in a body', makeRecord({ request: { method: 'POST', path: '/', headers: {}, body: JSON.stringify({ p: secretWithQuote }) } }), { secrets: [secretWithQuote] }],
    ['a secret URL-encoded in a path', makeRecord({ request: { method: 'POST', path: `/x?s=${encodeURIComponent(secretWithQuote)}`, headers: {}, body: '' } }), { secrets: [secretWithQuote] }],
    ['visitor fields with redactVisitor', makeRecord(), { redactVisitor: true }],
    ['an already masked key', makeRecord({ error: { code: 'x', message: MASKED_KEY } }), {}],
    // Each reason the record's JSON text is not plain ASCII without escapes: the masker must look closer.
    // (A secret with no key prefix and split, so no spelling of it shows in the text as it is.)
    ['a secret split by a raw zero-width space', makeRecord({ error: { code: 'x', message: `${PLAIN.slice(0, 10)}\u200b${PLAIN.slice(10)}` } }), { secrets: [PLAIN] }],
    ['a secret split by `\\u200b` escape text', makeRecord({ error: { code: 'x', message: `${PLAIN.slice(0, 10)}\\u200b${PLAIN.slice(10)}` } }), { secrets: [PLAIN] }],
    ['a secret split by a control (a JSON escape)', makeRecord({ error: { code: 'x', message: `${PLAIN.slice(0, 10)}\u0007${PLAIN.slice(10)}` } }), { secrets: [PLAIN] }],
    ['a secret split by octal escape text', makeRecord({ error: { code: 'x', message: `${PLAIN.slice(0, 10)}\\0342\\0200\\0213${PLAIN.slice(10)}` } }), { secrets: [PLAIN] }],
    ['a secret in a JSON body with an escaped slash', makeRecord({ request: { method: 'POST', path: '/', headers: {}, body: `{"k":"${PLAIN.slice(0, 10)}\\/${PLAIN.slice(10)}"}` } }), { secrets: [`${PLAIN.slice(0, 10)}/${PLAIN.slice(10)}`] }],
    ['a secret escaped letter by letter in a JSON body', makeRecord({ request: { method: 'POST', path: '/', headers: {}, body: `{"k":"${[...PLAIN].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"}` } }), { secrets: [PLAIN] }],
    ['a DEL character next to a secret', makeRecord({ error: { code: 'x', message: `${PLAIN}\u007f` } }), { secrets: [PLAIN] }],
  ];

  it.each(cases)('writes what maskRecord and JSON.stringify write: %s', (_name, record, { secrets = [KEY], redactVisitor = false }) => {
    const masker = createSecretMasker(secrets, { redactVisitor });
    const out = masker.maskToJson(record);
    expect(out.json).toBe(JSON.stringify(masker.maskRecord(record)));
    expect(JSON.parse(out.json)).toEqual(out.record);
  });

  it('says the text is ascii exactly when it is printable ASCII with no backslash before u, 0 or / (nothing for escapeJsonControls, a byte a character)', () => {
    const masker = createSecretMasker([KEY]);
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const out = masker.maskToJson(makeRecord({ response: { status: 200, headers: {}, body: text } }));
        expect(out.ascii).toBe(/^[\u0020-\u007e]*$/.test(out.json) && !/\\[u0/]/.test(out.json));
        if (out.ascii) expect(escapeJsonControls(out.json)).toBe(out.json);
      }),
      { numRuns: 500 },
    );
    expect(masker.maskToJson(makeRecord()).ascii).toBe(true);
    expect(masker.maskToJson(makeRecord({ error: { code: 'x', message: 'café' } })).ascii).toBe(false);
    expect(masker.maskToJson(makeRecord({ error: { code: 'x', message: 'a\\/b' } })).ascii).toBe(false);
  });

  it('hands back the record itself when nothing in it needs masking, and a copy otherwise', () => {
    const masker = createSecretMasker([KEY]);
    const clean = makeRecord();
    expect(masker.maskToJson(clean).record).toBe(clean);
    const dirty = makeRecord({ error: { code: 'x', message: KEY } });
    const out = masker.maskToJson(dirty);
    expect(out.record).not.toBe(dirty);
    expect(out.json).not.toContain(KEY);
  });

  it('never writes a secret that maskRecord would mask, whatever surrounds it', () => {
    const secret = 'Zq7"Xw2\\Lp/ü%41';
    const masker = createSecretMasker([secret, KEY]);
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.constantFrom(secret, KEY, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)), (before, after, form) => {
        const record = makeRecord({ response: { status: 200, headers: { 'x-note': before }, body: `${before}${form}${after}` } });
        expect(masker.maskToJson(record).json).toBe(JSON.stringify(masker.maskRecord(record)));
      }),
      { numRuns: 300 },
    );
  });
});

describe('maskAuthorization: shapes', () => {
  it.each([
    ['indentation before the scheme kept', `  Bearer ${KEY}`, `  Bearer ${MASKED_KEY}`],
    ['spaces after the credential dropped', `Bearer ${KEY}  `, `Bearer ${MASKED_KEY}`],
    ['only spaces', '   ', '   '],
    ['a bare credential with a trailing space', 'abcdefghijklmnop ', '****mnop'],
    ['a scheme that does not start the value: masked whole', '=x tok12345', '****'],
    ['a scheme with dots and dashes', `AWS4-HMAC.v2 ${KEY}`, `AWS4-HMAC.v2 ${MASKED_KEY}`],
  ])('%s', (_label, value, masked) => {
    expect(maskAuthorization(value)).toBe(masked);
  });
});

describe('createSecretMasker: which secrets count', () => {
  it('masks a secret of exactly 8 characters', () => {
    expect(createSecretMasker(['abcdefgh']).mask('x abcdefgh y')).toBe('x **** y');
  });

  it('ignores a secret of 7 characters, also its longer base64 spelling', () => {
    const short = 'abcdefg';
    const base64 = Buffer.from(short).toString('base64');
    expect(base64.length).toBeGreaterThanOrEqual(8);
    expect(createSecretMasker([short]).mask(`${short} ${base64}`)).toBe(`${short} ${base64}`);
  });

  it('skips a secret that is not a string (an unset variable) instead of throwing', () => {
    const masker = createSecretMasker([undefined as unknown as string, KEY]);
    expect(masker.mask(`k=${KEY}`)).toBe(`k=${MASKED_KEY}`);
  });

  it('leaves key-shaped text alone with maskKeyShapes: false, and masks it by default', () => {
    const other = 'median_key_' + 'Q'.repeat(36) + 'wxyz';
    expect(createSecretMasker([], { maskKeyShapes: false }).mask(other)).toBe(other);
    expect(createSecretMasker([], { maskKeyShapes: true }).mask(other)).toBe('median_key_****wxyz');
    expect(createSecretMasker([KEY], { maskKeyShapes: false }).mask(`${KEY} ${other}`)).toBe(`${MASKED_KEY} ${other}`);
  });
});

describe('createSecretMasker: several places and overlaps', () => {
  const LONG = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH';

  it('masks each place separately and keeps the text between them', () => {
    expect(createSecretMasker([KEY]).mask(`a ${KEY} b ${KEY} c`)).toBe(`a ${MASKED_KEY} b ${MASKED_KEY} c`);
  });

  it('masks a shorter secret that comes before a longer one in the text', () => {
    const longer = 'LLLLLLLLLLLLLLLLwxyz';
    const shorter = 'SSSSSSSSSSSSSSSSabcd'.slice(4);
    expect(createSecretMasker([longer, shorter]).mask(`${shorter} and ${longer}`)).toBe('****abcd and ****wxyz');
  });

  it('masks two secrets that touch as two masks', () => {
    expect(createSecretMasker(['abcdefgh', 'ijklmnop']).mask('[abcdefghijklmnop]')).toBe('[********]');
  });

  it('names a joined stretch by its longest secret, wherever that one starts', () => {
    const left = LONG.slice(0, 12); // abcdefghijkl
    const right = LONG.slice(8, 28); // ijkl…1 (20)
    expect(createSecretMasker([left, right]).mask(`<${LONG.slice(0, 28)}>`)).toBe(`<${maskSecretValue(right)}>`);
  });

  it('names a joined stretch by the first of two equally long secrets', () => {
    const left = LONG.slice(0, 16);
    const right = LONG.slice(12, 28);
    expect(createSecretMasker([left, right]).mask(LONG.slice(0, 28))).toBe(maskSecretValue(left));
  });

  it('keeps the longest secret’s name along a chain of three overlapping secrets', () => {
    const a = LONG.slice(0, 20);
    const b = LONG.slice(16, 28);
    const c = LONG.slice(24, 40);
    expect(createSecretMasker([a, b, c]).mask(LONG.slice(0, 40))).toBe(maskSecretValue(a));
  });
});

describe('redactVisitor: echoes of the visitor', () => {
  const withVisitor = (visitor: Record<string, unknown>, echo: string) =>
    makeRecord({
      request: { method: 'POST', path: '/api/median', headers: {}, body: JSON.stringify({ context: { visitor } }) },
      response: { status: 200, headers: {}, body: echo },
    });
  const masker = () => createSecretMasker([], { redactVisitor: true });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['a name echoed twice', { name: 'Ada Lovelace' }, 'Ada Lovelace, yes Ada Lovelace', `${REDACTED}, yes ${REDACTED}`],
    ['a name inside a longer word is left', { name: 'Ada' }, 'Adam met Ada.', `Adam met ${REDACTED}.`],
    ['an email inside other text is masked', { email: 'ada@example.com' }, 'mailto:ada@example.com?x', `mailto:${REDACTED}?x`],
    ['a two-letter name is masked', { name: 'Bo' }, 'Hi Bo!', `Hi ${REDACTED}!`],
    ['a one-letter name is left', { name: 'A' }, 'A plan', 'A plan'],
    ['a name with quotes, echoed in JSON', { name: 'Bo "B" Li' }, JSON.stringify({ greeting: 'Hi Bo "B" Li!' }), `{"greeting":"Hi ${REDACTED}!"}`],
    ['a name with letters beyond ASCII, as a whole word', { name: 'Zoë' }, 'Zoë and Zoëy', `${REDACTED} and Zoëy`],
  ])('%s', (_label, visitor, echo, expected) => {
    expect(masker().maskRecord(withVisitor(visitor, echo)).response?.body).toBe(expected);
  });

  it('masks a name whose escapes are not valid JSON as the text stands', () => {
    const record = makeRecord({
      request: { method: 'POST', path: '/', headers: {}, body: '{"context":{"visitor":{"name":"Bo \\q Li"}}}' },
      response: { status: 200, headers: {}, body: 'Hi Bo \\q Li' },
    });
    const masked = masker().maskRecord(record);
    expect(masked.request.body).toBe(`{"context":{"visitor":{"name":"${REDACTED}"}}}`);
    expect(masked.response?.body).toBe(`Hi ${REDACTED}`);
  });

  it('redacts a visitor name holding a lone surrogate (JSON "\\ud800") instead of throwing', () => {
    const record = makeRecord({
      request: { method: 'POST', path: '/', headers: {}, body: '{"context":{"visitor":{"name":"Bo\\ud800"}}}' },
      response: { status: 200, headers: {}, body: 'Hi Bo\uD800' },
    });
    const masked = masker().maskRecord(record);
    expect(masked.request.body).toBe(`{"context":{"visitor":{"name":"${REDACTED}"}}}`);
    expect(masked.response?.body).toBe(`Hi ${REDACTED}`);
  });

  it('copes with a record without a request or without a text body', () => {
    expect(masker().maskRecord({} as CallRecord)).toEqual({});
    expect(masker().maskToJson({} as CallRecord).json).toBe('{}');
    const noBody = { request: { method: 'GET' } } as unknown as CallRecord;
    expect(masker().maskRecord(noBody)).toEqual(noBody);
    expect(masker().maskToJson(noBody).record).toBe(noBody);
  });

  it('hands back the record itself when its body holds no visitor', () => {
    const record = makeRecord({ request: { method: 'POST', path: '/', headers: {}, body: '{"input":{}}' }, response: { status: 200, headers: {}, body: '{}' } });
    expect(masker().maskToJson(record).record).toBe(record);
  });
});

describe('maskToJson: a secret that JSON writes differently in context', () => {
  it('masks a secret ending in half of a surrogate pair that a record holds whole', () => {
    const secret = 'abcdefgh\uD83D';
    const masker = createSecretMasker([secret]);
    const record = makeRecord({ response: { status: 200, headers: {}, body: 'x abcdefgh\uD83D\uDE80 y' } });
    const out = masker.maskToJson(record);
    expect(out.json).toBe(JSON.stringify(masker.maskRecord(record)));
    expect(out.json).not.toContain('abcdefgh');
  });
});

describe('masker constants as users see them', () => {
  it.each([
    ['text before four stars is not a mask', 'abcdefgh****', '****'],
    ['text after four stars and a tail is not a mask', '****abcdefgh', '****'],
    ['a mask with its tail is kept', '****wxyz', '****wxyz'],
  ])('%s', (_label, value, masked) => {
    expect(maskSecretValue(value)).toBe(masked);
  });

  it('masks any Proxy-Authorization credential, known or not', () => {
    const record = makeRecord({
      request: { method: 'GET', path: '/', headers: { 'Proxy-Authorization': 'Basic dXNlcjpwYXNzd29yZA==' }, body: '' },
    });
    expect(createSecretMasker([]).maskRecord(record).request.headers['Proxy-Authorization']).toBe('Basic ****ZA==');
  });

  it('writes "[redacted]" for visitor fields, also where the body spaces its JSON', () => {
    const record = makeRecord({
      request: { method: 'POST', path: '/', headers: {}, body: '{"context":{"visitor" : {"name" : "Ada Lovelace"}}}' },
    });
    expect(createSecretMasker([], { redactVisitor: true }).maskRecord(record).request.body).toBe(
      '{"context":{"visitor" : {"name" : "[redacted]"}}}',
    );
  });
});
