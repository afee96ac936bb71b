import type { ApprovalRequest } from '../../emulator/approval-types.js';
import type { EmulatedCall } from '../../emulator/tool-caller.js';
import { secretsToMask } from '../../median/key.js';
import { MedianDevError } from '../../shared/errors.js';
import { safeLine, safeText } from '../../shared/output-sanitiser.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { emulatorAnswerError, findEmulatorApi } from '../emulator-api.js';
import { createOutputMasker } from '../output-masker.js';
import { QuietFailure } from '../quiet-failure.js';
import { createStyle, styleVerdict } from '../terminal-style.js';
import { cliCommandLine, shellWord } from '../command-line.js';

const FAILED = new Set(['threw', 'invalid-input', 'not-answering']);

/** The flags that found the emulator, for a printed command that has to find it again. */
export function emulatorFlags(options: Record<string, unknown>): string {
  return [
    typeof options.dataDir === 'string' ? ` --data-dir ${shellWord(options.dataDir)}` : '',
    typeof options.env === 'string' ? ` --env ${shellWord(options.env)}` : '',
  ].join('');
}

/** One line for a held call: its id, the tool, whose decision it waits for. */
export function approvalLine(approval: ApprovalRequest): string {
  const waits = approval.state === 'pending' ? `waits for ${approval.waitingFor === 'reviewer' ? 'the reviewer' : 'a teammate'}` : `${approval.state}${approval.decidedBy ? ` by ${approval.decidedBy}` : ''}`;
  return `${approval.id}  ${safeLine(approval.tool)}  risk ${approval.risk}  ${waits}  input ${safeText(JSON.stringify(approval.input))}  (${approval.conversationId})`;
}

/**
 * `median-dev emulate approve|deny <id> [--as <name>]`: a teammate's decision
 * on a call the emulator holds. Approve runs it (its `toolCallId` is the id,
 * `approvedBy` the name) and prints what the thread shows; an error is the
 * docs' approval or run error, with what to do.
 */
export async function runEmulateDecision(decision: 'approve' | 'deny', id: string, options: Record<string, unknown>, io: CliIo): Promise<void> {
  const api = await findEmulatorApi(options, io);
  const as = typeof options.as === 'string' && options.as !== '' ? options.as : undefined;
  const answer = await api.request('POST', `/v1/emulator/approvals/${encodeURIComponent(id)}/${decision}`, as === undefined ? {} : { as });
  if (answer.status !== 200) throw emulatorAnswerError(answer, `The emulator could not ${decision} ${safeLine(id)}`, 'Check the emulator’s output.');
  const mask = createOutputMasker(secretsToMask({ medianKey: api.key, toolSecret: io.env.MEDIAN_TOOL_SECRET }));
  const style = createStyle(useColor(io));
  if (decision === 'deny') {
    const approval = answer.body?.approval as ApprovalRequest;
    if (options.json === true) return writeJson(io, approval);
    writeLine(io.stdout, `${safeLine(approval.tool)} ${approval.id} declined by ${safeLine(approval.decidedBy ?? 'A teammate')}: nothing was sent; the agent is told no.`);
    return;
  }
  const call = mask.value(answer.body?.call as EmulatedCall);
  const failed = FAILED.has(call.verdict.kind) || call.verdict.didNotRun !== undefined;
  if (options.json === true) {
    writeJson(io, call);
    if (failed) throw new QuietFailure(1);
    return;
  }
  writeLine(io.stdout, style.dim(`${safeLine(call.tool)} ${call.toolCallId} approved by ${safeLine(call.approvedBy ?? 'A teammate')} → ${safeLine(call.endpointUrl)}`));
  if (call.isReported === false) {
    writeLine(io.stdout, 'Sent, and its result never reported: the hourly check marks it "The tool returned no result…" after 10 minutes.');
    return;
  }
  writeLine(io.stdout, `${call.status === null ? 'no answer' : `HTTP ${call.status}`}  ${styleVerdict(style, call.verdict.kind, call.verdict.didNotRun ? 'did-not-run' : call.verdict.kind)}  ${Math.round(call.durationMs)} ms`);
  writeLine(io.stdout, `${style.bold(call.verdict.didNotRun ? 'The thread shows:' : 'The agent sees:')} ${safeText(call.verdict.agentSees)}`);
  if (failed) {
    throw new MedianDevError('tool_call_failed', `${call.tool} did not run for the agent: the conversation turns unread and the action counts as not done.`, {
      hint: call.runError ? 'The run never reached your route; see the thread line above.' : `median-dev show ${call.toolCallId} has the whole call, as the running start recorded it.`,
    });
  }
}

/** `median-dev emulate approvals [--all]`: what the emulator holds for a decision. */
export async function runEmulateApprovals(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const api = await findEmulatorApi(options, io);
  const answer = await api.request('GET', `/v1/emulator/approvals${options.all === true ? '' : '?state=pending'}`);
  if (answer.status !== 200) throw emulatorAnswerError(answer, 'The emulator did not list its approvals', 'Check the emulator’s output.');
  const approvals = (answer.body?.approvals ?? []) as ApprovalRequest[];
  if (options.json === true) return writeJson(io, approvals);
  if (approvals.length === 0) {
    writeLine(io.stdout, options.all === true ? 'The emulator holds no approval requests.' : 'No call waits for a decision.');
    return;
  }
  for (const approval of approvals) writeLine(io.stdout, approvalLine(approval));
  const flags = emulatorFlags(options);
  if (options.all !== true) {
    writeLine(io.stdout, createStyle(useColor(io)).dim(`Approve one with \`${cliCommandLine(io)} emulate approve <id> --as <name>${flags}\`, or decline it with \`… emulate deny <id>${flags}\`.`));
  }
}
