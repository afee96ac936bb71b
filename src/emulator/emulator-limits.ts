import { MANIFEST_LIMITS, MEDIAN_CALL_LIMITS, SYNC_LIMITS } from '../median/index.js';
import type { Rate } from './rate-limiter.js';

/** The cloud's limits the emulator applies. Tests shorten them. */
export interface EmulatorLimits {
  /** A sync's signed GET: 10 s. */
  syncTimeoutMs: number;
  /** A tool call: 10 s. */
  callTimeoutMs: number;
  /** A diagnostics request: Median waits 8 s. */
  diagnosticsTimeoutMs: number;
  /** Median keeps the first 2,000 characters of a diagnostics answer. */
  diagnosticsKeepChars: number;
  /** 500 KB manifest. */
  maxManifestBytes: number;
  /** 100 KB call answer. */
  maxAnswerBytes: number;
  /** 10 tool endpoints at once. */
  maxEndpoints: number;
  /** 20 tools across all endpoints. */
  maxTools: number;
  /** Manual syncs (Sync, Change endpoint): 60 an hour, bursts of 10. */
  syncRate: Rate;
  /**
   * Connects (opening the route). OUR ASSUMPTION: the docs give no number,
   * only "Wait a minute and open the route again"; we use the sync rate.
   */
  connectRate: Rate;
  /** "The agent sends 3 calls per turn." */
  callsPerTurn: number;
  /** "Three tools are already running in this conversation." */
  runningPerConversation: number;
  /** An approved call or teammate run that reported nothing this long gets "The tool returned no result…": 10 minutes. */
  noResultAfterMs: number;
  /** "The hourly check marks it, so it can take up to 70 minutes to show." */
  noResultCheckEveryMs: number;
  /** OURS: the docs give no number for "This request expired without a decision."; 24 hours. */
  approvalTtlMs: number;
  /** OURS: how long the automated reviewer takes with a `reviewed` call; 3 s. */
  reviewerDelayMs: number;
}

export const DEFAULT_EMULATOR_LIMITS: Readonly<EmulatorLimits> = Object.freeze({
  syncTimeoutMs: SYNC_LIMITS.timeoutMs,
  callTimeoutMs: MEDIAN_CALL_LIMITS.timeoutMs,
  diagnosticsTimeoutMs: 8_000,
  diagnosticsKeepChars: 2_000,
  maxManifestBytes: SYNC_LIMITS.maxManifestBytes,
  maxAnswerBytes: MEDIAN_CALL_LIMITS.maxAnswerBytes,
  maxEndpoints: MANIFEST_LIMITS.maxEndpoints,
  maxTools: MANIFEST_LIMITS.maxTools,
  syncRate: Object.freeze({ perHour: 60, burst: 10 }),
  connectRate: Object.freeze({ perHour: 60, burst: 10 }),
  callsPerTurn: 3,
  runningPerConversation: 3,
  noResultAfterMs: 10 * 60_000,
  noResultCheckEveryMs: 60 * 60_000,
  approvalTtlMs: 24 * 60 * 60_000,
  reviewerDelayMs: 3_000,
});

export function resolveLimits(partial: Partial<EmulatorLimits> = {}): EmulatorLimits {
  const limits: EmulatorLimits = { ...DEFAULT_EMULATOR_LIMITS };
  for (const [key, value] of Object.entries(partial) as [keyof EmulatorLimits, unknown][]) {
    if (value !== undefined) (limits as unknown as Record<string, unknown>)[key] = value;
  }
  return Object.freeze(limits);
}
