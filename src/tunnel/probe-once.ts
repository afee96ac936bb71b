import type { Clock, ClockTimer } from '../shared/clock.js';
import { PROBE_TIMED_OUT, type HealthProbe, type HealthProbeResult } from './health-probe.js';
import { LOCALTUNNEL_PAGE_ADVICE } from './localtunnel-pages.js';

/** Why a probe result is a miss, for the `down` message. */
export function describeMiss(result: HealthProbeResult): string {
  if (result.kind === 'answered' && result.page) return LOCALTUNNEL_PAGE_ADVICE[result.page].says;
  if (result.kind === 'answered') return `got ${result.status} from something other than this median-dev`;
  if (result.kind === 'no-answer') return 'reached the host but got no answer';
  return 'could not reach the host';
}

/** Time a probe gets after its signal aborted (for its own connect check) before it counts as unreachable. */
const PROBE_GRACE_MS = 1_500;

/**
 * One probe: its signal aborts after `timeoutMs` (on `clock`), and the probe
 * says what it found (a `no-answer` from a host that took the connection); a
 * probe that throws, or does not settle within the grace after that, is
 * unreachable.
 */
export async function probeOnce(
  probe: HealthProbe,
  url: string,
  { timeoutMs, clock }: { timeoutMs: number; clock: Clock },
  track: (controller: AbortController) => void,
): Promise<HealthProbeResult> {
  const controller = new AbortController();
  track(controller);
  let timer: ClockTimer | undefined;
  let graceTimer: ClockTimer | undefined;
  const timedOut = new Promise<HealthProbeResult>((resolve) => {
    const settle = (): void => resolve({ kind: 'unreachable', error: new Error('probe timed out or was stopped') });
    timer = clock.setTimer(() => controller.abort(PROBE_TIMED_OUT), timeoutMs);
    controller.signal.addEventListener(
      'abort',
      () => {
        // Stopped (the tunnel closed or went down): at once. Timed out: the probe may still say `no-answer`.
        if (controller.signal.reason !== PROBE_TIMED_OUT) return settle();
        graceTimer = clock.setTimer(settle, PROBE_GRACE_MS);
      },
      { once: true },
    );
  });
  try {
    return await Promise.race([probe(url, { signal: controller.signal }).catch((error: unknown) => ({ kind: 'unreachable' as const, error })), timedOut]);
  } finally {
    timer?.cancel();
    graceTimer?.cancel();
  }
}
