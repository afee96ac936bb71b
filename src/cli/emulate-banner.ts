import { join } from 'node:path';
import { tunnelHostUrl, type TunnelDomain } from '../emulator/tunnel-domains.js';
import { DEFAULTS } from '../config/defaults.js';
import { keyFingerprint } from '../median/key.js';
import type { Endpoint } from '../median/api-client.js';
import { writeLine, type CliIo } from './cli-io.js';
import { cliCommandLine, shellWord } from './command-line.js';

export interface EmulateBanner {
  url: string;
  key: string;
  isKeyFromEnv: boolean;
  isKeyKept: boolean;
  envFile: string;
  dataDir: string;
  domains: readonly TunnelDomain[];
  held: readonly Endpoint[];
  /** The localtunnel server `--with-tunnel-server` runs, if it does. */
  tunnelServer?: string;
  /** Said once under the key (the data dir went into .gitignore). */
  note?: string;
}

/** The `start` argv (before `--`) that works against this emulator, as the banner prints it. */
export function startFlagsFor(banner: Pick<EmulateBanner, 'url' | 'envFile' | 'domains'>): string[] {
  const first = banner.domains[0];
  return ['--median-api', banner.url, '--env', banner.envFile, ...(first ? ['--tunnel-host', tunnelHostUrl(first), '--tunnel-domain', first.domain] : [])];
}

/** What `median-dev emulate` prints: where it listens, the key, and the two commands that come next. */
export function printEmulateBanner(io: CliIo, banner: EmulateBanner): void {
  const cli = cliCommandLine(io);
  const isDefaultDir = banner.dataDir === join(io.cwd, DEFAULTS.dataDir);
  const dirFlag = isDefaultDir ? '' : ` --data-dir ${shellWord(banner.dataDir)}`;
  const out = (line = ''): void => writeLine(io.stdout, line);
  out(`Median emulator listening on ${banner.url}`);
  out();
  out(`  MEDIAN_API_URL=${banner.url}`);
  // A key from the environment may be a real one: never print it.
  if (banner.isKeyFromEnv) out(`  MEDIAN_KEY: yours from the environment (${keyFingerprint(banner.key)})`);
  else out(`  MEDIAN_KEY=${banner.key}   (${banner.isKeyKept ? 'kept from the last run' : 'made for this emulator'}; set MEDIAN_KEY to choose one)`);
  out(`  ${banner.isKeyFromEnv ? 'the URL' : 'both'} kept in ${banner.envFile} (0600)`);
  if (banner.note) out(`  ${banner.note}`);
  for (const d of banner.domains) out(`  tunnel *.${d.domain} → ${tunnelHostUrl(d)} (${banner.tunnelServer === tunnelHostUrl(d) ? 'its own localtunnel server, --with-tunnel-server' : 'your tunnel server'})`);
  for (const e of banner.held) out(`  holds ${e.url} (${e.tools.map((t) => t.name).join(', ')}): ${e.status}${e.error ? ` — ${e.error}` : ''}`);
  out();
  out('1. In your project, run your dev server through median-dev against this emulator:');
  out(`   ${cli} start ${startFlagsFor(banner).map(shellWord).join(' ')} -- npm run dev`);
  out('2. Once it says "endpoint synced", have the cloud call a tool through your tunnel, signed:');
  out(`   ${cli} emulate call <tool>${dirFlag} [--input '{"field":"value"}']`);
  out();
  out('Ctrl-C stops the emulator.');
}
