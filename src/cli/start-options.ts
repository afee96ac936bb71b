import type { Command } from 'commander';
import { Option } from 'commander';
import { DEFAULTS, TUNNEL_PROVIDERS } from '../config/defaults.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `median-dev start`'s own options (the common ones are added by the program). */
export function withStartOptions(command: Command): Command {
  return command
      .option('--port <n>', 'the proxy port on 127.0.0.1 (0: any free port); without it 4141, or a free port when 4141 is taken')
      .addOption(
        new Option('--tunnel <provider>', 'tunnel provider (default: the last one given in this data dir, else localtunnel; auto: ngrok with NGROK_AUTHTOKEN, else cloudflared on PATH, else localtunnel)').choices([
          ...TUNNEL_PROVIDERS,
        ]),
      )
      .option('--tunnel-host <url>', 'localtunnel server (env MEDIAN_DEV_TUNNEL_HOST, default https://localtunnel.me)')
      .option('--tunnel-domain <domain>', 'localtunnel: the domain that server names tunnels under, when not its own (repeatable)', collect)
      .option('--subdomain <name>', 'localtunnel subdomain to ask for (default: from the project folder, remembered)')
      .option('--domain <name>', 'ngrok: your static domain, like my-shop.ngrok-free.dev (remembered); the URL then never changes')
      .option('--attach', 'ngrok: use the ngrok agent you already run (`ngrok http 4141`) instead of ngrok in process')
      .option('--ngrok-api <url>', 'ngrok: the running agent’s local API', 'http://127.0.0.1:4040')
      .option('--ssh <server>', 'ssh: the server to tunnel through, like nokey@localhost.run (remembered)')
      .option('--ssh-option <Key=Value>', 'ssh: an extra ssh -o option (repeatable)', collect)
      .option('--cloudflared-tunnel <name>', 'cloudflared: a named tunnel (with --public-url, the hostname routed to it) instead of a quick tunnel')
      .option('--public-url <origin>', 'with --tunnel none (or a named cloudflared tunnel): the public origin that reaches the proxy')
      .option('--watch <glob>', 'a change to a matching file triggers a sync (repeatable)', collect)
      .option('--no-auto-fix', 'do not change or remove stale endpoints')
      .option('--allow-production-org', 'connect even into an organisation that holds production endpoints (remembered for this project)')
      .option('--no-allow-production-org', 'forget an earlier --allow-production-org for this project')
      .option('--no-tui', 'plain log lines instead of the terminal UI')
      .option('--json', 'one JSON event a line on stdout (implies --no-tui)')
      .option('--redact-visitor', 'mask visitor email and name in recordings')
      .option('--sync-records', 'hold each answer until its record is on the disk, not only written (a power cut then loses no recorded call; slower)')
      .option('--inspector-port <n>', 'the browser inspector on 127.0.0.1 (taken: any free port; 0: any)', String(DEFAULTS.inspectorPort))
      .option('--no-inspector', 'do not serve the browser inspector')
      .addOption(
        new Option('--restart-on-url-change <when>', 'the dev server when the tunnel URL changes: auto leaves one that reloads its env files itself (next dev) running, always restarts, never keeps it running with the old URL')
          .choices(['auto', 'always', 'never'])
          .default('auto'),
      );
}
