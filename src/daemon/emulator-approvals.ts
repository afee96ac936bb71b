import type { EmulatorApproval, EmulatorDecisionAnswer, NewDaemonEvent } from '../events/index.js';
import { MedianDevError, UserError, receivedErrorCode } from '../shared/errors.js';
import { systemClock, type Clock, type ClockTimer } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { requestLocalJson } from '../shared/local-json-request.js';

/**
 * The pause before asking again after an error, or between asks to an older
 * emulator that answers without a `version` (no long poll there).
 */
export const APPROVAL_POLL_MS = 1_500;
/** How long the emulator holds one ask when nothing changes (its cap is 25 s). */
export const APPROVAL_WAIT_S = 25;
/** One request to the emulator beyond its wait (an approval's run has the route's 10 s and more). */
const REQUEST_TIMEOUT_MS = 5_000;
const DECISION_TIMEOUT_MS = 30_000;

export interface EmulatorApprovalsOptions {
  /** The Median API the daemon uses (`--median-api`). */
  apiUrl: string;
  /** The key in use now (it may rotate). */
  key(): string | undefined;
  clock?: Clock;
  intervalMs?: number;
  /** Seconds the emulator holds an ask until the list changes; default 25. */
  waitS?: number;
  emit(event: NewDaemonEvent): void;
  logger: Logger;
}

export interface EmulatorApprovals {
  /** Approves or denies a held call; then the list is asked for again. */
  decide(id: string, decision: 'approve' | 'deny', as?: string): Promise<EmulatorDecisionAnswer>;
  /** Asks for the held calls now (also what the timer does). */
  poll(): Promise<void>;
  close(): Promise<void>;
}

/** A Median API on this machine: only median-dev's emulator runs there (the cloud is `https://api.median.sh`). */
export function isLoopbackApi(apiUrl: string): boolean {
  try {
    const host = new URL(apiUrl).hostname;
    return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
  } catch {
    return false;
  }
}

/**
 * The built-in emulator's held approvals, for the TUI and the inspector: a
 * long poll of `GET /v1/emulator/approvals?state=pending&since=<version>&wait=25`
 * while the API is the emulator (the emulator answers when the list changes,
 * or empty-handed at the wait's end), asked again right after each answer and
 * `intervalMs` after an error, on the clock; it emits `emulator-approvals`
 * when the list changed. An API off this machine is never asked; one that
 * answers 404 there is not the emulator, and asking stops. Decisions go to
 * the emulator's approve/deny.
 */
export function startEmulatorApprovals(options: EmulatorApprovalsOptions): EmulatorApprovals {
  const clock = options.clock ?? systemClock;
  const intervalMs = options.intervalMs ?? APPROVAL_POLL_MS;
  const waitS = options.waitS ?? APPROVAL_WAIT_S;
  const base = options.apiUrl.replace(/\/+$/, '');
  const isLocal = isLoopbackApi(base);
  const inFlight = new Set<AbortController>();
  let timer: ClockTimer | undefined;
  let isClosed = false;
  let isEmulator: boolean | undefined = isLocal ? undefined : false;
  let shown = '[]';
  /** The list's version the emulator last gave: the next long poll waits past it. */
  let version: number | undefined;
  let polling: Promise<void> | undefined;
  let watching: Promise<void> | undefined;

  async function request(method: 'GET' | 'POST', path: string, timeoutMs: number, body?: unknown): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
    const key = options.key();
    if (!key) throw new UserError('missing_key', 'The emulator is asked with MEDIAN_KEY, and none is set.');
    const abort = new AbortController();
    inFlight.add(abort);
    const deadline = clock.setTimer(() => abort.abort(new DOMException('The emulator did not answer in time.', 'TimeoutError')), timeoutMs);
    try {
      const answer = await requestLocalJson(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: abort.signal,
      });
      // Aborted (close(), or the deadline): its reason, as fetch would have thrown it.
      if (answer.kind === 'unreachable') throw abort.signal.aborted ? abort.signal.reason : new Error(`${base} did not answer (${answer.errorCode})`);
      return { status: answer.status, body: typeof answer.body === 'object' && answer.body !== null ? (answer.body as Record<string, unknown>) : undefined };
    } finally {
      deadline.cancel();
      inFlight.delete(abort);
    }
  }

  function publish(approvals: EmulatorApproval[]): void {
    const text = JSON.stringify(approvals);
    if (text === shown) return;
    shown = text;
    options.emit({ event: 'emulator-approvals', approvals });
  }

  /** One ask; `again` when the emulator long-polls (ask again now), `later` after an error or an older emulator. */
  async function ask(wait: number): Promise<'again' | 'later' | 'stop'> {
    if (isClosed || isEmulator === false) return 'stop';
    if (!options.key()) return 'later';
    const held = wait > 0 && version !== undefined ? `&since=${version}&wait=${wait}` : '';
    let answer: Awaited<ReturnType<typeof request>>;
    try {
      answer = await request('GET', `/v1/emulator/approvals?state=pending${held}`, (held ? wait * 1_000 : 0) + REQUEST_TIMEOUT_MS);
    } catch (error) {
      // Nothing answers (the emulator not up yet, or gone), or close() aborted it: ask again after a pause.
      options.logger.debug(`emulator approvals: ${error instanceof Error ? error.message : String(error)}`);
      return 'later';
    }
    if (isClosed) return 'stop';
    const list = answer.body?.approvals;
    if (answer.status === 404 || (answer.status === 200 && !Array.isArray(list))) {
      isEmulator = false; // a Median API without the emulator's extensions
      return 'stop';
    }
    if (answer.status !== 200 || !Array.isArray(list)) return 'later';
    isEmulator = true;
    const answered = answer.body?.version;
    if (typeof answered !== 'number') {
      publish(list.filter(isApproval).map(approvalOf));
      return 'later'; // an older emulator: no long poll, asked on the interval
    }
    // Taken as it is, even when lower (a restarted emulator): a stale one is answered at once by the next ask.
    version = answered;
    publish(list.filter(isApproval).map(approvalOf));
    return 'again';
  }

  function poll(): Promise<void> {
    polling ??= ask(0)
      .then(() => undefined)
      .finally(() => (polling = undefined));
    return polling;
  }

  function watch(): void {
    timer = undefined;
    if (isClosed || isEmulator === false) return;
    watching = ask(waitS).then((next) => {
      watching = undefined;
      if (next === 'again') watch();
      else if (next === 'later') schedule(intervalMs);
    });
  }

  function schedule(ms: number): void {
    if (isClosed || isEmulator === false) return;
    timer = clock.setTimer(watch, ms);
  }
  if (isLocal) schedule(0);

  return {
    poll,
    async decide(id, decision, as) {
      if (isEmulator === false || !isLocal) {
        throw new UserError('not_emulator', 'Only calls held by median-dev’s emulator are approved or denied here; a real Median’s approvals are decided in Median.', {
          hint: 'Open the conversation in Median, or run the emulator (`median-dev emulate`) and start with --median-api set to its URL.',
        });
      }
      let answer: Awaited<ReturnType<typeof request>>;
      try {
        answer = await request('POST', `/v1/emulator/approvals/${encodeURIComponent(id)}/${decision}`, DECISION_TIMEOUT_MS, as === undefined ? {} : { as });
      } catch (error) {
        if (error instanceof MedianDevError) throw error;
        throw new UserError('emulator_not_running', `No emulator answers at ${base}.`, { hint: 'Is `median-dev emulate` (or the demo) still running?' });
      }
      if (answer.status !== 200) throw decisionError(answer, id, decision);
      void poll();
      return decisionAnswer(id, decision, answer.body ?? {});
    },
    async close() {
      if (isClosed) return;
      isClosed = true;
      timer?.cancel();
      for (const abort of inFlight) abort.abort(new MedianDevError('daemon_closed', 'The daemon is closing.'));
      await Promise.all([polling?.catch(() => undefined), watching]);
    },
  };
}

function isApproval(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string' && typeof (value as { tool?: unknown }).tool === 'string';
}

/** Only what the screens show: the emulator's answer holds more (the visitor, the endpoint). */
function approvalOf(value: Record<string, unknown>): EmulatorApproval {
  const waitingFor = value.waitingFor === 'reviewer' || value.waitingFor === 'teammate' ? value.waitingFor : undefined;
  return {
    id: String(value.id),
    tool: String(value.tool),
    risk: typeof value.risk === 'string' ? value.risk : '?',
    input: typeof value.input === 'object' && value.input !== null && !Array.isArray(value.input) ? (value.input as Record<string, unknown>) : {},
    conversationId: typeof value.conversationId === 'string' ? value.conversationId : '',
    requestedAt: typeof value.requestedAt === 'string' ? value.requestedAt : '',
    ...(waitingFor ? { waitingFor } : {}),
  };
}

function decisionError(answer: { status: number; body: Record<string, unknown> | undefined }, id: string, decision: 'approve' | 'deny'): UserError {
  const error = answer.body?.error as { code?: unknown; message?: unknown } | undefined;
  const code = typeof error?.code === 'string' ? error.code : 'median_bad_answer';
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${answer.status}`;
  return new UserError(receivedErrorCode(code), `The emulator could not ${decision} ${id}: ${message}`);
}

function decisionAnswer(id: string, decision: 'approve' | 'deny', body: Record<string, unknown>): EmulatorDecisionAnswer {
  if (decision === 'deny') {
    const approval = (body.approval ?? {}) as { tool?: unknown; decidedBy?: unknown };
    return { id, decision, tool: String(approval.tool ?? '?'), by: typeof approval.decidedBy === 'string' ? approval.decidedBy : 'A teammate' };
  }
  const call = (body.call ?? {}) as { tool?: unknown; approvedBy?: unknown; status?: unknown; verdict?: { kind?: unknown; didNotRun?: unknown } };
  return {
    id,
    decision,
    tool: String(call.tool ?? '?'),
    by: typeof call.approvedBy === 'string' ? call.approvedBy : 'A teammate',
    status: typeof call.status === 'number' ? call.status : null,
    ...(typeof call.verdict?.kind === 'string' ? { verdict: call.verdict.kind } : {}),
    ...(typeof call.verdict?.didNotRun === 'string' ? { didNotRun: call.verdict.didNotRun } : {}),
  };
}
