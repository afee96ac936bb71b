import type { TunnelProgram } from '../platform/index.js';
import { createLostSignal, signalledConnection } from './lost-signal.js';
import type { TunnelConnection } from './tunnel-provider.js';

/**
 * The open tunnel of a provider that runs a program (cloudflared, ssh): lost
 * when the program exits by itself, closed by stopping it (its process group,
 * SIGTERM then SIGKILL). The program's own reconnects are its business; the
 * health probe notices one that is alive but carries nothing.
 */
export function programConnection(program: TunnelProgram, url: string, lostMessage: string): TunnelConnection {
  const lost = createLostSignal();
  void program.exited.then((exit) => lost.lose(`${lostMessage} (${exit.signal ?? `code ${exit.code}`})`));
  return signalledConnection(url, lost, async () => void (await program.stop()));
}
