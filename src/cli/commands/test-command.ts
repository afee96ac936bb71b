import { isAbsolute, resolve } from 'node:path';
import { parseFilter, recordMatches } from '../../median/record-filter.js';
import { resolveToolSecret, secretsToMask } from '../../median/key.js';
import type { ManifestTool } from '../../median/protocol.js';
import { foreignOwnerOf } from '../../endpoints/endpoint-owner.js';
import { isRouteAnswering } from '../../endpoints/route-readiness.js';
import { sendSignedCall } from '../../replay/send-signed-call.js';
import { junitReport } from '../../saved-calls/junit-report.js';
import { runSavedCalls, type SentAnswer } from '../../saved-calls/run-saved-calls.js';
import { savedCallAsRecord } from '../../saved-calls/saved-call-record.js';
import type { LoadedSavedCall } from '../../saved-calls/saved-call.js';
import { UserError, errorCode } from '../../shared/errors.js';
import { writeFileAtomic } from '../../shared/private-files.js';
import { safeLine } from '../../shared/output-sanitiser.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { fetchManifest } from '../fetch-manifest.js';
import { loadConfig, parseCount } from '../load-config.js';
import { createOutputMasker } from '../output-masker.js';
import { QuietFailure } from '../quiet-failure.js';
import { requireSecret } from '../require-secret.js';
import { callsDirOf, findSavedCallFiles, loadSavedCalls, shownPath, writeSavedCall } from '../saved-call-files.js';
import { createStyle } from '../terminal-style.js';
import { formatResultLines, formatSummary, summarize } from '../test-report.js';
import { startTestDevServer, throwawayMedianKey, type TestDevServer } from '../test-dev-server.js';

/** Median gives up on a tool call after 10 s (SPEC §1.3); a little more, so a 10 s answer is judged, not cut. */
const SEND_TIMEOUT_MS = 11_000;

async function sendOne(url: string, body: string, secret: Uint8Array): Promise<SentAnswer> {
  try {
    const answer = await sendSignedCall({ url, body, secret, timeoutMs: SEND_TIMEOUT_MS });
    return { status: answer.status, headers: answer.headers, body: answer.body, durationMs: answer.durationMs };
  } catch (error) {
    // No answer is an answer too: the agent is told the tool is not answering.
    const isTimeout = /timeout/i.test(String((error as { cause?: { name?: string } }).cause?.name ?? (error as Error).message));
    return { status: null, headers: {}, body: null, durationMs: isTimeout ? SEND_TIMEOUT_MS : 0, failure: isTimeout ? 'timeout' : 'connection' };
  }
}

async function selectSavedCalls(files: string[], options: Record<string, unknown>, io: CliIo): Promise<{ calls: LoadedSavedCall[]; dir: string }> {
  const dir = callsDirOf(options, io.cwd);
  const found = await findSavedCallFiles(files, dir, io.cwd);
  const filter = parseFilter(typeof options.filter === 'string' ? options.filter : '');
  const calls = (await loadSavedCalls(found, io.cwd)).filter((c) => !filter || recordMatches(savedCallAsRecord(c.saved), filter));
  if (calls.length === 0) {
    throw new UserError('no_saved_calls', `No saved calls to run${files.length > 0 || filter ? ' match' : ` in ${shownPath(dir, io.cwd)}`}.`, {
      hint: 'Save recorded calls with `median-dev calls save <toolCallId>` (they go to median-calls/), or name other files.',
    });
  }
  return { calls, dir };
}

/**
 * `median-dev test [files…] [-- <dev server command>]`: sends every saved
 * call to the local route again, re-signed, and checks what the agent would
 * be told, the answer, the manifest and the docs' limits. No tunnel, no
 * Median, no account. Exit 0 all passed (or updated), 1 any failed.
 */
export async function runTest(files: string[], devCommand: string[], options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const routeUrl = `${config.target}${config.route}`;
  if (foreignOwnerOf(routeUrl) === 'production' && options.allowProduction !== true) {
    throw new UserError('production_target', `${routeUrl} looks like production (not a local address or a dev tunnel), and a test run sends every saved call to it, actions included.`, {
      hint: 'Point --target at your dev server (http://localhost:3000), or pass --allow-production if this really is a server for tests.',
    });
  }
  const { calls } = await selectSavedCalls(files, options, io);
  const style = createStyle(useColor(io));
  const startedAt = new Date();
  const started = performance.now();
  const abort = new AbortController();
  const unsubscribe = io.onSignal(() => abort.abort());
  let server: TestDevServer | undefined;
  let secret: Uint8Array;
  try {
    if (devCommand.length > 0) {
      const medianKey = throwawayMedianKey();
      io.addSecrets?.([medianKey]);
      secret = resolveToolSecret({ medianKey });
      if (!config.json) writeLine(io.stderr, style.dim(`Starting ${devCommand.join(' ')} (with a throwaway MEDIAN_KEY) and waiting for ${routeUrl} …`));
      server = await startTestDevServer({ command: devCommand, cwd: io.cwd, env: io.env, medianKey, routeUrl, signal: abort.signal });
    } else {
      secret = requireSecret(config, 'A test run');
      if (!(await isRouteAnswering(routeUrl, { timeoutMs: 3_000, signal: abort.signal }))) {
        throw new UserError('route_unreachable', `Nothing answers at ${routeUrl}.`, {
          hint: 'Start your dev server first, or let the test run start it: median-dev test -- npm run dev.',
        });
      }
    }
    const manifest = await fetchManifest(routeUrl, secret);
    const tools: ManifestTool[] | null = manifest.judgement.ok ? manifest.judgement.manifest.tools : null;
    if (!tools && !config.json) writeLine(io.stderr, style.yellow(`⚠ The manifest could not be read (${manifest.judgement.ok ? '' : safeLine(manifest.judgement.message)}): the manifest checks are skipped.`));
    if (!config.json) writeLine(io.stdout, style.dim(`median-dev test: ${calls.length} saved call${calls.length === 1 ? '' : 's'} against ${routeUrl}`));
    const results = await runSavedCalls(calls, {
      send: (body) => sendOne(routeUrl, body, secret),
      tools,
      isNewId: options.sameId !== true,
      shouldUpdate: options.update === true,
      shouldBail: options.bail === true,
      concurrency: parseCount(options.concurrency, '--concurrency') ?? 1,
      signal: abort.signal,
      onResult: (result) => {
        if (!config.json) for (const line of formatResultLines(result, style)) writeLine(io.stdout, line);
      },
    });
    const mask = createOutputMasker(secretsToMask({ medianKey: config.medianKey, toolSecret: config.toolSecret }));
    for (const result of results) if (result.rewritten) await writeSavedCall(isAbsolute(result.file) ? result.file : resolve(io.cwd, result.file), result.rewritten, mask.text);
    const summary = summarize(results, calls.length, performance.now() - started);
    if (typeof options.junit === 'string') {
      const reached = new Set(results.map((r) => r.file));
      const notRun = calls.filter((c) => !reached.has(c.file)).map((c) => ({ file: c.file, name: c.saved.name, tool: c.saved.call.tool }));
      const xml = junitReport(results, { suiteName: shownPath(callsDirOf(options, io.cwd), io.cwd), startedAt: startedAt.toISOString(), durationMs: summary.durationMs, notRun });
      const path = isAbsolute(options.junit) ? options.junit : resolve(io.cwd, options.junit);
      await writeFileAtomic(path, xml, { mode: 0o644 }).catch((error: unknown) => {
        throw new UserError('saved_call_write_failed', `Cannot write ${path} (${errorCode(error) ?? String(error)}).`, { cause: error });
      });
    }
    if (config.json) {
      writeJson(io, { target: routeUrl, ...summary, results: results.map(({ rewritten: _r, ...rest }) => rest) });
    } else {
      writeLine(io.stdout, '');
      writeLine(io.stdout, formatSummary(summary, style));
      if (summary.failed > 0) writeLine(io.stdout, style.dim('Accept the new answers with `median-dev test --update` when the change is intended.'));
    }
    if (summary.failed > 0) throw new QuietFailure(1);
  } finally {
    unsubscribe();
    await server?.close();
  }
}
