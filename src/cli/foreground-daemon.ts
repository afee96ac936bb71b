import type { Daemon } from '../daemon/daemon-options.js';
import type { TuiWiring } from './attach-tui.js';
import { useColor, writeLine, type CliIo } from './cli-io.js';
import { eventToJsonLine, eventToLogLine } from './format-event.js';
import { createStyle } from './terminal-style.js';
import { cliCommandLine, pastableFlags, pastableText } from './command-line.js';
import { crashDaemonOnCall } from './crash-knobs.js';
import { devServerLogPath } from '../daemon/dev-server-log.js';
import { devServerExitReport, followDevServerExit } from './dev-server-exit-report.js';

type DaemonEvent = Parameters<Parameters<Daemon['events']['on']>[0]>[0];

/**
 * How the daemon's events are printed without the TUI: JSON lines (`--json`)
 * or log lines. `flush`: the io gathers lines (coalesced-output.ts); a
 * call's line and the dev server's output may wait with the others, every
 * other event (the tunnel, the endpoint, a heal, an error) goes out at once,
 * with what waits before it.
 */
export function eventLinePrinter(io: CliIo, mode: { json: boolean; config: TuiWiring['config']; flush?: () => void }): (event: DaemonEvent) => void {
  const print = linePrinter(io, mode);
  return (event) => {
    print(event);
    if (event.event !== 'call' && event.event !== 'output') mode.flush?.();
  };
}

function linePrinter(io: CliIo, mode: { json: boolean; config: TuiWiring['config'] }): (event: DaemonEvent) => void {
  const style = createStyle(useColor(io));
  return (event) => {
    if (mode.json) {
      if (event.event === 'output') io.stderr.write(`[dev] ${event.line}\n`);
      else io.stdout.write(`${eventToJsonLine(event)}\n`);
      return;
    }
    const line = eventToLogLine(event, style);
    // Hints such as `median-dev inspect` name how the user runs us and this data dir's flags, so they paste as printed.
    if (line !== undefined) writeLine(io.stdout, pastableText(line, io, mode.config));
    // Its last lines went by above as `[dev]` lines, maybe long ago: all of them are in the data dir.
    if (event.event === 'child' && event.state === 'exited') writeLine(io.stdout, `         its whole output: ${devServerLogPath(mode.config.dataDir)}`);
  };
}

/**
 * Runs a started daemon in the foreground: prints its events (JSON lines,
 * log lines or the TUI) and closes it on SIGINT/SIGTERM; a second signal
 * exits at once. `printing`: the start already prints its events (the
 * `eventLinePrinter` passed to it as `onEvent`), so they are not subscribed again.
 * `signalsDuringStart`: the subscription that held the stop signals while the
 * daemon started (`holdSignalsDuringStart`): handed over, not replaced, so a
 * signal on its way as the start ends is not lost.
 */
export async function runDaemonInForeground(
  daemon: Daemon,
  io: CliIo,
  mode: { json: boolean; tui: boolean; isDemo?: boolean; helpNote?: string; printing?: boolean; signalsDuringStart?: HeldSignals; config: TuiWiring['config'] },
): Promise<void> {
  /** `fromSnapshot`: subscribed after the start's events went by (the TUI failed), so the proxy's comes from the snapshot. */
  const printEvents = (fromSnapshot: boolean): void => {
    const print = eventLinePrinter(io, mode);
    if (fromSnapshot) for (const event of initialEvents(daemon)) print(event);
    daemon.events.on(print);
  };
  let detachTui: (() => void) | undefined;
  // Under the TUI the dev server's lines vanish with its screen: its exit is said again once the terminal is back.
  const devServerExit = mode.tui ? followDevServerExit(daemon) : undefined;
  if (mode.tui) {
    // The TUI (blessed) loads only when it is shown: `--json` and `--no-tui` never load it.
    const { attachDaemonTui } = await import('./attach-tui.js');
    detachTui = attachDaemonTui(daemon, io, {
      config: mode.config,
      isDemo: mode.isDemo === true,
      ...(mode.helpNote ? { helpNote: mode.helpNote } : {}),
      onQuit: () => void daemon.close(),
      // The daemon outlives its TUI: the proxy, the tunnel and the recording go on, its events as lines.
      onFailed(error) {
        detachTui?.();
        detachTui = undefined;
        const why = error instanceof Error ? error.message : String(error);
        io.stderr.write(
          `median-dev: the terminal UI stopped (${why}). The daemon keeps running: the proxy, the tunnel and the recording go on.\n` +
            `  → \`${cliCommandLine(io)} watch${pastableFlags(mode.config, io)}\` shows it again; Ctrl-C stops median-dev.\n`,
        );
        printEvents(true);
      },
    });
  } else if (!mode.printing) {
    printEvents(false); // right after the start: its events so far (the proxy's on) come first
  }

  let signals = 0;
  const onStopSignal = (): void => {
    signals += 1;
    if (signals > 1) {
      detachTui?.();
      daemon.killNow();
      io.stderr.write('median-dev: second signal, exiting now (the dev server was killed).\n');
      io.exit(130);
      return;
    }
    void daemon.close();
  };
  // Node drops a signal on its way when the last listener goes and a new one comes: the start's subscription is kept.
  const unsubscribe = mode.signalsDuringStart ? mode.signalsDuringStart.handOver(onStopSignal) : io.onSignal(onStopSignal);
  // A daemon that dies of a bug still stops its dev server (no orphan left holding the port).
  const unsubscribeCrash = io.onCrash?.(() => daemon.killNow());
  crashDaemonOnCall(daemon, io.env);
  try {
    await daemon.closed;
  } finally {
    unsubscribeCrash?.();
    unsubscribe();
    const wasTuiShown = detachTui !== undefined;
    detachTui?.();
    devServerExit?.stop();
    const exit = devServerExit?.exit();
    if (wasTuiShown && exit) {
      const snapshot = daemon.snapshot();
      io.stderr.write(devServerExitReport(exit, snapshot.devServerOutput ?? [], snapshot.devServerLog));
    }
  }
}

/** The stop signals held while the daemon starts (holdSignalsDuringStart). */
export interface HeldSignals {
  /** From now on each signal goes to `handler`, those that came already first; returns the unsubscribe. */
  handOver(handler: () => void): () => void;
  /** Stops holding (the start failed). */
  release(): void;
}

/**
 * Holds the stop signals (Ctrl-C, SIGTERM, SIGHUP) that come while the
 * daemon starts: the tunnel and the dev server start before startDaemon
 * resolves, and a signal then must close them as one after the start does,
 * not kill the process with the dev server left running. The one
 * subscription stays until runDaemonInForeground is done with it: Node
 * drops a signal it is delivering when its last listener is removed, even
 * if another is added in the same turn.
 */
export function holdSignalsDuringStart(io: CliIo): HeldSignals {
  let count = 0;
  let handler: (() => void) | undefined;
  const unsubscribe = io.onSignal(() => {
    if (handler) handler();
    else count += 1;
  });
  return {
    handOver(next) {
      handler = next;
      for (; count > 0; count -= 1) next();
      return unsubscribe;
    },
    release: unsubscribe,
  };
}

/** The events that happened before we subscribed, rebuilt from the snapshot. */
function initialEvents(daemon: Daemon) {
  const snapshot = daemon.snapshot();
  const at = new Date().toISOString();
  return snapshot.proxyUrl ? [{ event: 'proxy' as const, at, url: snapshot.proxyUrl }] : [];
}
