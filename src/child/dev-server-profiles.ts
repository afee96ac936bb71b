/**
 * What each dev server does when an env file changes while it runs,
 * observed with the real framework on this machine (docs/frameworks.md has
 * the versions, the commands and the measurements):
 * - `reloads`: it takes the change by itself and its route then reads the
 *   new value, so median-dev leaves it running and keeps MEDIAN_TOOLS_URL
 *   out of its environment (a value there masks the file's in each of them);
 * - without `reloads`: it never rereads env files, so it is restarted.
 */
export interface EnvReload {
  /** The env files it reloads, by name, in the folder it runs in; the first that sets a name wins. */
  envFiles: readonly string[];
  /** Whether an output line says the reload is done (the route answers with the new value after it). */
  isReloadLine(line: string): boolean;
  /** How long after the file is written it gets to say so. */
  waitMs: number;
  /** How it reloads, for the note: `in the same process`, `by restarting its server`. */
  how: string;
  /** Where the route reads the reloaded value, when that is not process.env (said in the note). */
  readWith?: string;
}

export interface DevServerProfile {
  /** How the log names it, e.g. `next dev`. */
  name: string;
  reloads?: EnvReload;
  /** Why it is restarted, when it does not reload env files (said once). */
  restartReason?: string;
}

/**
 * Next.js 16.4 (`next dev`, Turbopack and --webpack alike): reloads the four
 * files in the same process and prints `Reload env: .env.local`; the next
 * request, and a route module evaluated again, see the new value in
 * process.env (0.3–0.4 s after the write, 1.2 s for the first with webpack).
 */
export const NEXT_DEV: DevServerProfile = Object.freeze({
  name: 'next dev',
  reloads: Object.freeze({
    envFiles: Object.freeze(['.env.development.local', '.env.local', '.env.development', '.env']),
    isReloadLine: (line: string) => /\bReload(ed)? env\b/i.test(line),
    waitMs: 3_000,
    how: 'in the same process',
  }),
});

/**
 * SvelteKit 2.70 on Vite 7 (`vite dev`): Vite restarts its dev server in the
 * same process when one of the four files changes (`.env.local changed,
 * restarting server...`, then `server restarted.`); `$env/dynamic/private`
 * then has the new value (1.2–2.7 s after the write), process.env never does.
 */
export const SVELTEKIT_DEV: DevServerProfile = Object.freeze({
  name: 'vite dev (SvelteKit)',
  reloads: Object.freeze({
    envFiles: Object.freeze(['.env.development.local', '.env.development', '.env.local', '.env']),
    isReloadLine: (line: string) => /\[vite\] server restarted\b/.test(line),
    waitMs: 5_000,
    how: 'by restarting its Vite server in the same process',
    readWith: '$env/dynamic/private',
  }),
});

/** A dev server that never rereads env files: restarted, for `reason`. */
const restarted = (name: string, reason = 'it restarts when your code changes but never rereads env files'): DevServerProfile => Object.freeze({ name, restartReason: reason });

/** node --watch (Node 20): restarts when an imported file changes, never for an env file, even one given with --env-file. */
export const NODE_WATCH = restarted('node --watch');
/** nodemon 3: watches .js, .mjs, .cjs and .json files, not env files. */
export const NODEMON = restarted('nodemon');
/** tsx watch 4: restarts when an imported file changes, never for an env file. */
export const TSX_WATCH = restarted('tsx watch');

/**
 * Nuxt 4.3 (`nuxt dev`): reads `.env` only; a change to it restarts its
 * server process, but that process inherits the environment `nuxt dev` read
 * `.env` into when it started, which wins over the file: a value that was in
 * `.env` at its start never changes (seen with median-dev: the route kept
 * the first tunnel URL). Only a value new since its start is picked up.
 */
export const NUXT_DEV = restarted('nuxt dev', 'its server restarts when .env changes but keeps the values nuxt dev read at its start');

/**
 * Astro 5.18 (`astro dev`): restarts itself in the same process when one of
 * the four files changes (`Restarting...`) and import.meta.env then has the
 * new value, but that restart raced Vite's own here and left it with
 * ERR_SERVER_ALREADY_LISTEN and nothing listening (1 change in 7).
 */
export const ASTRO_DEV = restarted('astro dev', 'its own restart on an env file change raced Vite’s and left nothing listening in our runs');
