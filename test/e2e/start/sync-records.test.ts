import { constants } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { openSegmentFlags } from '../../helpers/open-file-flags.js';
import { useHttpServer } from '../../helpers/use-http-server.js';

/**
 * `start --sync-records` reaches the daemon's call store: its live segment
 * is opened with O_DSYNC (an answer ends once its record is on the disk);
 * without the flag, without it (written to the OS, synced in the
 * background). Seen as a second process sees it: /proc/<pid>/fdinfo.
 */
describe.runIf(process.platform === 'linux')('start --sync-records', () => {
  async function segmentFlagsOfDaemon(extra: string[]): Promise<number[]> {
    const dir = await useTempDir('median-dev-sync-records-');
    const dataDir = join(dir, '.median-dev');
    const route = await useHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end('{"result":{"ok":true}}');
      });
    });
    const cli = spawnCli(['start', '--json', '--no-tui', '--no-inspector', '--tunnel', 'none', '--public-url', 'https://tools.example.test', '--port', '0', '--no-env-file', '--target', route.url, '--data-dir', dataDir, ...extra], { cwd: dir });
    const proxy = (await cli.waitForEvent((e) => e.event === 'proxy')).url as string;
    const body = JSON.stringify({ tool: 'orderStatus', toolCallId: `call_${'a'.repeat(32)}`, input: {}, context: { conversationId: 'conv_1', risk: 'low', visitor: { verified: false } } });
    const res = await fetch(`${proxy}/api/median`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    await res.text();
    // The answer ended after its record was written: the segment is open.
    const flags = openSegmentFlags(cli.child.pid!, dataDir);
    expect(await cli.stop()).toBe(0);
    return flags;
  }

  it('opens the call segment with O_DSYNC only with the flag', async () => {
    const withFlag = await segmentFlagsOfDaemon(['--sync-records']);
    const without = await segmentFlagsOfDaemon([]);
    expect({ withFlag: withFlag.map((f) => (f & constants.O_DSYNC) !== 0), without: without.map((f) => (f & constants.O_DSYNC) !== 0) }).toEqual({ withFlag: [true], without: [false] });
  }, 60_000);
});
