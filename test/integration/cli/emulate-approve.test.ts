import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDemoTools, startToolRouteServer } from '../../../examples/tools-route/index.js';
import { runCliInProcess } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useEmulator } from '../../helpers/use-emulator.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/** A running emulator with the example route synced, found through an env file as the demo writes it (demo.env). */
async function useWorld() {
  const test = await useEmulator({ clock: createManualClock() });
  const route = useTeardown(
    await startToolRouteServer({ port: 0, key: test.emulator.key, apiUrl: test.emulator.url, tools: createDemoTools({ msPerSecond: 100 }) }),
    (r) => r.close(),
  );
  await test.client.waitForSync((await test.client.connect(route.url)).id, { intervalMs: 10 });
  const dir = await useTempDir('median-dev-approve-');
  const envFile = join(dir, 'demo.env');
  await writeFile(envFile, `MEDIAN_KEY=${test.emulator.key}\nMEDIAN_API_URL=${test.emulator.url}\n`, { mode: 0o600 });
  const cli = (...argv: string[]) => runCliInProcess(['emulate', ...argv, '--env', envFile], { cwd: dir });
  return { ...test, cli, envFile };
}

describe('median-dev emulate call | approvals | approve | deny', () => {
  it('a high call waits, is listed, runs once approved --as a teammate, and a second decision is approval_settled', async () => {
    const world = await useWorld();
    const held = await world.cli('call', 'refundOrder', '--input', '{"orderNumber":"A1","amount":5}');
    expect(held.code, held.stderr).toBe(0);
    const id = /\b(apr_[0-9a-f]{24})\b/.exec(held.stdout)?.[1];
    expect(id, held.stdout).toBeDefined();
    expect(held.stdout).toContain('nothing is sent until a teammate approves it');
    expect(held.stdout).toContain(`emulate approve ${id} --as "A teammate" --env ${world.envFile}`);

    const listed = await world.cli('approvals');
    expect(listed.stdout).toContain(`${id}  refundOrder  risk high  waits for a teammate`);

    const approved = await world.cli('approve', id!, '--as', 'Dana Reyes', '--json');
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ toolCallId: id, approvedBy: 'Dana Reyes', status: 200, verdict: { kind: 'answered' } });

    const again = await world.cli('deny', id!);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('This request has already been reviewed. [approval_settled]');
    expect(again.stderr).toContain('emulate approvals');
    const unknown = await world.cli('approve', 'apr_000000000000000000000000');
    expect(unknown.stderr).toContain('This request is unavailable in your inbox. [approval_not_found]');
  });

  it('deny sends nothing; an expired request says why, with the fix', async () => {
    const world = await useWorld();
    const conversation = await world.emulator.startConversation();
    const first = (await world.emulator.agentCall(conversation.id, { tool: 'refundOrder', input: { orderNumber: 'A1', amount: 5 } })).approval!;
    const denied = await world.cli('deny', first.id, '--as', 'Sam');
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stdout).toContain('declined by Sam: nothing was sent');
    const second = (await world.emulator.agentCall(conversation.id, { tool: 'refundOrder', input: { orderNumber: 'A1', amount: 5 } })).approval!;
    world.emulator.endConversation(conversation.id);
    const expired = await world.cli('approve', second.id);
    expect(expired.code).toBe(1);
    expect(expired.stderr).toContain('This request expired because the conversation ended. [approval_expired]');
    expect(expired.stderr).toContain('the agent asks again in a new conversation');
  });

  it('an approved call that fails: the thread line, exit 1', async () => {
    const world = await useWorld();
    const conversation = await world.emulator.startConversation();
    const held = (await world.emulator.agentCall(conversation.id, { tool: 'refundOrder', input: { orderNumber: 'A1', amount: 5 } })).approval!;
    // The route stops serving refundOrder's endpoint switch: the run is "no longer available".
    const endpointId = world.emulator.endpoints()[0]!.id;
    await world.client.setToolEnabled(endpointId, 'refundOrder', false);
    const run = await world.cli('approve', held.id, '--as', 'Dana');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('The thread shows: refundOrder did not run: The tool is no longer available.');
    expect(run.stderr).toContain('[tool_call_failed]');
  });
});
