/**
 * Classifying, signature checks and records run in one batch per turn of
 * the event loop, after that turn's answers went out: callers never wait for
 * them, and running them together keeps that code hot (measured: about a
 * fifth less CPU per request than doing each inline).
 */
import type { CallRecord } from '../median/index.js';
import type { Logger } from '../shared/index.js';
import { buildCallRecord, decodeAnswer, hasEncodedAnswer, type RecordSettings } from './build-call-record.js';
import type { CallExchange } from './call-exchange.js';

export interface RequestStartedInfo {
  id: string;
  method: string;
  path: string;
  toolCallId?: string;
  tool?: string;
}

export interface RecordBatchOptions {
  settings: RecordSettings;
  logger: Logger;
  onRecord(record: CallRecord): void | Promise<void>;
  onRequestStarted?(info: RequestStartedInfo): void;
}

export interface RecordBatch {
  /** The request is in: announce it (onRequestStarted) on the next batch. */
  started(exchange: CallExchange): void;
  /** Both sides are done: record it on the next batch. */
  finished(exchange: CallExchange): void;
  /** Runs what is queued now (used by close()). */
  flushNow(): void;
  /** Resolves once every onRecord promise handed back so far has settled. */
  settled(): Promise<void>;
}

export function createRecordBatch(options: RecordBatchOptions): RecordBatch {
  const { settings, logger, onRecord, onRequestStarted } = options;
  let startedQueue: CallExchange[] = [];
  let finishedQueue: CallExchange[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  // onRecord promises not settled yet: a count, not a Set (see in-flight-list.ts for why).
  let pending = 0;
  let onIdle: Array<() => void> = [];
  const settledOne = (): void => {
    pending -= 1;
    if (pending > 0 || onIdle.length === 0) return;
    const waiting = onIdle;
    onIdle = [];
    for (const wake of waiting) wake();
  };

  const deliver = (record: CallRecord): void => {
    try {
      const outcome = onRecord(record);
      if (outcome && typeof (outcome as Promise<void>).then === 'function') {
        pending += 1;
        (outcome as Promise<void>).then(settledOne, (error: unknown) => {
          settledOne();
          logger.error('Recording a call failed.', { id: record.id, error: String(error) });
        });
      }
    } catch (error) {
      logger.error('Recording a call failed.', { id: record.id, error: String(error) });
    }
  };

  const announce = (exchange: CallExchange): void => {
    if (!onRequestStarted) return;
    exchange.inspect();
    const info: RequestStartedInfo = { id: exchange.id, method: exchange.method, path: exchange.path };
    const call = exchange.classified?.toolCall;
    const toolCallId = call?.toolCallId ?? exchange.classified?.partial?.toolCallId;
    const tool = call?.tool ?? exchange.classified?.partial?.tool;
    if (toolCallId !== undefined) info.toolCallId = toolCallId;
    if (tool !== undefined) info.tool = tool;
    try {
      onRequestStarted(info);
    } catch (error) {
      logger.error('onRequestStarted failed.', { id: exchange.id, error: String(error) });
    }
  };

  const build = (exchange: CallExchange, facts: ReturnType<CallExchange['facts']>, decoded?: Parameters<typeof buildCallRecord>[2]): void => {
    let built: CallRecord;
    try {
      built = buildCallRecord(facts, settings, decoded);
    } catch (error) {
      // A bug, but one request must not take the proxy down.
      logger.error('Building a call record failed.', { id: exchange.id, error: String(error) });
      return;
    }
    deliver(built);
  };

  const record = (exchange: CallExchange): void => {
    const facts = exchange.facts();
    if (!hasEncodedAnswer(facts)) {
      build(exchange, facts);
      return;
    }
    // A compressed answer is decoded on zlib's threads, bounded: counted as pending, so close() waits for its record.
    pending += 1;
    decodeAnswer(facts, settings)
      .then((decoded) => build(exchange, facts, decoded))
      .catch((error: unknown) => logger.error('Decoding an answer for its record failed.', { id: exchange.id, error: String(error) }))
      .finally(settledOne);
  };

  const flush = (): void => {
    scheduled = undefined;
    const starts = startedQueue;
    const finishes = finishedQueue;
    startedQueue = [];
    finishedQueue = [];
    for (const exchange of starts) announce(exchange);
    for (const exchange of finishes) record(exchange);
  };

  return {
    started(exchange) {
      if (!onRequestStarted) return;
      startedQueue.push(exchange);
      scheduled ??= setImmediate(flush);
    },
    finished(exchange) {
      finishedQueue.push(exchange);
      scheduled ??= setImmediate(flush);
    },
    flushNow() {
      if (scheduled) clearImmediate(scheduled);
      flush();
    },
    settled() {
      if (pending === 0) return Promise.resolve();
      return new Promise<void>((resolve) => onIdle.push(resolve));
    },
  };
}
