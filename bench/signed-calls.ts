/**
 * The traffic of the benchmark: realistic tool calls (SPEC §1.2), each with a
 * unique toolCallId, signed over their exact bytes with the secret derived
 * from a bench-only MEDIAN_KEY, so the recording proxy records them `valid`.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { SIGNATURE_HEADER, assertMedianKey, deriveToolSecret, signBody, type ToolCall } from '../src/median/index.js';

/** A well-formed, bench-only key (median_key_ + 32 alphanumerics); it signs nothing real. */
export const BENCH_MEDIAN_KEY = 'median_key_BENCHbench0123456789abcdefABCDEF';
assertMedianKey(BENCH_MEDIAN_KEY);

export const BENCH_ROUTE = '/api/median';

export interface PreparedRequest {
  method: string;
  path: string;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

export function benchSecret(): Buffer {
  return deriveToolSecret(BENCH_MEDIAN_KEY);
}

/** The ids of call `index` of a run: unique toolCallIds, a thousand conversations. */
export function callIds(runTag: string, index: number): { toolCallId: string; conversationId: string } {
  return {
    toolCallId: `call_${`${runTag}${index.toString(16).padStart(24, '0')}`.slice(-32)}`,
    conversationId: `conv_${runTag}${(index % 1_000).toString().padStart(4, '0')}`,
  };
}

/** A tool call like Median sends: an order lookup for a verified visitor. */
export function toolCallBody(runTag: string, index: number): Buffer {
  const { toolCallId, conversationId } = callIds(runTag, index);
  const call: ToolCall = {
    tool: 'lookup_order',
    toolCallId,
    input: { orderId: `ord_${100_000 + (index % 900_000)}`, includeItems: true },
    context: {
      conversationId,
      risk: 'low',
      visitor: { verified: true, externalId: `user_${index % 5_000}`, email: 'ada@example.com', name: 'Ada Lovelace' },
    },
  };
  return Buffer.from(JSON.stringify(call), 'utf8');
}

/** One signed POST to the route, signed now (valid for five minutes). */
export function signedToolCall(secret: Uint8Array, runTag: string, index: number, now: number = Date.now()): PreparedRequest {
  const body = toolCallBody(runTag, index);
  return {
    method: 'POST',
    path: BENCH_ROUTE,
    headers: {
      'content-type': 'application/json',
      'content-length': String(body.length),
      'user-agent': 'Median/1.0 (median-dev bench)',
      [SIGNATURE_HEADER]: signBody(secret, body, now),
    },
    body,
  };
}

/** `count` signed calls made up front, so signing is not on the measured clock. */
export function prepareSignedCalls(secret: Uint8Array, runTag: string, count: number): PreparedRequest[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => signedToolCall(secret, runTag, i, now));
}

/** A short random hex tag so runs do not repeat toolCallIds. */
export function newRunTag(): string {
  return Math.floor(Math.random() * 0xffffffff).toString(16).padStart(8, '0');
}
