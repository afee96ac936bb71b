import { basename, dirname, resolve } from 'node:path';

/**
 * A dev server that reloads its env files by itself, observed with Next.js
 * 16.4 (`next dev`, and @next/env's loader read for the rules):
 * - it loads `.env.development.local`, `.env.local`, `.env.development`,
 *   `.env` from the project folder, the first that sets a name wins;
 * - it watches them and, on a change, reloads them in the same process and
 *   prints `Reload env: .env.local`; the next request sees the new value, a
 *   route that read it at module scope too (the module is evaluated again);
 * - a name already in the process environment when it started is never
 *   taken from a file, so a MEDIAN_TOOLS_URL given to it in its environment
 *   masks every reload (checked: the route kept the environment's value).
 */
export interface EnvReloadingDevServer {
  /** How the log names it, e.g. `next dev`. */
  name: string;
  /** The env files it reloads, by name, in the folder it runs in. */
  envFiles: readonly string[];
  /** Whether an output line says it reloaded its env files. */
  isReloadLine(line: string): boolean;
}

const NEXT_DEV: EnvReloadingDevServer = Object.freeze({
  name: 'next dev',
  envFiles: Object.freeze(['.env.development.local', '.env.local', '.env.development', '.env']),
  isReloadLine: (line: string) => /\bReload(ed)? env\b/i.test(line),
});

/** Package managers whose `<pm> [run] <script>` runs a package.json script. */
const PACKAGE_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
/** Their own commands, never script names when given without `run`. */
const PACKAGE_MANAGER_COMMANDS = new Set(['exec', 'dlx', 'x', 'install', 'i', 'add', 'test', 'create', 'init']);

function programName(token: string): string {
  return basename(token.replace(/\\/g, '/')).replace(/\.(cmd|exe|js|mjs|cjs|ps1)$/i, '').toLowerCase();
}

/** `next dev …`, or `next` alone (which is `next dev`), somewhere in the words of a command. */
function runsNextDev(words: readonly string[]): boolean {
  return words.some((word, i) => {
    if (programName(word) !== 'next') return false;
    const after = words[i + 1];
    return after === 'dev' || after === undefined || after.startsWith('-') || ['&&', '||', ';', '|'].includes(after);
  });
}

/** The package.json script a package-manager command runs (`npm run dev`, `npm start`, `yarn dev`, `pnpm dev`, `bun run dev`). */
function scriptNameOf(words: readonly string[]): string | undefined {
  const [program, first, second] = words;
  if (program === undefined || !PACKAGE_MANAGERS.has(programName(program)) || first === undefined) return undefined;
  if (first === 'run' || first === 'run-script') return second;
  if (first === 'start') return 'start';
  if (programName(program) === 'npm' || first.startsWith('-') || PACKAGE_MANAGER_COMMANDS.has(first)) return undefined;
  return first; // yarn dev, pnpm dev, bun dev
}

/**
 * Whether the dev server command is one that reloads its env files itself:
 * `next dev` given directly (`next dev`, `npx next dev`, `node …/next dev`)
 * or through a package.json script (`npm run dev` with `"dev": "next dev"`).
 */
export function recogniseEnvReloadingDevServer(command: readonly string[], scripts: Readonly<Record<string, unknown>>): EnvReloadingDevServer | undefined {
  const words = command.flatMap((part) => part.split(/\s+/)).filter((word) => word !== '');
  if (runsNextDev(words)) return NEXT_DEV;
  const script = scriptNameOf(words);
  const text = script === undefined ? undefined : scripts[script];
  if (typeof text === 'string' && runsNextDev(text.split(/\s+/).filter((word) => word !== ''))) return NEXT_DEV;
  return undefined;
}

/** Whether `envFile` is one the dev server running in `cwd` loads (and so reloads). */
export function isEnvFileReloadedBy(server: EnvReloadingDevServer, envFile: string, cwd: string): boolean {
  return resolve(dirname(envFile)) === resolve(cwd) && server.envFiles.includes(basename(envFile));
}
