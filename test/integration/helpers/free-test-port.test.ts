import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TEST_PORT_RANGE, TEST_PORT_SLICES, testPortSlice } from '../../helpers/free-test-port.js';

/** The helper as built (dist/), imported by a process of its own, as each vitest fork has its own copy. */
const BUILT_HELPER = fileURLToPath(new URL('../../../dist/test/helpers/free-test-port.js', import.meta.url));

/** `count` ports handed out by a process that is vitest worker `poolId`. */
function portsOfWorker(poolId: number, count: number): Promise<number[]> {
  const script = `const { freeTestPort } = await import(process.argv[1]); const ports = []; for (let i = 0; i < ${count}; i++) ports.push(await freeTestPort()); console.log(JSON.stringify(ports));`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script, BUILT_HELPER], { env: { ...process.env, VITEST_POOL_ID: String(poolId) } }, (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout) as number[]),
    );
  });
}

describe('freeTestPort', () => {
  it('gives each worker a slice of its own below the ephemeral range', () => {
    const slices = Array.from({ length: TEST_PORT_SLICES }, (_, i) => testPortSlice(i + 1));
    for (const [i, slice] of slices.entries()) {
      expect(slice.from).toBeGreaterThanOrEqual(TEST_PORT_RANGE.from);
      expect(slice.to).toBeLessThanOrEqual(TEST_PORT_RANGE.to);
      if (i > 0) expect(slice.from).toBeGreaterThanOrEqual(slices[i - 1]!.to);
    }
  });

  it('two workers at once never hand out the same port, each from its slice', { timeout: 30_000 }, async () => {
    if (!existsSync(BUILT_HELPER)) throw new Error(`Build first (npm run build): ${BUILT_HELPER} is missing.`);
    const [first, second] = await Promise.all([portsOfWorker(1, 40), portsOfWorker(2, 40)]);
    expect(new Set([...first!, ...second!]).size).toBe(80);
    for (const [ports, slice] of [[first!, testPortSlice(1)], [second!, testPortSlice(2)]] as const) {
      for (const port of ports) expect(port >= slice.from && port < slice.to, `${port} in ${slice.from}-${slice.to}`).toBe(true);
    }
  });
});
