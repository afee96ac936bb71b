import { connectToDaemon } from '../../control/control-client.js';
import { UserError } from '../../shared/errors.js';
import type { CliIo } from '../cli-io.js';
import { attachTui } from '../attach-tui.js';
import { loadConfig } from '../load-config.js';

/** The terminal UI attached to a running daemon (a second terminal, or after --no-tui). */
export async function runWatch(options: Record<string, unknown>, io: CliIo): Promise<void> {
  if (!io.isTTY || !io.isInteractive) {
    throw new UserError('not_a_terminal', '`median-dev watch` shows a terminal UI, and this is not a terminal.', {
      hint: 'For scripts, use `median-dev calls --json`, or `median-dev start --json` for live events.',
    });
  }
  const config = await loadConfig(options, io);
  const client = await connectToDaemon(config.dataDir);
  let failure: unknown;
  await new Promise<void>((resolve) => {
    const attached = attachTui(client, io, {
      config,
      isDemo: client.snapshot.isDemo,
      onQuit: () => void attached.close().then(resolve),
      onFailed(error) {
        failure = error;
        void attached.close().then(resolve);
      },
    });
    const unsubscribe = io.onSignal(() => {
      unsubscribe();
      void attached.close().then(resolve);
    });
  });
  // Only this terminal's view is gone: the daemon, in its own process, goes on.
  if (failure !== undefined) {
    throw new UserError('tui_failed', `The terminal UI stopped: ${failure instanceof Error ? failure.message : String(failure)}. The daemon keeps running.`, {
      hint: 'Run `median-dev watch` again, or `median-dev calls` to list the calls.',
    });
  }
}
