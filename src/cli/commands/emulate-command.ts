import { safeJson } from '../../shared/output-sanitiser.js';
import { startEmulator } from '../../emulator/index.js';
import { UserError, errorCode } from '../../shared/errors.js';
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
  if (options.json === true) {
    io.stdout.write(`${safeJson({ event: 'emulator', at: new Date().toISOString(), url: emulator.url, ...(key ? { keyFingerprint: keyFingerprint(key) } : { key: emulator.key }) })}\n`);
  } else {
    writeLine(io.stdout, `Median emulator listening on ${emulator.url}`);
    writeLine(io.stdout, '');
    writeLine(io.stdout, `  MEDIAN_API_URL=${emulator.url}`);
    // A key from the environment may be a real one: never print it.
    writeLine(io.stdout, key ? `  MEDIAN_KEY: yours from the environment (${keyFingerprint(key)})` : `  MEDIAN_KEY=${emulator.key}   (made for this run; set MEDIAN_KEY to choose one)`);
    writeLine(io.stdout, '');
    writeLine(io.stdout, 'Point a route at it with MEDIAN_API_URL, or run `median-dev start --median-api <url>`. Ctrl-C stops it.');
  }
  await new Promise<void>((resolve) => {
    const unsubscribe = io.onSignal(() => {
      unsubscribe();
      resolve();
    });
  });
  await emulator.close();
}
