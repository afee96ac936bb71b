#!/usr/bin/env node
// The only module that touches the process: argv, env, streams, signals, exit.
import { runCli } from './run-cli.js';
import type { CliIo } from './cli-io.js';

const io: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  isTTY: process.stdout.isTTY === true,
  isInteractive: process.stdin.isTTY === true,
  pid: process.pid,
  exit(code) {
    process.exit(code);
  },
  onSignal(handler) {
    const onInt = () => handler('SIGINT');
    const onTerm = () => handler('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    return () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    };
  },
};

const code = await runCli(process.argv.slice(2), io);
process.exitCode = code;
