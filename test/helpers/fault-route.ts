import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The compiled fault route (test/helpers/fault-route-server.ts): a dev server that crashes, resets, stalls or restarts on request. */
export const FAULT_ROUTE = fileURLToPath(new URL('../../dist/test/helpers/fault-route-server.js', import.meta.url));

/** The child command running the fault route; `supervised`: behind a supervisor that restarts it on SIGUSR2. */
export function faultRouteCommand(options: { supervised?: boolean } = {}): { childCommand: string[]; env: Record<string, string> } {
  if (!existsSync(FAULT_ROUTE)) throw new Error(`The fault route is not built: run \`npx tsc -p .\` first (${FAULT_ROUTE} is missing).`);
  return { childCommand: [process.execPath, FAULT_ROUTE], env: options.supervised ? { FAULT_ROUTE_SUPERVISE: '1' } : {} };
}
