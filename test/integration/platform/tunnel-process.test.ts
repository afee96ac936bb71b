import { describe, expect, it, onTestFinished } from 'vitest';
import { startTunnelProgram } from '../../../src/platform/tunnel-process.js';

/**
 * A program that exits at once while a child it started (holding its stderr)
 * prints one more line `lateMs` later and then keeps the pipe `holdMs` more:
 * the exit is seen before that line is read, as ssh's "Host key
 * verification failed." was under load.
 */
function exitsBeforeItsLastLine(lateMs: number, holdMs: number): string[] {
  const grandchild = `setTimeout(() => { console.error('late-line'); setTimeout(() => {}, ${holdMs}); }, ${lateMs})`;
  const program = `const c = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: ['ignore', 'ignore', 'inherit'] }); console.log('pid ' + c.pid); process.exit(3);`;
  return ['-e', program];
}

function start(args: string[]) {
  const lines: string[] = [];
  const program = startTunnelProgram({ file: process.execPath, args, env: { PATH: process.env.PATH ?? '' } });
  program.onLine((line) => lines.push(line));
  onTestFinished(async () => {
    await program.stop();
    const pid = Number(lines.find((line) => line.startsWith('pid '))?.slice(4));
    if (pid > 0) {
      try {
        process.kill(pid);
      } catch {
        // already gone
      }
    }
  });
  return { program, lines };
}

describe("a tunnel program's exit comes after its last lines", () => {
  it('reads what it printed after the exit was seen before reporting the exit', async () => {
    const { program, lines } = start(exitsBeforeItsLastLine(150, 0));
    const exit = await program.exited;
    expect(exit.code).toBe(3);
    expect(lines).toContain('late-line');
  });

  it('does not wait long for pipes a child of it keeps open', async () => {
    const { program } = start(exitsBeforeItsLastLine(0, 10_000));
    const started = performance.now();
    const exit = await program.exited;
    expect(exit.code).toBe(3);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
