import type { Daemon } from '../daemon/daemon-options.js';
import type { TuiWiring } from './attach-tui.js';
import { useColor, writeLine, type CliIo } from './cli-io.js';
import { eventToJsonLine, eventToLogLine } from './format-event.js';
import { createStyle } from './terminal-style.js';
import { cliCommandLine, pastableFlags, pastableText } from './command-line.js';
import { crashDaemonOnCall } from './crash-knobs.js';

/**
 * Runs a started daemon in the foreground: prints its events (JSON lines,
 * log lines or the TUI) and closes it on SIGINT/SIGTERM; a second signal
 * exits at once.
 */
export async function runDaemonInForeground(
  daemon: Daemon,
  io: CliIo,
  mode: { json: boolean; tui: boolean; isDemo?: boolean; helpNote?: string; config: TuiWiring['config'] },
): Promise<void> {
  const style = createStyle(useColor(io));
  /** `fromSnapshot`: subscribed after the start's events went by (the TUI failed), so the proxy's comes from the snapshot. */
  const printEvents = (fromSnapshot: boolean): void => {
    const print = (event: Parameters<Parameters<Daemon['events']['on']>[0]>[0]) => {
      if (mode.json) {
        if (event.event === 'output') io.stderr.write(`[dev] ${event.line}\n`);
        else io.stdout.write(`${eventToJsonLine(event)}\n`);
        return;
      }
      const line = eventToLogLine(event, style);
      // Hints such as `median-dev inspect` name how the user runs us and this data dir's flags, so they paste as printed.
      if (line !== undefined) writeLine(io.stdout, pastableText(line, io, mode.config));
    };
    if (fromSnapshot) for (const event of initialEvents(daemon)) print(event);
    daemon.events.on(print);
  };
  let detachTui: (() => void) | undefined;
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
  } else {
    printEvents(false); // right after the start: its events so far (the proxy's on) come first
  }

  let signals = 0;
  const unsubscribe = io.onSignal(() => {
    signals += 1;
    if (signals > 1) {
      detachTui?.();
      daemon.killNow();
      io.stderr.write('median-dev: second signal, exiting now (the dev server was killed).\n');
      io.exit(130);
      return;
    }
    void daemon.close();
  });
  // A daemon that dies of a bug still stops its dev server (no orphan left holding the port).
  const unsubscribeCrash = io.onCrash?.(() => daemon.killNow());
  crashDaemonOnCall(daemon, io.env);
  try {
    await daemon.closed;
  } finally {
    unsubscribeCrash?.();
    unsubscribe();
    detachTui?.();
  }
}

/** The events that happened before we subscribed, rebuilt from the snapshot. */
function initialEvents(daemon: Daemon) {
  const snapshot = daemon.snapshot();
  const at = new Date().toISOString();
  return snapshot.proxyUrl ? [{ event: 'proxy' as const, at, url: snapshot.proxyUrl }] : [];
}
