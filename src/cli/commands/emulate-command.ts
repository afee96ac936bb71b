import { safeJson } from '../../shared/output-sanitiser.js';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import type { Endpoint } from '../../median/index.js';
import { UserError, codeOf, errorCode } from '../../shared/errors.js';
import { keyFingerprint } from '../../median/index.js';
import { writeLine, type CliIo } from '../cli-io.js';

export async function runEmulate(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const portText = String(options.port ?? '4100');
  if (!/^\d+$/.test(portText) || Number(portText) > 65535) {
    throw new UserError('invalid_port', `--port must be a whole number from 0 to 65535, not "${portText}".`, { exitCode: 2 });
  }
  const key = io.env.MEDIAN_KEY || undefined;
  const emulator = await startEmulator({ port: Number(portText), ...(key ? { key } : {}) }).catch((error: unknown) => {
    if (errorCode(error) === 'EADDRINUSE') {
      throw new UserError('port_in_use', `Port ${portText} on 127.0.0.1 is taken.`, { hint: 'Pass --port 0 for any free port.' });
    }
    throw error;
  });
  let held: Endpoint[];
  try {
    held = await holdEndpoints(emulator, options);
  } catch (error) {
    await emulator.close();
    throw error;
  }
  // Listening for Ctrl-C before saying it is up: a script may stop it as soon as it reads the line.
  const stopped = new Promise<void>((resolve) => {
    const unsubscribe = io.onSignal(() => {
      unsubscribe();
      resolve();
    });
  });
  if (options.json === true) {
    io.stdout.write(`${safeJson({ event: 'emulator', at: new Date().toISOString(), url: emulator.url, ...(key ? { keyFingerprint: keyFingerprint(key) } : { key: emulator.key }), held: held.map((e) => ({ id: e.id, url: e.url, status: e.status, tools: e.tools.map((t) => t.name) })) })}\n`);
  } else {
    writeLine(io.stdout, `Median emulator listening on ${emulator.url}`);
    writeLine(io.stdout, '');
    writeLine(io.stdout, `  MEDIAN_API_URL=${emulator.url}`);
    // A key from the environment may be a real one: never print it.
    writeLine(io.stdout, key ? `  MEDIAN_KEY: yours from the environment (${keyFingerprint(key)})` : `  MEDIAN_KEY=${emulator.key}   (made for this run; set MEDIAN_KEY to choose one)`);
    for (const e of held) writeLine(io.stdout, `  holds ${e.url} (${e.tools.map((t) => t.name).join(', ')}): ${e.status}${e.error ? ` — ${e.error}` : ''}`);
    writeLine(io.stdout, '');
    writeLine(io.stdout, 'Point a route at it with MEDIAN_API_URL, or run `median-dev start --median-api <url>`. Ctrl-C stops it.');
  }
  await stopped;
  await emulator.close();
}

function toolNames(value: unknown, flag: string): string[] {
  const names = String(value ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (names.length === 0) throw new UserError('invalid_tools', `${flag} needs at least one tool name, like orderStatus,trackParcel.`, { exitCode: 2 });
  return names;
}

/** `--production` and `--teammate`: endpoints the emulator answers for itself, held before anything connects. */
async function holdEndpoints(emulator: Emulator, options: Record<string, unknown>): Promise<Endpoint[]> {
  const held: Endpoint[] = [];
  for (const [flag, toolsFlag, toolsOption] of [
    ['production', '--production-tools', 'productionTools'],
    ['teammate', '--teammate-tools', 'teammateTools'],
  ] as const) {
    const url = options[flag];
    if (typeof url !== 'string') continue;
    const tools = toolNames(options[toolsOption], toolsFlag);
    held.push(
      await emulator.holdEndpoint({ url, tools }).catch((error: unknown) => {
        throw new UserError(codeOf(error, 'invalid_url'), `--${flag} ${url}: ${error instanceof Error ? error.message : String(error)}`, { exitCode: 2 });
      }),
    );
  }
  return held;
}
