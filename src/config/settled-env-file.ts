import { readEnvBytes, readEnvFile } from './env-file-reader.js';

/** How long two reads of the env file are apart, and how many tries at most. */
const SETTLE_MS = 40;
const MAX_READS = 10;

function sameVars(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/** Reads with `read` until two reads `SETTLE_MS` apart agree (at most `MAX_READS` reads). */
async function readSettled<T>(read: () => Promise<T>, isSame: (a: T, b: T) => boolean): Promise<T> {
  let value = await read();
  for (let count = 1; count < MAX_READS; count++) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS).unref());
    const next = await read();
    if (isSame(value, next)) return next;
    value = next;
  }
  return value;
}

/**
 * The env file's variables once two reads a moment apart agree. A file
 * written in place (an editor, `echo >`, fs.writeFile) is empty between its
 * truncation and the write; read then, a MEDIAN_KEY would look removed.
 */
export function readSettledEnvFile(path: string): Promise<Record<string, string>> {
  return readSettled(() => readEnvFile(path), sameVars);
}

/**
 * The env file's bytes (undefined when it does not exist) once two reads agree,
 * so an update does not rewrite a file caught half-written and lose its lines.
 * Bytes, not text: a value in another encoding than UTF-8 is kept as it is.
 * What is not a regular file is `env_file_not_regular`; other read errors are
 * thrown as they are.
 */
export function readSettledEnvBytes(path: string): Promise<Buffer | undefined> {
  return readSettled(() => readEnvBytes(path), (a, b) => (a === undefined || b === undefined ? a === b : a.equals(b)));
}
