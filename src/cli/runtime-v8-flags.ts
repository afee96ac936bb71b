/**
 * V8 options the CLI sets as it starts instead of on the bin's shebang line
 * (src/cli/main.ts), whose 127 characters (what Linux kernels before 5.1
 * read of it) are full. Only options that take effect when set at run time
 * belong here; the heap's sizes and Node's own options do not.
 *
 * --liftoff-only: WebAssembly stays on V8's baseline compiler. Our only wasm
 * is undici's HTTP parser behind `fetch` (a few Median API calls and route
 * checks), compiled on the first `fetch`, long after this runs; V8 tiering it
 * up with TurboFan held ~29 MiB for a moment (a process's peak RSS over a few
 * `fetch`es: 86 MiB without the option, 57 with it, set at run time or on
 * the command line alike; 2026-12-05, Node 20.20).
 */
export const RUNTIME_V8_FLAGS: readonly string[] = ['--liftoff-only'];

/** node:v8, or what of it this needs. */
export interface V8Flags {
  setFlagsFromString(flags: string): void;
}

/**
 * Sets RUNTIME_V8_FLAGS, before any `fetch`. The caller hands node:v8 in
 * (main.ts loads it only for the commands that need it: it brings Node's
 * whole streams stack along).
 */
export function applyRuntimeV8Flags(v8: V8Flags): void {
  for (const flag of RUNTIME_V8_FLAGS) v8.setFlagsFromString(flag);
}
