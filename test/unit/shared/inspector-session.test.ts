import { describe, expect, it } from 'vitest';
import { createSecretMasker, maskInspectorCredentials, maskSecretValue } from '../../../src/shared/index.js';

const SESSION = 'bm5sIyoU8sPRqDD6baCp4cg-KcNN9phsmkrnXu_gH3w';

describe('maskInspectorCredentials', () => {
  it.each([
    ['x-median-dev-session', SESSION, '****gH3w'],
    ['X-Median-Dev-Session', ` ${SESSION} `, '****gH3w'],
    ['cookie', `median_dev_inspector=${SESSION}`, 'median_dev_inspector=****gH3w'],
    ['cookie', `a=1; median_dev_inspector=${SESSION}; b=2`, 'a=1; median_dev_inspector=****gH3w; b=2'],
    ['cookie', `a=1;Median_Dev_Inspector = ${SESSION}`, 'a=1;Median_Dev_Inspector = ****gH3w'],
    ['cookie', `not_median_dev_inspector=${SESSION}`, `not_median_dev_inspector=${SESSION}`],
    ['cookie', 'a=1; b=2', 'a=1; b=2'],
    ['cookie', `median_dev_inspector=${SESSION} tail ; b=2`, 'median_dev_inspector=****tail ; b=2'],
    ['x-other', SESSION, SESSION],
  ])('%s: %s', (name, value, masked) => {
    expect(maskInspectorCredentials(name, value, maskSecretValue)).toBe(masked);
  });

  it('is applied by the masker to a recorded request, also on the JSON fast path', () => {
    const masker = createSecretMasker([]);
    const record = { request: { body: '', headers: { cookie: `median_dev_inspector=${SESSION}`, 'x-median-dev-session': SESSION } } };
    const { json } = masker.maskToJson(record);
    expect(json).not.toContain(SESSION);
    expect(masker.maskRecord(record).request.headers).toEqual({ cookie: 'median_dev_inspector=****gH3w', 'x-median-dev-session': '****gH3w' });
  });
});
