import { safeJson, safeLine, safeText } from '../../shared/output-sanitiser.js';
import { judgeAnswer } from '../../median/verdict.js';
import { secretsToMask } from '../../median/key.js';
import { RISKS, type Risk } from '../../median/protocol.js';
import type { Verdict } from '../../median/verdict-types.js';
import { withRecordedPath } from '../../daemon/recorded-path.js';
import { prepareTestCall } from '../../replay/replay-request.js';
import { sendSignedCall } from '../../replay/send-signed-call.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { loadConfig } from '../load-config.js';
import { createOutputMasker } from '../output-masker.js';
import { fetchManifest } from '../fetch-manifest.js';
import { readInputFlag } from '../read-input-flag.js';
import { requireSecret } from '../require-secret.js';
import { createStyle, styleVerdict, type Style } from '../terminal-style.js';

export function printAnswer(io: CliIo, style: Style, answer: { status: number; body: string; durationMs: number }, verdict: Verdict): void {
  let pretty = safeText(answer.body);
  try {
    pretty = safeJson(JSON.parse(answer.body), 2);
  } catch {
    /* Not JSON: show it as it came, controls escaped. */
  }
  writeLine(io.stdout, `HTTP ${answer.status}  ${styleVerdict(style, verdict.kind)}  ${Math.round(answer.durationMs)} ms`);
  writeLine(io.stdout, pretty.length > 4_000 ? `${pretty.slice(0, 4_000)}\n${style.dim(`… ${pretty.length - 4_000} more characters`)}` : pretty);
  writeLine(io.stdout, '');
  writeLine(io.stdout, `${style.bold('The agent sees:')} ${safeText(verdict.agentSees.length > 600 ? `${verdict.agentSees.slice(0, 600)}…` : verdict.agentSees)}`);
  if (verdict.callError) writeLine(io.stdout, style.dim(`Median's Logs: ${safeText(verdict.callError)}`));
  for (const warning of verdict.warnings) writeLine(io.stdout, style.yellow(`⚠ ${safeText(warning.message)}`) + style.dim(` [${safeLine(warning.code)}]`));
}

export async function runCall(tool: string, options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const secret = requireSecret(config, 'A tool call');
  const input = await readInputFlag(typeof options.input === 'string' ? options.input : '{}', io.cwd);

  let risk = options.risk as Risk | undefined;
  if (!risk) {
    // Like Median, send the risk the manifest declares for the tool.
    const manifest = await fetchManifest(`${config.target}${config.route}`, secret).catch(() => undefined);
    const declared = manifest?.judgement.ok ? manifest.judgement.manifest.tools.find((t) => t.name === tool)?.risk : undefined;
    risk = declared && (RISKS as readonly string[]).includes(declared) ? declared : 'low';
  }
  const prepared = prepareTestCall({
    tool,
    input,
    risk,
    ...(typeof options.conversation === 'string' ? { conversationId: options.conversation } : {}),
  });
  const { value: answer, record } = await withRecordedPath(config, ({ routeUrl }) =>
    sendSignedCall({ url: routeUrl, body: prepared.body, secret }),
  );
  // The route's answer is printed as it came, but for secrets (a tool may echo the key).
  const mask = createOutputMasker(secretsToMask({ medianKey: config.medianKey, toolSecret: config.toolSecret }));
  const verdict = mask.value(
    record?.verdict ?? judgeAnswer({ status: answer.status, headers: answer.headers, body: answer.body, durationMs: answer.durationMs }),
  );
  const shown = { ...answer, body: mask.text(answer.body) };
  if (config.json) {
    let body: unknown = shown.body;
    try {
      body = JSON.parse(shown.body);
    } catch {
      /* keep the text */
    }
    writeJson(io, { toolCallId: prepared.toolCall.toolCallId, tool: mask.text(tool), status: answer.status, durationMs: answer.durationMs, body, verdict });
    return;
  }
  const style = createStyle(useColor(io));
  writeLine(io.stdout, style.dim(`${safeLine(mask.text(tool))} ${prepared.toolCall.toolCallId} (risk ${risk})`));
  printAnswer(io, style, shown, verdict);
}
