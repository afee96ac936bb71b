/**
 * A process between the daemon's stdout and the bench: it reads the
 * daemon's `--json` lines, drops the `call` lines (counting them), and
 * passes every other line on, with the count as a `relay-calls` line at most
 * once a second while calls come. With it, the bench process, which also
 * times the calls, never reads the `call` lines: the tunnel world puts one
 * after every daemon unless told otherwise (bench/scenarios/tunnel-world.ts;
 * `bench:parts --variant-read-here` for a daemon without it).
 *
 *   node dist/bench/soak/call-line-relay.js   (stdin: the daemon's stdout)
 */
import { fileURLToPath } from 'node:url';

const CALL_PREFIX = '{"event":"call"';

export const RELAY_CALLS_EVENT = 'relay-calls';

function relay(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): void {
  let carry = '';
  let calls = 0;
  let told = 0;
  const tell = (): void => {
    if (calls === told) return;
    told = calls;
    output.write(`{"event":"${RELAY_CALLS_EVENT}","count":${calls}}\n`);
  };
  const timer = setInterval(tell, 1_000);
  input.setEncoding('utf8');
  input.on('data', (text: string) => {
    const lines = (carry + text).split('\n');
    carry = lines.pop() ?? '';
    let passed = '';
    for (const line of lines) {
      if (line.startsWith(CALL_PREFIX)) calls += 1;
      else passed += `${line}\n`;
    }
    if (passed !== '') output.write(passed);
  });
  input.on('end', () => {
    clearInterval(timer);
    if (carry !== '') output.write(`${carry}\n`);
    tell();
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) relay(process.stdin, process.stdout);
