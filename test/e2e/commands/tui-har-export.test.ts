import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import type { HarLog } from '../../../src/recorder/index.js';
import { CLI_PATH } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { useTmux } from '../../helpers/use-tmux.js';

/** The demo's TUI in a real terminal: `x` exports the calls as HAR into the data dir, and says where. */
describe('x in the terminal UI', () => {
  it('writes the HAR into the data dir, oldest first, with the URLs the calls really had', async () => {
    const project = await useTempDir('median-dev-har-project-');
    const dataDir = await useTempDir('median-dev-har-data-');
    const pane = await useTmux([process.execPath, CLI_PATH, 'demo', '--data-dir', dataDir, '--inspector-port', '0'], { width: 200, height: 40, cwd: project });
    // A few of the agent's calls through the tunnel (the manifest read and connect come first).
    await vi.waitFor(async () => expect(await pane.text()).toMatch(/ of [4-9]\d* /), { timeout: 30_000, interval: 200 });
    await pane.sendKeys('x');
    let file = '';
    await vi.waitFor(async () => {
      const said = /Wrote \d+ calls? to (\S+\.har)/.exec((await pane.text()).replace(/\n/g, ''));
      expect(said).not.toBeNull();
      file = said![1]!;
    }, { timeout: 10_000, interval: 100 });
    await pane.sendKeys('q');

    expect(file.startsWith(`${dataDir}/`)).toBe(true);
    expect((await readdir(project)).filter((name) => name.endsWith('.har'))).toEqual([]);
    const har = JSON.parse(await readFile(file, 'utf8')) as HarLog;
    const entries = har.log.entries;
    expect(entries.length).toBeGreaterThanOrEqual(3);
    const started = entries.map((e) => Date.parse(e.startedDateTime));
    expect(started).toEqual([...started].sort((a, b) => a - b));
    for (const entry of entries) {
      const host = entry.request.headers.find((h) => h.name.toLowerCase() === 'host')?.value;
      expect(host).toBeDefined();
      // The tunnel's hostname (and port, when it had one), never http://localhost.
      expect(new URL(entry.request.url).host).toBe(host);
    }
    expect(entries.some((e) => e.request.url.startsWith('https://'))).toBe(true);
  }, 60_000);
});
