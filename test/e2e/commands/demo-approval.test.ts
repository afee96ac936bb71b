import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-harness.js';
import { useDemo } from '../../helpers/use-demo.js';

describe('the demo plays a high call as Median does', () => {
  it('a high call waits for a teammate; the printed approve command runs it, and the daemon records it approved', async () => {
    const demo = await useDemo({ intervalMs: 100 });
    const waiting = await demo.cli.waitForEvent((e) => e.event === 'log' && String(e.message).includes("waits for a teammate's approval"), 60_000);
    const message = String(waiting.message);
    const id = /\b(apr_[0-9a-f]{24})\b/.exec(message)?.[1];
    expect(id, message).toBeDefined();
    // Nothing was sent for it yet.
    expect(demo.cli.events().some((e) => e.event === 'call' && e.toolCallId === id)).toBe(false);

    // The command as printed (the words after the binary and its script): it pastes as it is, with the default
    // teammate quoted where a name goes; the teammate puts theirs there.
    const printed = message.slice(message.indexOf(' emulate approve ') + 1);
    expect(printed).toContain(' --as "A teammate" ');
    const argv = printed.replace(' --as "A teammate" ', ' --as Dana ').split(' ');
    const approved = await runCliInProcess(argv, { env: {} });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`${id} approved by Dana`);
    const recorded = await demo.cli.waitForEvent((e) => e.event === 'call' && e.toolCallId === id, 15_000);
    expect(recorded).toMatchObject({ tool: 'refundOrder', signature: 'valid' });
    const shown = await runCliInProcess(['show', id!, '--json', '--data-dir', demo.dataDir], { env: {} });
    expect(JSON.parse(JSON.parse(shown.stdout).request.body).context).toMatchObject({ risk: 'high', approvedBy: 'Dana' });
  }, 90_000);
});
