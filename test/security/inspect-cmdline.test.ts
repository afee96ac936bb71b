import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { spawnCli } from '../helpers/cli-harness.js';
import { isEvent, useE2eWorld, useTempDir } from '../helpers/e2e-world.js';
import { spendLink } from '../helpers/spend-link.js';
import { startLocalAttacker } from '../helpers/local-attacker.js';

/**
 * Issue 18 item 7: `inspect` gave the tokened link to the browser opener as
 * an argument, and any local user reads `/proc/<pid>/cmdline`: an attacker
 * polling it spent the token first (`303`), the real browser then got 401.
 *
 * The attacker is a real second process (another user, `nobody`, when the
 * test runs as root) sweeping /proc/*\/cmdline and exchanging every token it
 * finds there the way a browser would. The browser opener is a fake the test
 * controls through `BROWSER` (median-dev honours it as other CLIs do): like
 * a real browser it loads what it was given — a URL, or a `file://` page
 * that forwards with `<meta http-equiv="refresh">` — and then opens the
 * inspector link. It stays alive until the attacker has seen its command
 * line, so the attacker had its chance.
 */

/** spendLink (test/helpers/spend-link.ts) for the two child processes: resolves to the HTTP status. */
const EXCHANGE_JS = `async function exchange(link) {
  const url = new URL(link);
  const res = await fetch(url.origin + '/api/session', {
    method: 'POST',
    headers: { origin: url.origin, 'content-type': 'application/json' },
    body: JSON.stringify({ token: url.searchParams.get('token') }),
  });
  return res.status;
}`;

const ATTACKER_JS = `
const { readdirSync, readFileSync } = require('node:fs');
${EXCHANGE_JS}
const tried = new Set();
let isReady = false;
async function sweep() {
  for (const pid of readdirSync('/proc')) {
    if (!/^\\d+$/.test(pid) || pid === String(process.pid)) continue;
    let cmdline;
    try { cmdline = readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').join(' '); } catch { continue; }
    if (cmdline.includes('median-dev-fake-opener')) console.log(JSON.stringify({ seen: 'opener', pid, cmdline }));
    for (const m of cmdline.matchAll(/https?:\\/\\/[^\\s]*token=[A-Za-z0-9_-]+/g)) {
      if (tried.has(m[0])) continue;
      tried.add(m[0]);
      console.log(JSON.stringify({ token: m[0], pid, cmdline, status: await exchange(m[0]).catch(String) }));
    }
  }
  if (!isReady) { isReady = true; console.log(JSON.stringify({ ready: true })); }
  setTimeout(sweep, 2);
}
sweep();
`;

const OPENER_JS = `
const { existsSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const { fileURLToPath } = require('node:url');
${EXCHANGE_JS}
const [dir, arg] = process.argv.slice(2);
(async () => {
  const report = { arg };
  let link = arg;
  if (arg.startsWith('file://')) {
    const path = fileURLToPath(arg);
    report.mode = (statSync(path).mode & 0o777).toString(8);
    const html = readFileSync(path, 'utf8');
    link = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(html)[1].replace(/&amp;/g, '&');
  }
  report.link = link;
  // Stay on the process list until the attacker has seen this command line (or 20 s).
  const until = Date.now() + 20000;
  while (!existsSync(dir + '/go') && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  report.status = await exchange(link).catch(String);
  writeFileSync(dir + '/result.json', JSON.stringify(report));
})();
`;

interface AttackerLine {
  ready?: boolean;
  seen?: string;
  token?: string;
  cmdline?: string;
  status?: number | string;
}


describe('inspect: the one-time link is on no command line', () => {
  it('a process reading /proc/*/cmdline gets no token; the browser still opens the link once', { timeout: 60_000 }, async () => {
    const world = await useE2eWorld();
    const run = world.start({ args: ['--inspector-port', '0'] });
    await run.waitForEvent((e) => isEvent(e, 'inspector'));
    const dir = await useTempDir('median-dev-opener-');
    const opener = join(dir, 'open-browser.sh');
    await writeFile(join(dir, 'median-dev-fake-opener.js'), OPENER_JS);
    await writeFile(opener, `#!/bin/sh\nexec "${process.execPath}" "${join(dir, 'median-dev-fake-opener.js')}" "${dir}" "$@"\n`);
    await chmod(opener, 0o755);
    const attacker = await startLocalAttacker<AttackerLine>(ATTACKER_JS);

    const inspect = spawnCli(['inspect', '--json', '--data-dir', world.dataDir], { cwd: world.projectDir, env: { BROWSER: opener } });
    expect(await inspect.exited).toBe(0);
    const printed = JSON.parse(inspect.stdout()) as { url: string; link: string; opened: boolean };
    expect(printed.opened).toBe(true);
    await vi.waitFor(() => expect(attacker.lines().some((line) => line.seen === 'opener')).toBe(true), { timeout: 20_000 });
    await writeFile(join(dir, 'go'), '');
    await vi.waitFor(() => stat(join(dir, 'result.json')), { timeout: 20_000 });
    const result = JSON.parse(await readFile(join(dir, 'result.json'), 'utf8')) as { arg: string; mode?: string; link: string; status: number };

    // No command line ever held a token, so the attacker spent none.
    expect(attacker.lines().filter((line) => line.token !== undefined)).toEqual([]);
    for (const line of attacker.lines().filter((l) => l.seen)) expect(line.cmdline).not.toContain('token=');
    // The opener was given a private page in the data dir, which forwards to the printed link.
    expect(result.arg).toMatch(/^file:\/\//);
    expect(fileURLToPath(result.arg).startsWith(world.dataDir)).toBe(true);
    expect(result.mode).toBe('600');
    expect(result.link).toBe(printed.link);
    // The browser's exchange worked, once.
    expect(result.status).toBe(200);
    expect((await spendLink(printed.link)).status).toBe(401);
  });
});
