import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUNDLED_CLI_PATH, CLI_PATH } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';

const FLAGS_MODULE = fileURLToPath(new URL('../../../dist/src/cli/runtime-v8-flags.js', import.meta.url));

async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(code).toBe(0);
  return out;
}

describe('V8 options the CLI sets as it starts (src/cli/runtime-v8-flags.ts)', () => {
  // The shebang line is full; --liftoff-only moved off it, so the CLI itself must set it, bundled or not.
  it.each([
    ['the modules', CLI_PATH],
    ['the bundled bin', BUNDLED_CLI_PATH],
  ])('%s set --liftoff-only before running the command', async (_name, entry) => {
    const dir = await useTempDir('median-dev-v8-flags-');
    const seen = join(dir, 'flags.json');
    const preload = join(dir, 'record-v8-flags.cjs');
    await writeFile(
      preload,
      'const v8 = require("node:v8"); const set = v8.setFlagsFromString; const flags = [];\n' +
        'v8.setFlagsFromString = (flag) => { flags.push(flag); return set(flag); };\n' +
        'process.on("exit", () => require("node:fs").writeFileSync(process.env.FLAGS_SEEN, JSON.stringify(flags)));\n',
    );
    await run([entry, '--version'], { NODE_OPTIONS: `--require ${preload}`, FLAGS_SEEN: seen });
    expect(JSON.parse(await readFile(seen, 'utf8'))).toContain('--liftoff-only');
  }, 20_000);

  // What the option is for: undici compiles its wasm HTTP parser on the first fetch, and V8 tiers it up with TurboFan,
  // which held ~29 MiB more at the process's peak (86 against 57 MiB, measured 2026-12-05). V8 says which compiler
  // compiled each wasm function (--trace-wasm-compilation-times); set at run time, the option still takes effect.
  it("a fetch after applyRuntimeV8Flags() compiles its wasm with Liftoff alone; node's default tiers it up with TurboFan", async () => {
    const script = (apply: boolean) =>
      `const m = await import(${JSON.stringify(pathToFileURL(FLAGS_MODULE).href)}); ${apply ? 'm.applyRuntimeV8Flags(await import("node:v8"));' : ''}\n` +
      'const http = await import("node:http");\n' +
      'const server = http.createServer((q, r) => r.end("ok")).listen(0, "127.0.0.1"); await new Promise((r) => server.once("listening", r));\n' +
      'const res = await fetch(`http://127.0.0.1:${server.address().port}/`); await res.text(); server.close();';
    const compilers = async (apply: boolean) => {
      const trace = await run(['--trace-wasm-compilation-times', '--input-type=module', '-e', script(apply)]);
      return { liftoff: trace.match(/using Liftoff/g)?.length ?? 0, turbofan: trace.match(/using TurboFan/g)?.length ?? 0 };
    };
    const withFlags = await compilers(true);
    expect(withFlags.liftoff).toBeGreaterThan(0);
    expect(withFlags.turbofan).toBe(0);
    expect((await compilers(false)).turbofan).toBeGreaterThan(0);
  }, 20_000);
});
