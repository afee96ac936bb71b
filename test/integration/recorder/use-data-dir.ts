import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRecorder, type Recorder, type RecorderOptions } from '../../../src/recorder/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/** A fresh data dir under the system temp folder, removed when the test ends. */
export async function useDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'median-dev-recorder-'));
  return useTeardown(join(dir, '.median-dev'), () => rm(dir, { recursive: true, force: true }));
}

/** A recorder closed when the test ends. */
export async function useRecorder(options: RecorderOptions): Promise<Recorder> {
  return useTeardown(await openRecorder(options), (recorder) => recorder.close());
}
