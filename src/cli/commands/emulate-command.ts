import { isAbsolute, resolve as resolvePath } from 'node:path';
import { safeJson } from '../../shared/output-sanitiser.js';
import { parseTunnelDomain, tunnelDomainResolver, type TunnelDomain } from '../../emulator/tunnel-domains.js';
import { startEmulator, type Emulator } from '../../emulator/start-emulator.js';
import { DEFAULTS } from '../../config/defaults.js';
import { dataDirError } from '../../config/data-dir-errors.js';
import { ignoreNewDataDir } from '../../config/ignore-data-dir.js';
import type { Endpoint } from '../../median/api-client.js';
import { UserError, codeOf, errorCode, isMedianDevError } from '../../shared/errors.js';
import { keyFingerprint } from '../../median/key.js';
import type { CliIo } from '../cli-io.js';
import { printEmulateBanner } from '../emulate-banner.js';
import { readEmulatorEnv, writeEmulatorEnv } from '../emulator-env-file.js';
import { startEmulateTunnelServer } from '../emulate-tunnel-server.js';

/** `--data-dir`, else MEDIAN_DEV_DIR, else ./.median-dev: the same data dir `start` uses. */
export function emulatorDataDir(options: Record<string, unknown>, io: CliIo): string {
  const dir = typeof options.dataDir === 'string' ? options.dataDir : (io.env.MEDIAN_DEV_DIR ?? DEFAULTS.dataDir);
  return isAbsolute(dir) ? dir : resolvePath(io.cwd, dir);
}

function tunnelDomains(value: unknown): TunnelDomain[] {
  const texts = Array.isArray(value) ? value.map(String) : [];
  return texts.map((text) => {
    try {
      return parseTunnelDomain(text);
    } catch (error) {
      if (isMedianDevError(error)) throw new UserError(error.code, error.message, { exitCode: 2 });
      throw error;
    }
  });
}

export async function runEmulate(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const portText = String(options.port ?? '4100');
  if (!/^\d+$/.test(portText) || Number(portText) > 65535) {
    throw new UserError('invalid_port', `--port must be a whole number from 0 to 65535, not "${portText}".`, { exitCode: 2 });
  }
  const ownDomains = tunnelDomains(options.tunnelDomain);
  const dataDir = emulatorDataDir(options, io);
  // --with-tunnel-server: a loopback localtunnel server beside it; its domain first, so the banner's start uses it.
  const tunnel = options.withTunnelServer === undefined || options.withTunnelServer === false ? undefined : await startEmulateTunnelServer(options.withTunnelServer);
  const domains = tunnel ? [tunnel.domain, ...ownDomains] : ownDomains;
  const envKey = io.env.MEDIAN_KEY || undefined;
  // The key this data dir's last emulator made, so env files written for it stay right.
  const keptKey = envKey ? undefined : (await readEmulatorEnv(dataDir)).key;
  const key = envKey ?? keptKey;
  const emulator = await startEmulator({
    port: Number(portText),
    ...(key ? { key } : {}),
    ...(domains.length > 0 ? { resolve: tunnelDomainResolver(domains) } : {}),
  }).catch(async (error: unknown) => {
    await tunnel?.server.close();
    if (errorCode(error) === 'EADDRINUSE' || errorCode(error) === 'port_in_use') {
      throw new UserError('port_in_use', `Port ${portText} on 127.0.0.1 is taken.`, { hint: 'Pass --port 0 for any free port.' });
    }
    throw error;
  });
  let held: Endpoint[];
  let envFile: string;
  // It holds a key: a new data dir inside a git checkout goes into its .gitignore, as start does.
  const ignoredNote = await ignoreNewDataDir(dataDir).catch(() => undefined);
  try {
    // A key from the environment may be a real one: it never goes into the file.
    envFile = await writeEmulatorEnv(dataDir, { apiUrl: emulator.url, ...(envKey ? {} : { key: emulator.key }) }).catch((error: unknown) => {
      throw dataDirError(error, dataDir) ?? error;
    });
    held = await holdEndpoints(emulator, options);
  } catch (error) {
    await emulator.close();
    await tunnel?.server.close();
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
    io.stdout.write(
      `${safeJson({
        event: 'emulator',
        at: new Date().toISOString(),
        url: emulator.url,
        ...(envKey ? { keyFingerprint: keyFingerprint(envKey) } : { key: emulator.key }),
        envFile,
        ...(ignoredNote ? { note: ignoredNote } : {}),
        tunnelDomains: domains,
        ...(tunnel ? { tunnelServer: tunnel.server.url } : {}),
        held: held.map((e) => ({ id: e.id, url: e.url, status: e.status, tools: e.tools.map((t) => t.name) })),
      })}\n`,
    );
  } else {
    printEmulateBanner(io, { url: emulator.url, key: emulator.key, isKeyFromEnv: envKey !== undefined, isKeyKept: keptKey !== undefined, envFile, dataDir, domains, held, ...(tunnel ? { tunnelServer: tunnel.server.url } : {}), ...(ignoredNote ? { note: ignoredNote } : {}) });
  }
  await stopped;
  await emulator.close();
  await tunnel?.server.close();
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
