/**
 * `node dist/bench/run-as-bin.js <args>`: package.json's bin run as the
 * installed `median-dev` runs it, with the node options of its shebang line
 * (bench/bin-node-args.ts), for `npm run demo` in a clone, where npm has no
 * bin to call. The CLI is a child with this terminal; its exit code is ours.
 */
import { spawn } from 'node:child_process';
import { binArgv } from './bin-node-args.js';
import { CLI_ENTRY } from './cli-entry.js';

const child = spawn(process.execPath, binArgv(CLI_ENTRY, process.argv.slice(2)), { stdio: 'inherit' });
// Ctrl-C and a closed terminal reach the CLI itself (same process group), which stops on them; a second
// one would force it, so they are not passed on. A SIGTERM sent to this process alone is.
process.on('SIGINT', () => undefined);
process.on('SIGHUP', () => undefined);
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.once('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
  process.removeAllListeners('SIGINT').removeAllListeners('SIGHUP').removeAllListeners('SIGTERM');
});
