import type { CallRecord } from '../median/index.js';
import { judgeAnswer, replayMarker } from '../median/index.js';
import { declaredRiskOf, prepareReplay, sendSignedCall } from '../replay/index.js';
import { MedianDevError } from '../shared/errors.js';
import type { ControlCommand } from '../events/index.js';

export interface ReplayCommandDeps {
  findCall(toolCallId: string): Promise<CallRecord>;
  /** The newest manifest read the route answered: its declared risks count for a replay. */
  latestManifestRead(): Promise<CallRecord | undefined>;
  secret(): Uint8Array | undefined;
  /** The route through our proxy, so the replay is recorded (with replayOf). */
  routeUrl: string;
  /** The proxy's replay key: the replay is marked with it. */
  replayKey: string;
}

/** The `replay` command: the recorded call again, signed with the key in use, through the proxy. */
export function createReplayCommand(deps: ReplayCommandDeps): (command: Extract<ControlCommand, { command: 'replay' }>) => Promise<unknown> {
  return async (command) => {
    const original = await deps.findCall(command.toolCallId);
    const prepared = prepareReplay(original, {
      declaredRisk: declaredRiskOf(await deps.latestManifestRead(), original.tool ?? ''),
      ...(command.newId ? { newId: true } : {}),
      ...(command.input !== undefined ? { input: command.input } : {}),
      ...(command.confirmed ? { confirmed: true } : {}),
      ...(command.allowUnsignedOriginal ? { allowUnsignedOriginal: true } : {}),
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
      replayMarker: replayMarker(deps.replayKey, original.id),
      ...(command.atOffsetMs !== undefined ? { atOffsetMs: command.atOffsetMs } : {}),
    });
    return {
      toolCallId: prepared.toolCall.toolCallId,
      replayOf: original.id,
      status: answer.status,
      durationMs: answer.durationMs,
      verdict: judgeAnswer({ status: answer.status, headers: answer.headers, body: answer.body, durationMs: answer.durationMs }).kind,
    };
  };
}
