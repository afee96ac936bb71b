/**
 * Checks, while the soak runs and at its end, that every answered call is in
 * the store. The store keeps the newest 45,000–50,000 records (retention), so
 * it is read at every drop point (every 10,000 calls in the full run), long
 * before retention could delete a checked call. A call missing from a read
 * is looked for again SUSPECT_RECHECK_MS later; missing twice, it is lost.
 */
import { CallLedger, StoreState } from './call-ledger.js';
import type { StoreChecker } from './store-check.js';

export interface StoreAuditResult {
  checks: number;
  /** Wanted calls found recorded more than once (retries of calls whose answer was lost on the way back). */
  recordedTwice: number;
  /** The first few answered calls whose record says something else than valid/answered/200. */
  unexpected: Array<{ toolCallId: string; signature: string; verdict: string; status: number | null }>;
  unexpectedCount: number;
  /** The first few lost toolCallIds. */
  lostExamples: string[];
  storeRecordsAtEnd: number;
  /** The slowest read of the whole store (in a worker thread), ms. */
  maxReadMs: number;
  errors: string[];
}

/** Answers this recent may not be appended yet; they wait for the next check. */
const SETTLE_MS = 2_000;
const SUSPECT_RECHECK_MS = 5_000;

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

export function createStoreAudit(ledger: CallLedger, checker: StoreChecker, log: (line: string) => void) {
  const result: StoreAuditResult = { checks: 0, recordedTwice: 0, unexpected: [], unexpectedCount: 0, lostExamples: [], storeRecordsAtEnd: 0, maxReadMs: 0, errors: [] };
  let chain: Promise<void> = Promise.resolve();

  const read = async (indexes: number[]): Promise<number[]> => {
    const answer = await checker.check(indexes.map((i) => ledger.toolCallId(i)));
    result.checks += 1;
    result.maxReadMs = Math.max(result.maxReadMs, answer.readMs);
    result.storeRecordsAtEnd = answer.storeRecords;
    result.recordedTwice += answer.recordedTwice;
    result.unexpectedCount += answer.unexpected.length;
    for (const u of answer.unexpected) if (result.unexpected.length < 10) result.unexpected.push(u);
    const missing = new Set(answer.missing);
    const stillMissing: number[] = [];
    for (const i of indexes) {
      if (missing.has(ledger.toolCallId(i))) stillMissing.push(i);
      else ledger.store[i] = StoreState.Recorded;
    }
    return stillMissing;
  };

  const audit = async (settleMs: number): Promise<void> => {
    const wanted = ledger.unchecked(Date.now() - settleMs);
    if (wanted.length === 0) return;
    try {
      const suspects = await read(wanted);
      if (suspects.length === 0) return;
      log(`  store: ${suspects.length} answered calls not found yet; looking again in ${SUSPECT_RECHECK_MS / 1000} s`);
      await delay(SUSPECT_RECHECK_MS);
      for (const i of await read(suspects)) {
        ledger.store[i] = StoreState.Lost;
        if (result.lostExamples.length < 10) result.lostExamples.push(ledger.toolCallId(i));
      }
    } catch (error) {
      result.errors.push(error instanceof Error ? error.message : String(error));
    }
  };

  return {
    /** Queues a check of the calls answered until SETTLE_MS ago (runs in the background). */
    checkInBackground(): void {
      chain = chain.then(() => audit(SETTLE_MS));
    },
    /** After the last answer: checks every remaining call. */
    async finish(): Promise<StoreAuditResult> {
      await chain;
      await delay(SETTLE_MS);
      await audit(0);
      return result;
    },
  };
}
