import { isAbsolute, resolve as resolvePath } from 'node:path';
import { readEnvFile } from '../config/env-file-reader.js';
import { runFix } from '../median/run-fixes.js';
import { UserError, receivedErrorCode } from '../shared/errors.js';
import { safeLine } from '../shared/output-sanitiser.js';
import type { CliIo } from './cli-io.js';
import { emulatorEnvPath, readEmulatorEnv } from './emulator-env-file.js';
import { emulatorDataDir } from './commands/emulate-command.js';
import { httpFetch, type HttpAnswer } from '../shared/http-fetch.js';

/** Longer than the cloud's 10 s call limit: the emulator always answers first. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface EmulatorApi {
  apiUrl: string;
  key: string;
  /** A call to the running emulator's API; `emulator_not_running` when nothing answers. */
  request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> | undefined }>;
}

/**
 * The running emulator a command talks to: through `--env <file>` (the
 * demo's demo.env: its MEDIAN_API_URL and key), else the data dir's
 * emulator.env (what `median-dev emulate` keeps there).
 */
export async function findEmulatorApi(options: Record<string, unknown>, io: CliIo): Promise<EmulatorApi> {
  const dataDir = emulatorDataDir(options, io);
  const envPath = typeof options.env === 'string' ? (isAbsolute(options.env) ? options.env : resolvePath(io.cwd, options.env)) : undefined;
  const kept = envPath ? await readEnvFile(envPath).then((v) => ({ key: v.MEDIAN_KEY, apiUrl: v.MEDIAN_API_URL })) : await readEmulatorEnv(dataDir);
  const where = envPath ?? emulatorEnvPath(dataDir);
  const notRunning = (why: string): UserError =>
    new UserError('emulator_not_running', `No emulator answers for ${where}: ${why}.`, {
      hint: envPath ? 'Is the demo (or the emulator) that wrote this file still running?' : `Start one with \`median-dev emulate${typeof options.dataDir === 'string' ? ` --data-dir ${dataDir}` : ''}\`.`,
    });
  const apiUrl = kept.apiUrl;
  const key = kept.key || (io.env.MEDIAN_KEY ?? undefined) || undefined;
  if (!apiUrl) throw notRunning(`${where} names no MEDIAN_API_URL`);
  if (!key) throw notRunning('the emulator runs with your MEDIAN_KEY, and none is set here');
  return {
    apiUrl,
    key,
    async request(method, path, body) {
      let response: HttpAnswer;
      try {
        response = await httpFetch(`${apiUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
      } catch {
        throw notRunning(`nothing answers at ${apiUrl}`);
      }
      return { status: response.status, body: (await response.json().catch(() => undefined)) as Record<string, any> | undefined };
    },
  };
}

/** An error answer of the emulator as the coded error the user sees: Median's message, and what to do. */
export function emulatorAnswerError(answer: { status: number; body: Record<string, any> | undefined }, what: string, fallbackHint: string): UserError {
  const error = answer.body?.error as { code?: unknown; message?: unknown } | undefined;
  const code = typeof error?.code === 'string' ? error.code : 'median_bad_answer';
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${answer.status}`;
  return new UserError(receivedErrorCode(code), `${what}: ${safeLine(message)}`, { hint: runFix(code, message) ?? fallbackHint });
}
