import { spawn } from 'node:child_process';

export interface Pasted {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A printed command line, pasted into a shell in `cwd` (no MEDIAN_KEY, no MEDIAN_DEV_DIR in its environment). */
export function pasteCommand(line: string, cwd: string): Promise<Pasted> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', line], { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += String(c)));
    child.stderr.on('data', (c) => (stderr += String(c)));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
