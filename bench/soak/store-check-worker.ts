/**
 * Worker thread of store-check.ts: reads the call store the way `median-dev
 * calls --json` does (createCallStore(dataDir).list()) off the soak's main
 * thread, so the steady sending is not paused by parsing ~50,000 records.
 */
import { parentPort } from 'node:worker_threads';
import { createCallStore } from '../../src/recorder/index.js';

export interface StoreCheckRequest {
  seq: number;
  dataDir: string;
  /** toolCallIds that were answered and must be in the store. */
  wanted: string[];
}

export interface StoreCheckAnswer {
  seq: number;
  missing: string[];
  /** Wanted ids recorded more than once (a retry of a call whose answer was lost on the way back). */
  recordedTwice: number;
  /** Wanted ids whose newest record is not `signature: valid`, `verdict: answered`, status 200. */
  unexpected: Array<{ toolCallId: string; signature: string; verdict: string; status: number | null }>;
  storeRecords: number;
  readMs: number;
  error?: string;
}

const port = parentPort;
if (!port) throw new Error('store-check-worker runs as a worker thread.');

port.on('message', (request: StoreCheckRequest) => {
  void (async () => {
    const started = performance.now();
    try {
      const records = await createCallStore(request.dataDir).list();
      const newest = new Map<string, { count: number; signature: string; verdict: string; status: number | null }>();
      for (const record of records) {
        const seen = newest.get(record.toolCallId);
        if (seen) seen.count += 1;
        else newest.set(record.toolCallId, { count: 1, signature: record.signature, verdict: record.verdict.kind, status: record.response?.status ?? null });
      }
      const answer: StoreCheckAnswer = { seq: request.seq, missing: [], recordedTwice: 0, unexpected: [], storeRecords: records.length, readMs: 0 };
      for (const id of request.wanted) {
        const seen = newest.get(id);
        if (!seen) {
          answer.missing.push(id);
          continue;
        }
        if (seen.count > 1) answer.recordedTwice += 1;
        if (seen.signature !== 'valid' || seen.verdict !== 'answered' || seen.status !== 200) {
          answer.unexpected.push({ toolCallId: id, signature: seen.signature, verdict: seen.verdict, status: seen.status });
        }
      }
      answer.readMs = performance.now() - started;
      port.postMessage(answer);
    } catch (error) {
      const answer: StoreCheckAnswer = { seq: request.seq, missing: [], recordedTwice: 0, unexpected: [], storeRecords: 0, readMs: performance.now() - started, error: error instanceof Error ? error.message : String(error) };
      port.postMessage(answer);
    }
  })();
});
