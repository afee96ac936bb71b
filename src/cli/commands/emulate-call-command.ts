import type { ApprovalRequest } from '../../emulator/approval-types.js';
import type { EmulatedCall } from '../../emulator/tool-caller.js';
import { approvalLine, emulatorFlags } from './emulate-approve-command.js';
import { cliCommandLine, shellWord } from '../command-line.js';
import { DEFAULT_TEAMMATE } from '../teammate-name.js';
import { secretsToMask } from '../../median/key.js';
import type { VerdictKind } from '../../median/verdict-types.js';
import { MedianDevError, UserError, receivedErrorCode } from '../../shared/errors.js';
import { safeLine, safeText } from '../../shared/output-sanitiser.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { findEmulatorApi } from '../emulator-api.js';
import { createOutputMasker } from '../output-masker.js';
import { QuietFailure } from '../quiet-failure.js';
import { readInputFlag } from '../read-input-flag.js';
import { createStyle, styleVerdict } from '../terminal-style.js';
import { printAnswer } from './call-command.js';

/** What the agent gets no result from: the call failed. */
const FAILED: readonly VerdictKind[] = ['threw', 'invalid-input', 'not-answering'];

/**
 * `median-dev emulate call <tool>`: the running emulator (found through its
 * data dir's emulator.env) calls the tool as the cloud does, signed, through
 * the endpoint's public URL, and this prints what the agent would see.
 */
export async function runEmulateCall(tool: string, options: Record<string, unknown>, io: CliIo): Promise<void> {
  const api = await findEmulatorApi(options, io);
  const key = api.key;
  const input = typeof options.input === 'string' ? await readInputFlag(options.input, io.cwd) : undefined;
  const response = await api.request('POST', '/v1/emulator/calls', {
    tool,
    ...(input ? { input } : {}),
    ...(typeof options.endpoint === 'string' ? { endpoint: options.endpoint } : {}),
    ...(typeof options.conversation === 'string' ? { conversationId: options.conversation } : {}),
  });
  const answer = response.body as { call?: EmulatedCall; approval?: ApprovalRequest; error?: { code?: string; message?: string } } | undefined;
  if (response.status === 202 && answer?.approval) return printHeld(answer.approval, options, io);
  if (response.status !== 200 || !answer?.call) {
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

/** A `reviewed`/`high` tool: Median holds the call for a decision, nothing is sent yet. */
function printHeld(approval: ApprovalRequest, options: Record<string, unknown>, io: CliIo): void {
  if (options.json === true) return writeJson(io, { approval });
  const style = createStyle(useColor(io));
  writeLine(io.stdout, approvalLine(approval));
  writeLine(
    io.stdout,
    approval.waitingFor === 'reviewer'
      ? `Risk reviewed: the agent asked for the customer's yes; the automated reviewer decides next (it approves as "The reviewer" or hands it to a teammate).`
      : "Risk high: nothing is sent until a teammate approves it in the conversation.",
  );
  const flags = emulatorFlags(options);
  writeLine(io.stdout, style.dim(`Approve: ${cliCommandLine(io)} emulate approve ${approval.id} --as ${shellWord(DEFAULT_TEAMMATE)}${flags}   Decline: ${cliCommandLine(io)} emulate deny ${approval.id}${flags}`));
}
