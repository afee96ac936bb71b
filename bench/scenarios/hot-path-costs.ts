/**
 * What each per-request step of recording costs on its own: the functions the
 * recording proxy and the recorder run for every call, timed in a loop in
 * this process (no sockets, no other process competing), µs per call.
 */
import { performance } from 'node:perf_hooks';
import { classifyRequest, judgeAnswer, newRecordId, verifySignature, SIGNATURE_HEADER } from '../../src/median/index.js';
import { createSecretMasker } from '../../src/shared/index.js';
import { sampleCallRecord } from '../sample-record.js';
import { BENCH_MEDIAN_KEY, benchSecret, signedToolCall } from '../signed-calls.js';

export interface StepCost {
  step: string;
  /** Who runs it per request. */
  where: string;
  microseconds: number;
}

function timePerCall(iterations: number, run: (i: number) => unknown): number {
  let sink = 0;
  const warmup = Math.min(2_000, iterations);
  for (let i = 0; i < warmup; i += 1) if (run(i)) sink += 1;
  const started = performance.now();
  for (let i = 0; i < iterations; i += 1) if (run(i)) sink += 1;
  const elapsed = performance.now() - started;
  if (sink < 0) console.log(sink); // keeps the results alive
  return (elapsed * 1000) / iterations;
}

export function measureHotPathCosts(iterations = 20_000): StepCost[] {
  const secret = benchSecret();
  const call = signedToolCall(secret, 'c0ffee00', 1);
  const header = String(call.headers[SIGNATURE_HEADER]);
  const headers = call.headers as Record<string, string>;
  const record = sampleCallRecord('c0ffee00', 1);
  const answer = Buffer.from(record.response!.body, 'utf8');
  const masker = createSecretMasker([BENCH_MEDIAN_KEY]);
  const masked = masker.maskRecord(record);
  const now = Date.now();
  return [
    { step: '`newRecordId()` (crypto.getRandomValues + hex)', where: 'proxy, every request', microseconds: timePerCall(iterations, () => newRecordId(now)) },
    { step: '`verifySignature()` (HMAC-SHA256 of ~300 B)', where: 'proxy, every route request', microseconds: timePerCall(iterations, () => verifySignature(header, call.body, secret, now)) },
    { step: '`classifyRequest()` (JSON.parse + checks)', where: 'proxy, every route request', microseconds: timePerCall(iterations, () => classifyRequest('POST', headers, call.body)) },
    {
      step: '`judgeAnswer()` (the verdict)',
      where: 'proxy, every record',
      microseconds: timePerCall(iterations, () => judgeAnswer({ status: 200, headers: { 'content-type': 'application/json' }, body: answer, durationMs: 2 })),
    },
    { step: '`maskRecord()` (deep copy, regex per string)', where: 'recorder, every append', microseconds: timePerCall(iterations, () => masker.maskRecord(record)) },
    { step: '`JSON.stringify` + `Buffer.from` of a record', where: 'recorder, every append', microseconds: timePerCall(iterations, () => Buffer.from(`${JSON.stringify(masked)}\n`, 'utf8')) },
  ];
}
