import type { CallRecord } from '../median/index.js';
import { judgeAnswer } from '../median/index.js';
import { declaredRiskOf, prepareReplay, sendSignedCall } from '../replay/index.js';
import { MedianDevError } from '../shared/errors.js';
import type { ControlCommand } from '../events/index.js';

export interface CommandHandlerDeps {
  findCall(toolCallId: string): Promise<CallRecord>;
  /** The newest manifest read the route answered: its declared risks count for a replay. */
  latestManifestRead(): Promise<CallRecord | undefined>;
  secret(): Uint8Array | undefined;
  routeUrl: string;
  sync(): Promise<void>;
  restartChild(): Promise<void>;
  simulateHostnameChange(): Promise<void>;
  sendDiagnostics(): Promise<unknown>;
  clear(): void;
}

/** What a control-channel (or TUI) command does in the daemon. */
export function createCommandHandler(deps: CommandHandlerDeps): (command: ControlCommand) => Promise<unknown> {
  return async (command) => {
    switch (command.command) {
      case 'replay': {
        const original = await deps.findCall(command.toolCallId);
        const prepared = prepareReplay(original, {
          declaredRisk: declaredRiskOf(await deps.latestManifestRead(), original.tool ?? ''),
          ...(command.newId ? { newId: true } : {}),
          ...(command.input !== undefined ? { input: command.input } : {}),
          ...(command.confirmed ? { confirmed: true } : {}),
        });
        const secret = deps.secret();
        if (!secret) {
          throw new MedianDevError('missing_key', 'A replay has to be signed, and no MEDIAN_KEY is set.', {
            hint: 'Set MEDIAN_KEY in the env file; median-dev picks it up.',
          });
        }
        const answer = await sendSignedCall({
          url: deps.routeUrl,
          body: prepared.body,
          secret,
          replayOf: original.id,
          ...(command.atOffsetMs !== undefined ? { atOffsetMs: command.atOffsetMs } : {}),
        });
        return {
          toolCallId: prepared.toolCall.toolCallId,
          replayOf: original.id,
          status: answer.status,
          durationMs: answer.durationMs,
          verdict: judgeAnswer({ status: answer.status, headers: answer.headers, body: answer.body, durationMs: answer.durationMs }).kind,
        };
      }
      case 'sync':
        await deps.sync();
        return { synced: true };
      case 'restart-child':
        await deps.restartChild();
        return { restarted: true };
      case 'diagnostics':
        return deps.sendDiagnostics();
      case 'simulate-hostname-change':
        await deps.simulateHostnameChange();
        return { requested: true };
      case 'clear':
        deps.clear();
        return { cleared: true };
      default: {
        const never: never = command;
        throw new MedianDevError('unknown_command', `Unknown control command ${JSON.stringify(never)}.`);
      }
    }
  };
}
