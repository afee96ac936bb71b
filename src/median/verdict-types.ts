/** SPEC §2.3: what the agent would make of an answer. */
export type VerdictKind = 'answered' | 'refused' | 'unknown-outcome' | 'threw' | 'invalid-input' | 'not-answering';

export const VERDICT_KINDS: readonly VerdictKind[] = [
  'answered',
  'refused',
  'unknown-outcome',
  'threw',
  'invalid-input',
  'not-answering',
];

export interface VerdictWarning {
  /** Stable code, e.g. `result_truncated`, `navigate_to_too_long`, `highlight_too_long`, `near_timeout`. */
  code: string;
  message: string;
}

export interface Verdict {
  kind: VerdictKind;
  /** The text the agent would be given (after the 4,000-character cut). */
  agentSees: string;
  warnings: VerdictWarning[];
  /**
   * What Median's Logs would show for this call when it is an error (the
   * docs' "Call errors" message), e.g. `The endpoint answered 500. boom: it broke`.
   */
  callError?: string;
  /**
   * Set when an APPROVED call (a teammate's or the reviewer's yes, or a
   * teammate's own run) failed: what the thread shows, `<tool> did not run:
   * <error>`. The conversation turns unread and the agent treats the action
   * as not done (tool-errors.txt, "What the agent does when a tool fails").
   */
  didNotRun?: string;
}

/** What the proxy (or the emulator) saw of an answer, for judging it. */
export interface AnswerFacts {
  /** HTTP status, or null when no answer came (timeout, connection failure). */
  status: number | null;
  headers: Record<string, string | string[] | undefined>;
  /** The body as received (possibly cut at a recording limit), or null. */
  body: string | Uint8Array | null;
  /** Full size of the body in bytes when known (may exceed body.length). */
  bodySize?: number;
  durationMs: number;
  /** Why no usable answer came, when that is the case. */
  failure?: 'timeout' | 'connection' | 'too-large';
}

/** Limits the verdict applies; the defaults are Median's. Tests shorten them. */
export interface VerdictLimits {
  /** 10 s: no answer by then is `not-answering`. */
  timeoutMs: number;
  /** 100 KB answer limit. */
  maxAnswerBytes: number;
  /** The agent reads the first 4,000 characters. */
  agentReadChars: number;
}

export const MEDIAN_CALL_LIMITS: Readonly<VerdictLimits> = Object.freeze({
  timeoutMs: 10_000,
  maxAnswerBytes: 100 * 1024,
  agentReadChars: 4_000,
});
