import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startChildProcess, type ChildState } from '../../../src/child/index.js';
import { MedianDevError } from '../../../src/shared/index.js';

function missingFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'median-dev-child-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'not-there');
}

describe('a command that cannot start', () => {
  it.each([
    ['a binary that does not exist', () => ({ command: ['median-dev-no-such-binary', 'dev'], cwd: process.cwd() })],
    ['a working folder that does not exist', () => ({ command: [process.execPath, '-e', '1'], cwd: missingFolder() })],
    ['an empty command', () => ({ command: [], cwd: process.cwd() })],
  ])('%s → child_spawn_failed', async (_label, makeOptions) => {
    const states: ChildState[] = [];
    const failure = await startChildProcess({
      ...makeOptions(),
      env: { PATH: process.env.PATH },
      onStateChange: (state) => states.push(state),
    }).then(
      () => null,
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(MedianDevError);
    expect(failure).toMatchObject({ code: 'child_spawn_failed' });
    expect((failure as MedianDevError).hint).toBeTruthy();
    expect(states.at(-1) ?? { state: 'stopped' }).toEqual({ state: 'stopped' });
  });

  it('names the missing command in the message', async () => {
    await expect(
      startChildProcess({ command: ['median-dev-no-such-binary', 'dev'], cwd: process.cwd(), env: { PATH: process.env.PATH } }),
    ).rejects.toThrow(/median-dev-no-such-binary/);
  });
});
