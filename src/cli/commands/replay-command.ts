import type { CallRecord } from '../../median/call-record.js';
import { judgeAnswer } from '../../median/verdict.js';
import { replayMarker } from '../../median/replay-marker.js';
import { secretsToMask } from '../../median/key.js';
import { safeLine } from '../../shared/output-sanitiser.js';
import { createCallStore } from '../../recorder/call-store.js';
import { withRecordedPath } from '../../daemon/recorded-path.js';
import { declaredRiskOf, prepareReplay } from '../../replay/replay-request.js';
import { sendSignedCall } from '../../replay/send-signed-call.js';
import { UserError, errorCode } from '../../shared/errors.js';
import { createTerminalPrompt } from '../terminal-prompt.js';
import { pastableCommand } from '../command-line.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { loadConfig } from '../load-config.js';
import { createOutputMasker } from '../output-masker.js';
import { readInputFlag } from '../read-input-flag.js';
import { requireSecret } from '../require-secret.js';
import { createStyle, styleVerdict } from '../terminal-style.js';
import { printAnswer } from './call-command.js';

function parseOffset(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^[+-]?\d+$/.test(text)) {
    throw new UserError('invalid_offset', `--at-offset takes whole milliseconds, like -299000, not "${text}".`, { exitCode: 2 });
  }
  return Number(text);
}

/** The replay's record, once the daemon that recorded it has stored it. */
async function findReplayRecord(
  dataDir: string,
  original: CallRecord,
  sent: { toolCallId: string; body: string; earlier: ReadonlySet<string> },
): Promise<CallRecord | undefined> {
  const store = createCallStore(dataDir);
  const deadline = Date.now() + 10_000; // a loaded machine can take seconds to store it
  while (Date.now() < deadline) {
    const recent = await store.list({ limit: 20 });
    // Not an earlier replay of the same call stored late: a new record, with the body this replay sent.
    const found = recent.find(
      (r) => r.replayOf === original.id && !sent.earlier.has(r.id) && r.toolCallId === sent.toolCallId && (r.request.truncated || r.request.body === sent.body),
    );
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/** The recorded call's input, for the question. */
function recordedInput(record: CallRecord): unknown {
  try {
    return (JSON.parse(record.request.body) as { input?: unknown }).input;
  } catch {
    return undefined; // prepareReplay refuses such a body with its own code before anyone is asked
  }
}

/**
 * A reviewed/high risk replay without --yes: in a terminal, ask (naming the tool
 * and the input), as the TUI does; without one, the coded refusal stands.
 */
async function confirmedOnTerminal<T>(io: CliIo, original: CallRecord, input: unknown, prepare: () => T, prepareConfirmed: () => T): Promise<T> {
  try {
    return prepare();
  } catch (error) {
    const prompt = errorCode(error) === 'replay_needs_confirmation' ? createTerminalPrompt(io) : undefined;
    if (!prompt) throw error;
    const risk = (error as UserError).details?.risk;
    const shownInput = safeLine(JSON.stringify(input ?? recordedInput(original)) ?? '{}');
    try {
      const question = `Replay ${safeLine(original.tool ?? '?')} with input ${shownInput.length > 300 ? `${shownInput.slice(0, 300)}…` : shownInput}? Its risk is ${String(risk)}: the action runs again for real. [y/N] `;
      if (!/^y(es)?$/i.test((await prompt.ask(question)).trim())) {
        throw new UserError('replay_cancelled', 'Replay cancelled: nothing sent.', { hint: 'Answer y to send it, or pass --yes in a script.' });
      }
    } finally {
      prompt.close();
    }
    return prepareConfirmed();
  }
}

export async function runReplay(id: string, options: Record<string, unknown>, io: CliIo): Promise<void> {
  if (options.newId === true && options.sameId === true) {
    throw new UserError('conflicting_id_flags', '--new-id and --same-id contradict each other: pass one.', { exitCode: 2 });
  }
  const config = await loadConfig(options, io);
  const store = createCallStore(config.dataDir);
  // A toolCallId names the original call; a replay is named by its record id.
  const original = await store.findByToolCallId(id);
  const input = typeof options.input === 'string' ? await readInputFlag(options.input, io.cwd) : undefined;
  const atOffsetMs = parseOffset(options.atOffset);
  // Edited input is another call: a new id, unless --same-id (a route keyed on toolCallId would answer the first result).
  const isNewId = options.newId === true || (input !== undefined && options.sameId !== true);
  const replayOptions = {
    declaredRisk: declaredRiskOf(await store.latestManifestRead(), original.tool ?? ''),
    ...(isNewId ? { newId: true } : {}),
    ...(input !== undefined ? { input } : {}),
    ...(options.yes === true ? { confirmed: true } : {}),
    // Not implied by --yes, nor asked on the terminal: re-signing a forged call is a choice made out loud.
    ...(options.allowUnsignedOriginal === true ? { allowUnsignedOriginal: true } : {}),
  };
  const prepared = await confirmedOnTerminal(io, original, input, () => prepareReplay(original, replayOptions), () =>
    prepareReplay(original, { ...replayOptions, confirmed: true }),
  );
  const secret = requireSecret(config, 'A replay');
  const earlier = new Set((await store.replaysOf(original.id)).map((r) => r.id));
  const { value: answer, record: oneShotRecord } = await withRecordedPath(config, ({ routeUrl, replayKey }) =>
    sendSignedCall({ url: routeUrl, body: prepared.body, secret, replayMarker: replayMarker(replayKey, original.id), ...(atOffsetMs !== undefined ? { atOffsetMs } : {}) }),
  );
  const record = oneShotRecord ?? (await findReplayRecord(config.dataDir, original, { toolCallId: prepared.toolCall.toolCallId, body: prepared.body, earlier }));
  // What the route answered is shown as it came, but for secrets (the stored record is masked already).
  const mask = createOutputMasker(secretsToMask({ medianKey: config.medianKey, toolSecret: config.toolSecret }));
  const verdict = mask.value(
    record?.verdict ?? judgeAnswer({ status: answer.status, headers: answer.headers, body: answer.body, durationMs: answer.durationMs }),
  );
  const shown = { ...answer, headers: mask.value(answer.headers), body: mask.text(answer.body) };

  if (config.json) {
    writeJson(
      io,
      record ?? {
        toolCallId: prepared.toolCall.toolCallId,
        tool: prepared.toolCall.tool,
        replayOf: original.id,
        response: { status: shown.status, headers: shown.headers, body: shown.body },
        durationMs: answer.durationMs,
        verdict,
      },
    );
    return;
  }
  const style = createStyle(useColor(io));
  const idNote = prepared.toolCall.toolCallId === original.toolCallId ? 'same toolCallId' : `new toolCallId ${prepared.toolCall.toolCallId}`;
  const offsetNote = atOffsetMs ? `, signed ${Math.abs(atOffsetMs)} ms ${atOffsetMs < 0 ? 'in the past' : 'in the future'}` : '';
  const whatNote = original.replayOf ? `the replay ${original.id} of ${safeLine(original.toolCallId)}` : safeLine(original.toolCallId);
  writeLine(io.stdout, style.dim(`Replay of ${safeLine(original.tool ?? original.kind)} ${whatNote} (${idNote}${offsetNote})`));
  printAnswer(io, style, shown, verdict);
  writeLine(io.stdout, '');
  writeLine(
    io.stdout,
    `${original.replayOf ? 'replayed record' : 'original'}: HTTP ${original.response?.status ?? '—'} ${styleVerdict(style, original.verdict.kind)}  →  replay: HTTP ${answer.status} ${styleVerdict(style, verdict.kind)}`,
  );
  if (record) writeLine(io.stdout, style.dim(`Compare the answers: ${pastableCommand(io, config, ['show', record.id, '--diff'])}`));
}
