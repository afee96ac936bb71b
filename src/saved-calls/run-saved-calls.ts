import { randomBytes } from 'node:crypto';
import { judgeAnswer } from '../median/verdict.js';
import type { ManifestTool, ToolCall } from '../median/protocol.js';
import type { VerdictKind } from '../median/verdict-types.js';
import { compareAnswer, type CheckProblem, type FreshAnswer } from './compare-answer.js';
import { findNoise } from './ignore-paths.js';
import { jsonText } from './stable-json.js';
import { checkAgainstManifest } from './manifest-checks.js';
import type { LoadedSavedCall, SavedCall } from './saved-call.js';

/** What a send gives back: the route's answer, or none (`failure`). */
export interface SentAnswer {
  status: number | null;
  headers: Record<string, string>;
  body: string | null;
  durationMs: number;
  failure?: 'timeout' | 'connection';
}

export interface RunSavedCallsOptions {
  /** Signs and POSTs one body to the route (the CLI passes the replay sender). */
  send(body: string): Promise<SentAnswer>;
  /** The route's manifest tools, or null when it could not be read (the manifest checks are then skipped). */
  tools: readonly ManifestTool[] | null;
  /** Send each call with a fresh `call_` id (default), since routes key on toolCallId. */
  isNewId: boolean;
  /** Rewrite the expectations of failing calls from what the route answers now (`--update`). */
  shouldUpdate: boolean;
  /** Stop after the first failure (`--bail`). */
  shouldBail: boolean;
  /** Calls in flight at once (default 1: calls saved from one conversation may depend on their order). */
  concurrency?: number;
  onResult?(result: SavedCallResult): void;
  signal?: AbortSignal;
}

export type SavedCallOutcome = 'passed' | 'failed' | 'updated';

export interface SavedCallResult {
  file: string;
  name: string;
  tool: string;
  outcome: SavedCallOutcome;
  problems: CheckProblem[];
  diff: string | null;
  /** The toolCallId this run sent. */
  toolCallId: string;
  expected: { status: number | null; verdict: VerdictKind };
  actual: { status: number | null; verdict: VerdictKind; agentSees: string };
  durationMs: number;
  /** Paths found noisy on this run (the call had no `ignore` yet), now in the file. */
  noise: string[] | null;
  /** The saved call to write back (noise found, or `--update`), else null. */
  rewritten: SavedCall | null;
}

/** Problems `--update` cannot cure by taking the new answer: the call itself no longer fits. */
const NOT_UPDATABLE = new Set<CheckProblem['code']>(['tool-gone', 'input-invalid']);

function newCallId(): string {
  return `call_${randomBytes(16).toString('hex')}`;
}

function bodyOf(saved: SavedCall, toolCallId: string): string {
  const call: ToolCall = { tool: saved.call.tool, toolCallId, input: saved.call.input, context: saved.call.context };
  return JSON.stringify(call);
}

function judged(sent: SentAnswer): FreshAnswer {
  const verdict = judgeAnswer({
    status: sent.status,
    headers: sent.headers,
    body: sent.body,
    durationMs: sent.durationMs,
    ...(sent.failure ? { failure: sent.failure } : {}),
  });
  return { status: sent.status, body: sent.body, durationMs: sent.durationMs, verdict };
}


function expectationFrom(saved: SavedCall, answer: FreshAnswer, sent: SentAnswer): SavedCall['expect'] {
  const parsed = jsonText(answer.body);
  const contentType = sent.headers['content-type'];
  return {
    status: answer.status,
    verdict: answer.verdict.kind,
    agentSees: answer.verdict.agentSees,
    warnings: answer.verdict.warnings.map((w) => w.code),
    ...(parsed.ok ? { body: parsed.value } : answer.body !== null ? { bodyText: answer.body } : {}),
    headers: contentType ? { 'content-type': contentType } : saved.expect.headers,
  };
}

async function runOne(loaded: LoadedSavedCall, options: RunSavedCallsOptions): Promise<SavedCallResult> {
  const { saved } = loaded;
  const toolCallId = options.isNewId ? newCallId() : saved.call.toolCallId;
  const started = performance.now();
  const sent = await options.send(bodyOf(saved, toolCallId));
  const answer = judged(sent);
  let current = saved;
  let noise: string[] | null = null;
  if (saved.ignore === undefined) {
    // The first run: send it again; what differs between the two answers is noise, ignored from now on.
    const again = await options.send(bodyOf(saved, options.isNewId ? newCallId() : toolCallId));
    const [a, b] = [jsonText(sent.body), jsonText(again.body)];
    noise = a.ok && b.ok ? findNoise(a.value, b.value) : [];
    current = { ...saved, ignore: noise };
  }
  const comparison = compareAnswer(current, answer);
  const problems = [...(options.tools ? checkAgainstManifest(current, options.tools) : []), ...comparison.problems];
  const canUpdate = options.shouldUpdate && problems.length > 0 && !problems.some((p) => NOT_UPDATABLE.has(p.code));
  let outcome: SavedCallOutcome = problems.length === 0 ? 'passed' : 'failed';
  let rewritten: SavedCall | null = noise !== null ? current : null;
  if (canUpdate) {
    const risk = options.tools?.find((t) => t.name === saved.call.tool)?.risk ?? current.call.context.risk;
    rewritten = { ...current, call: { ...current.call, context: { ...current.call.context, risk } }, expect: expectationFrom(current, answer, sent) };
    outcome = 'updated';
  }
  return {
    file: loaded.file,
    name: saved.name,
    tool: saved.call.tool,
    outcome,
    problems,
    diff: comparison.diff,
    toolCallId,
    expected: { status: saved.expect.status, verdict: saved.expect.verdict },
    actual: { status: answer.status, verdict: answer.verdict.kind, agentSees: answer.verdict.agentSees },
    durationMs: performance.now() - started,
    noise,
    rewritten,
  };
}

/**
 * Sends each saved call to the route, one after the other by default (calls
 * saved from one conversation may depend on their order; `concurrency` lets
 * independent ones overlap), and checks the answers: the manifest checks,
 * then the comparison. Results come back in the calls' order. Never throws
 * for a failing call; a send that throws is a bug of the sender and ends the run.
 */
export async function runSavedCalls(calls: readonly LoadedSavedCall[], options: RunSavedCallsOptions): Promise<SavedCallResult[]> {
  const results: Array<SavedCallResult | undefined> = new Array(calls.length);
  let next = 0;
  let isStopped = false;
  const worker = async (): Promise<void> => {
    while (!isStopped && !options.signal?.aborted && next < calls.length) {
      const index = next++;
      const result = await runOne(calls[index]!, options);
      results[index] = result;
      options.onResult?.(result);
      if (options.shouldBail && result.outcome === 'failed') isStopped = true;
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? 1, calls.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results.filter((r): r is SavedCallResult => r !== undefined);
}
