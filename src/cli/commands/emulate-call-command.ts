import type { EmulatedCall } from '../../emulator/index.js';
import { secretsToMask, type VerdictKind } from '../../median/index.js';
import { MedianDevError, UserError, receivedErrorCode } from '../../shared/errors.js';
import { safeLine, safeText } from '../../shared/output-sanitiser.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { emulatorEnvPath, readEmulatorEnv } from '../emulator-env-file.js';
import { createOutputMasker } from '../output-masker.js';
import { QuietFailure } from '../quiet-failure.js';
import { readInputFlag } from '../read-input-flag.js';
import { createStyle, styleVerdict } from '../terminal-style.js';
import { printAnswer } from './call-command.js';
import { emulatorDataDir } from './emulate-command.js';

/** What the agent gets no result from: the call failed. */
const FAILED: readonly VerdictKind[] = ['threw', 'invalid-input', 'not-answering'];

/** Longer than the cloud's 10 s call limit: the emulator always answers first. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * `median-dev emulate call <tool>`: the running emulator (found through its
 * data dir's emulator.env) calls the tool as the cloud does, signed, through
 * the endpoint's public URL, and this prints what the agent would see.
 */
export async function runEmulateCall(tool: string, options: Record<string, unknown>, io: CliIo): Promise<void> {
  const dataDir = emulatorDataDir(options, io);
  const kept = await readEmulatorEnv(dataDir);
  const apiUrl = kept.apiUrl;
  const key = kept.key ?? (io.env.MEDIAN_KEY || undefined);
  const notRunning = (why: string): UserError =>
    new UserError('emulator_not_running', `No emulator answers for the data dir ${dataDir}: ${why}.`, {
      hint: `Start one with \`median-dev emulate${typeof options.dataDir === 'string' ? ` --data-dir ${dataDir}` : ''}\` (emulate call takes the same --data-dir).`,
    });
  if (!apiUrl) throw notRunning(`${emulatorEnvPath(dataDir)} does not exist or names no MEDIAN_API_URL`);
  if (!key) throw notRunning('the emulator runs with your MEDIAN_KEY, and none is set here');
  const input = typeof options.input === 'string' ? await readInputFlag(options.input, io.cwd) : undefined;

  let response: Response;
  try {
    response = await fetch(`${apiUrl}/v1/emulator/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        tool,
        ...(input ? { input } : {}),
        ...(typeof options.endpoint === 'string' ? { endpoint: options.endpoint } : {}),
        ...(typeof options.conversation === 'string' ? { conversationId: options.conversation } : {}),
      }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch {
    throw notRunning(`nothing answers at ${apiUrl}`);
  }
  const answer = (await response.json().catch(() => undefined)) as { call?: EmulatedCall; error?: { code?: string; message?: string } } | undefined;
  if (!response.ok || !answer?.call) {
    const code = typeof answer?.error?.code === 'string' ? receivedErrorCode(answer.error.code) : 'median_bad_answer';
    throw new UserError(code, `The emulator did not call ${safeLine(tool)}: ${safeLine(answer?.error?.message ?? `HTTP ${response.status}`)}`, {
      hint: code === 'tool_not_found' ? 'Is the endpoint synced with that tool switched on? `median-dev endpoints` lists them.' : 'Check the emulator’s output.',
    });
  }
  // The route's answer is shown as it came, but for secrets (a tool may echo the key).
  const mask = createOutputMasker(secretsToMask({ medianKey: key, toolSecret: io.env.MEDIAN_TOOL_SECRET }));
  const call = mask.value(answer.call);
  const isFailed = FAILED.includes(call.verdict.kind);
  if (options.json === true) {
    writeJson(io, call);
    if (isFailed) throw new QuietFailure(1);
    return;
  }
  const style = createStyle(useColor(io));
  writeLine(io.stdout, style.dim(`${safeLine(call.tool)} ${call.toolCallId} → ${safeLine(call.endpointUrl)} (risk ${call.risk}, ${call.conversationId})`));
  writeLine(io.stdout, style.dim(`input ${safeText(JSON.stringify(call.input))}`));
  if (call.status !== null && call.body !== null) {
    printAnswer(io, style, { status: call.status, body: call.body, durationMs: call.durationMs }, call.verdict);
  } else {
    writeLine(io.stdout, `${call.status === null ? 'no answer' : `HTTP ${call.status}, answer over the limit`}  ${styleVerdict(style, call.verdict.kind)}  ${Math.round(call.durationMs)} ms`);
    writeLine(io.stdout, `${style.bold('The agent sees:')} ${safeText(call.verdict.agentSees)}`);
  }
  if (isFailed) {
    throw new MedianDevError('tool_call_failed', `${call.tool} failed for the agent (${call.verdict.kind}).`, {
      hint: `median-dev show ${call.toolCallId} has the whole call, as the running start recorded it.`,
    });
  }
}
