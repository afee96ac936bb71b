#!/usr/bin/env -S node --max-semi-space-size=2 --heap-growing-percent=20 --no-allocation-site-pretenuring --v8-pool-size=1
// src/cli: the command line: argument parsing, output, prompts, exit codes. The only code that touches `process` (argv, env, streams, signals, exit).
// Layer: the CLI layer. May import: src/daemon, src/proxy, src/recorder, src/tunnel, src/tunnel-server, src/endpoints, src/emulator, src/control, src/tui, src/replay, src/watch, src/child, src/inspector-server, src/saved-calls, src/events, src/median, src/config, src/presentation, src/shared, src/platform.
// This file and bin-start.ts (argv, the exit) are the only modules that touch the process: argv, env, streams, signals, exit.
// Node's options for the daemon's memory are on the first line (the bundle carries the line over; the benches and
// `npm run demo` read it, bench/bin-node-args.ts). None is set at run time: that would change the flags V8 binds its
// code cache to (bin-start.ts), and the one that was (--liftoff-only, for undici's wasm behind `fetch`) went with
// fetch itself: every request of ours is sent with Node's own client (src/shared/http-fetch.ts).
// --max-semi-space-size=2: V8's young generation stays at 2 MiB semi-spaces, where Node 20 grows them to 16 MiB under
// load (~40 MiB of RSS for garbage that dies young). A call allocates ~35 KB (sampled at 250 calls/s, 2026-12-02), so a
// scavenge comes every ~60 calls (~240 ms at 250 calls/s), the pace 4 MiB had when a call allocated ~65 KB. 4 MiB
// (until 2026-12-02) measured the same CPU per call and p99 added in interleaved runs, and the soak's RSS grew
// +14.9-15.0 MiB with it against +9.0-10.0 with 2 (BENCHMARKS.md, Soak). Not 1: at ~65 KB a call then, a scavenge every
// ~16 calls was in the p99 of a steady rate, at ~4x the scavenge CPU.
// --heap-growing-percent=20: after a full collection the old generation may grow to 1.2x its live size (but at least
// V8's 8 MB step) before the next; by default V8 picks up to 4x on a machine with a large heap limit when the process
// allocates fast (the daemon at a steady 250 calls/s), and the soak's RSS followed it to 106-110 MiB.
// --no-allocation-site-pretenuring: V8 allocates straight into the old generation the objects of a site whose objects
// mostly outlived a scavenge; the proxy's HTTP exchanges do in the daemon's first seconds, until TurboFan has
// optimised the call path (~5 s at 250 calls/s; with --no-opt it never stops), and from then on every call's request
// and answer objects were made in the old generation and died there, a few MB a minute that only a full collection
// frees: the soak's 2 minutes at 250 calls/s grew the RSS +15.9-16.7 MiB with it, +10.0-10.4 without in interleaved
// runs (+14.8-15.3 in three others; BENCHMARKS.md, Soak), the same CPU per call.
// --v8-pool-size=1: one V8 platform worker thread, not four. Each thread that runs TurboFan's compile jobs keeps a
// glibc malloc arena that grows with the jobs it ran and is never given back: the daemon's arenas held 2.9-5.0 MiB
// during a soak with four workers, 0.6-2.1 with one. Interleaved 2-minute soaks at 250 calls/s on 2026-12-05 (AMD
// EPYC, 2 cores): the RSS grew +8.9, +9.3, +8.5, +8.3 MiB with it against +11.0, +10.1, +10.8, +11.5 without, at
// the same CPU per call (BENCHMARKS.md, "Kept" under "Through the tunnel: where the floor is"). Not
// --no-concurrent-recompilation: it kept the arenas small too, but compiled on the main thread, and the CPU per
// call and p99 paid for it.
// The line is full (Linux before 5.1 reads 127 characters of it). `env -S`
// is GNU's and BSD's env (Linux, macOS; npm's Windows shims read it); BusyBox's (Alpine) has no -S.
// bin-start.ts comes first: it installs the bundle's code cache before any other chunk of it is compiled.
import { isOneShot } from './bin-start.js';
import { stopSignals } from '../platform/process-signals.js';
import type { Writable } from 'node:stream';
import { runCli } from './run-cli.js';
import type { CliIo } from './cli-io.js';
import { syncOutput } from './sync-output.js';
import { outputDeviceOf } from '../platform/output-device.js';

/** The handlers long-running commands subscribed with `onSignal`. */
const signalHandlers = new Set<(signal: 'SIGINT' | 'SIGTERM') => void>();
/** What must happen before the process dies of an uncaught error (the daemon kills its dev server). */
const crashHandlers = new Set<() => void>();

/*
 * `show` (isOneShot) writes its answer and exits: a pipe, a file or a terminal
 * it writes to is written with synchronous writes (sync-output.ts), so Node
 * never creates its net.Socket, SyncWriteStream or tty.WriteStream (net or
 * Node's streams, compiled at every start under the bin's V8 options). Every
 * other command, and /dev/null or a Windows console, gets Node's own stream,
 * its errors (EPIPE) handled by onOutputError.
 */
function outputOf(fd: 1 | 2, stream: () => NodeJS.WriteStream): Writable {
  const own = (): Writable => stream().on('error', onOutputError);
  const device = isOneShot ? outputDeviceOf(fd, process.platform) : 'other';
  return device === 'other' ? own() : syncOutput(fd, { isTTY: device === 'terminal', onError: onOutputError, fallback: own });
}
const stdout = outputOf(1, () => process.stdout);

const io: CliIo = {
  stdout,
  stderr: outputOf(2, () => process.stderr),
  // Made on first use: Node's process.stdin is a stream (a /dev/null one loads fs streams, readline and most of
  // node:stream; a terminal's, tty and net), and only prompts, the TUI and `--input -` read it.
  get stdin() {
    return process.stdin;
  },
  env: process.env,
  cwd: process.cwd(),
  isTTY: (stdout as Partial<NodeJS.WriteStream>).isTTY === true,
  get isInteractive() {
    return process.stdin.isTTY === true;
  },
  pid: process.pid,
  exit(code) {
    process.exit(code);
  },
  onCrash(handler) {
    crashHandlers.add(handler);
    return () => crashHandlers.delete(handler);
  },
  onSignal(handler) {
    signalHandlers.add(handler);
    // Ctrl-C is SIGINT; every other stop signal (SIGTERM, SIGHUP when the terminal closes, Windows'
    // SIGBREAK) stops as SIGTERM does. Without a handler, Node exits on SIGHUP at once and the dev
    // server, in its own process group, would outlive us.
    const listeners = stopSignals(process.platform).map((signal) => {
      const listener = () => handler(signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM');
      process.on(signal, listener);
      return [signal, listener] as const;
    });
    return () => {
      for (const [signal, listener] of listeners) process.off(signal, listener);
      signalHandlers.delete(handler);
    };
  },
};

/**
 * A reader that went away (`median-dev --help | head -1`, `show … | head`)
 * ends the command quietly with status 0, as git and ls do: a long-running
 * command stops as on SIGTERM (the dev server and tunnel closed in order),
 * any other exits now. Later writes to the dead stream are dropped.
 */
let isReaderGone = false;
function onOutputError(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  if (isReaderGone) return;
  isReaderGone = true;
  if (signalHandlers.size === 0) process.exit(0);
  process.exitCode = 0;
  for (const handler of [...signalHandlers]) handler('SIGTERM');
}
/** An uncaught error is a bug: said with its stack, the crash handlers run (the dev server is stopped), exit 1. */
function onCrash(error: unknown): void {
  process.stderr.write(`median-dev: crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n  → This is a bug in median-dev; please report it.\n`);
  for (const handler of [...crashHandlers]) {
    try {
      handler();
    } catch {
      // dying anyway: the next handler still runs
    }
  }
  process.exit(1);
}
process.on('uncaughtException', onCrash);
process.on('unhandledRejection', onCrash);

// No top-level await: the bundle is CommonJS (rolldown.config.mjs).
void runCli(process.argv.slice(2), io).then((code) => {
  process.exitCode = isReaderGone ? 0 : code;
});
