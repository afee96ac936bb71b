import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCallStore } from '../../src/recorder/index.js';
import { spawnCli } from '../helpers/cli-harness.js';
import { useTempDir } from '../helpers/e2e-world.js';
import { useHttpServer } from '../helpers/use-http-server.js';

/**
 * Issue 18 item 13: a kill -9 under load lost answered calls (45 of 1,228
 * answered calls were never recorded). A call whose answer reached the
 * caller must be in the store: the proxy hands the record to the recorder,
 * and lets the answer's last bytes go only once it is written. The
 * attacker is a real `kill -9` of the real daemon in the middle of load.
 */
const CONCURRENCY = 16;
const KILL_AFTER = 600;

describe('item 13: kill -9 under load', () => {
  it('every call whose answer the caller got whole is in the store', async () => {
    const dir = await useTempDir('median-dev-kill-');
    const dataDir = join(dir, '.median-dev');
    const route = await useHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end('{"result":{"ok":true,"status":"shipped"}}');
      });
    });
    const cli = spawnCli(['start', '--json', '--no-tui', '--no-inspector', '--tunnel', 'none', '--public-url', 'https://tools.example.test', '--port', '0', '--no-env-file', '--target', route.url, '--data-dir', dataDir], { cwd: dir });
    const proxy = (await cli.waitForEvent((e) => e.event === 'proxy')).url as string;
    await cli.waitForEvent((e) => e.event === 'tools-url');

    const answered: string[] = [];
    let killed = false;
    let reachedKill: () => void = () => undefined;
    const atKill = new Promise<void>((resolve) => (reachedKill = resolve));
    const worker = async (w: number) => {
      for (let n = 0; !killed; n++) {
        const toolCallId = `call_${w.toString(16).padStart(2, '0')}${n.toString(16).padStart(30, '0')}`;
        const body = JSON.stringify({ tool: 'orderStatus', toolCallId, input: { orderNumber: 'A1001' }, context: { conversationId: 'conv_1', risk: 'low', visitor: { verified: false } } });
        try {
          const res = await fetch(`${proxy}/api/median`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          const text = await res.text();
          if (res.status === 200 && text.includes('shipped')) answered.push(toolCallId);
        } catch {
          return; // the daemon is gone
        }
        if (answered.length >= KILL_AFTER) reachedKill();
      }
    };
    const workers = Array.from({ length: CONCURRENCY }, (_, w) => worker(w));
    await atKill;
    cli.child.kill('SIGKILL');
    killed = true;
    await cli.exited;
    await Promise.all(workers);

    const calls = spawnCli(['calls', '--json', '--limit', '100000', '--data-dir', dataDir], { cwd: dir });
    expect(await calls.exited).toBe(0);
    const stored = new Set((JSON.parse(calls.stdout()) as Array<{ toolCallId: string }>).map((r) => r.toolCallId));
    const lost = answered.filter((id) => !stored.has(id));
    expect({ answered: answered.length, lost: lost.length }).toEqual({ answered: answered.length, lost: 0 });

    // The call index was cut by the same kill: lookups by id still find each answered call, and only it.
    const store = createCallStore(dataDir);
    const found: string[] = [];
    for (const id of answered) found.push((await store.findByToolCallId(id)).toolCallId);
    expect(found).toEqual(answered);
  }, 90_000);
});
