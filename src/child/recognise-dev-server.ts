import { basename, dirname, resolve } from 'node:path';
import { ASTRO_DEV, NEXT_DEV, NODEMON, NODE_WATCH, NUXT_DEV, SVELTEKIT_DEV, TSX_WATCH, type DevServerProfile, type EnvReload } from './dev-server-profiles.js';

/** Package managers whose `<pm> [run] <script>` runs a package.json script. */
const PACKAGE_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
/** Their own commands, never script names when given without `run`. */
const PACKAGE_MANAGER_COMMANDS = new Set(['exec', 'dlx', 'x', 'install', 'i', 'add', 'test', 'create', 'init']);
const SEPARATORS = new Set(['&&', '||', ';', '|']);

/** What the project's package.json says (both fields empty without one). */
export interface ProjectPackage {
  scripts: Readonly<Record<string, unknown>>;
  /** Names in dependencies and devDependencies. */
  dependencies: ReadonlySet<string>;
}

function programName(token: string): string {
  return basename(token.replace(/\\/g, '/')).replace(/\.(cmd|exe|js|mjs|cjs|ps1)$/i, '').toLowerCase();
}

/** The word after `program` at `i`: its subcommand, or undefined at the end of that command. */
function subcommandAt(words: readonly string[], i: number): string | undefined {
  const after = words[i + 1];
  return after === undefined || SEPARATORS.has(after) ? undefined : after;
}

/** `<program> <sub>` (or `<program>` alone when `alone` is true) somewhere in the words. */
function runs(words: readonly string[], programs: readonly string[], sub: string, alone: boolean): boolean {
  return words.some((word, i) => {
    if (!programs.includes(programName(word))) return false;
    const after = subcommandAt(words, i);
    return after === sub || ((after === undefined || after.startsWith('-')) && alone);
  });
}

/** `node --watch …` (or `--watch-path=…`) before the script. */
function runsNodeWatch(words: readonly string[]): boolean {
  return words.some((word, i) => {
    if (programName(word) !== 'node') return false;
    for (const flag of words.slice(i + 1)) {
      if (!flag.startsWith('-') || SEPARATORS.has(flag)) return false;
      if (flag === '--watch' || flag.startsWith('--watch-path')) return true;
    }
    return false;
  });
}

/** The profile of the dev server these words run, if one of them. */
function profileOfWords(words: readonly string[], pkg: ProjectPackage): DevServerProfile | undefined {
  if (runs(words, ['next'], 'dev', true)) return NEXT_DEV; // `next` alone is `next dev`
  if (runs(words, ['nuxt', 'nuxi'], 'dev', false)) return NUXT_DEV;
  // `vite` alone and `vite dev` / `vite serve` start the same server; only SvelteKit's routes read the reloaded env.
  if (pkg.dependencies.has('@sveltejs/kit') && (runs(words, ['vite'], 'dev', true) || runs(words, ['vite'], 'serve', false))) return SVELTEKIT_DEV;
  if (runs(words, ['astro'], 'dev', false)) return ASTRO_DEV;
  if (runsNodeWatch(words)) return NODE_WATCH;
  if (words.some((word) => programName(word) === 'nodemon')) return NODEMON;
  if (runs(words, ['tsx'], 'watch', false)) return TSX_WATCH;
  return undefined;
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

const wordsOf = (text: string): string[] => text.split(/\s+/).filter((word) => word !== '');

/**
 * The dev server a command runs, given directly (`next dev`, `npx nuxt dev`,
 * `node --watch server.js`) or through a package.json script (`npm run dev`
 * with `"dev": "vite dev"`); undefined for one median-dev does not know.
 */
export function recogniseDevServer(command: readonly string[], pkg: ProjectPackage): DevServerProfile | undefined {
  const words = command.flatMap(wordsOf);
  const direct = profileOfWords(words, pkg);
  if (direct) return direct;
  const script = scriptNameOf(words);
  const text = script === undefined ? undefined : pkg.scripts[script];
  return typeof text === 'string' ? profileOfWords(wordsOf(text), pkg) : undefined;
}

/** Whether `envFile` is one the dev server running in `cwd` loads (and so reloads). */
export function isEnvFileReloadedBy(reload: EnvReload, envFile: string, cwd: string): boolean {
  return resolve(dirname(envFile)) === resolve(cwd) && reload.envFiles.includes(basename(envFile));
}
