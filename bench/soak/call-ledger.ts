/**
 * The soak's book of logical calls: call i has a fixed toolCallId (so a
 * retry is the same call, as Median's idempotency key says), a state, its
 * attempts, when it was answered and whether the store was seen holding it.
 * Typed arrays, so 100,000 calls cost a few MB.
 */
import { randomBytes } from 'node:crypto';
import type { SoakCall } from './median-sender.js';

export const enum CallState {
  NotStarted = 0,
  InFlight = 1,
  WaitingRetry = 2,
  Answered = 3,
  GivenUp = 4,
}

export const enum StoreState {
  Unchecked = 0,
  Recorded = 1,
  /** Answered, looked for twice after it settled, not in the store. */
  Lost = 2,
}

export class CallLedger {
  readonly runTag = randomBytes(4).toString('hex');
  readonly state: Uint8Array;
  readonly attempts: Uint8Array;
  /** Date.now() of the answer (0 until answered). */
  readonly answeredAt: Float64Array;
  readonly store: Uint8Array;
  /** Latency of the answering attempt, ms. */
  readonly latencyMs: Float64Array;

  constructor(readonly size: number) {
    this.state = new Uint8Array(size);
    this.attempts = new Uint8Array(size);
    this.answeredAt = new Float64Array(size);
    this.store = new Uint8Array(size);
    this.latencyMs = new Float64Array(size);
  }

  toolCallId(index: number): string {
    return `call_${this.runTag}${index.toString(16).padStart(24, '0')}`;
  }

  /** The index of one of this run's toolCallIds, or -1. */
  indexOf(toolCallId: string): number {
    const prefix = `call_${this.runTag}`;
    if (!toolCallId.startsWith(prefix)) return -1;
    const index = Number.parseInt(toolCallId.slice(prefix.length), 16);
    return Number.isInteger(index) && index >= 0 && index < this.size ? index : -1;
  }

  call(index: number): SoakCall {
    return {
      toolCallId: this.toolCallId(index),
      conversationId: `conv_${this.runTag}${(index % 1_000).toString(16).padStart(16, '0')}`,
      orderNumber: `A${1000 + (index % 9000)}`,
    };
  }

  count(state: CallState): number {
    let n = 0;
    for (let i = 0; i < this.size; i += 1) if (this.state[i] === state) n += 1;
    return n;
  }

  countStore(state: StoreState): number {
    let n = 0;
    for (let i = 0; i < this.size; i += 1) if (this.state[i] === CallState.Answered && this.store[i] === state) n += 1;
    return n;
  }

  /** Answered calls not yet seen in the store, answered at or before `answeredBy` (Date.now()). */
  unchecked(answeredBy: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.size; i += 1) {
      if (this.state[i] === CallState.Answered && this.store[i] === StoreState.Unchecked && this.answeredAt[i]! <= answeredBy) out.push(i);
    }
    return out;
  }
}
