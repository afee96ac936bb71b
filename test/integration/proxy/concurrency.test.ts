import { Agent } from 'node:http';
import { describe, expect, it } from 'vitest';
import { signBody } from '../../../src/median/index.js';
import { readBody, useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { ROUTE, TEST_SECRET, send, toolCallBody, useRecordingProxy } from './proxy-harness.js';

describe('many calls at once', () => {
  it('turns 1,000 concurrent calls into 1,000 records with distinct ids, each with its own answer', async () => {
    const target = await useHttpServer(async (req, res) => {
      const call = JSON.parse((await readBody(req)).toString()) as { toolCallId: string };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ result: { echo: call.toolCallId } }));
    });
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url, secret: TEST_SECRET });
    const agent = useTeardown(new Agent({ keepAlive: true, maxSockets: 200 }), (a) => a.destroy());
    const ids = Array.from({ length: 1_000 }, (_, i) => `call_${i.toString(16).padStart(32, '0')}`);

    const answers = await Promise.all(
      ids.map((id) => {
        const body = toolCallBody('orderStatus', { orderNumber: 'A1' }, id);
        return send(`${proxy.url}${ROUTE}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'median-signature': signBody(TEST_SECRET, body) },
          body,
          agent,
        });
      }),
    );

    const records = await waitForRecords(1_000, 15_000);
    // Any answer that is not the dev server's, with what its record says went wrong.
    const failed = answers.flatMap((a, i) => (a.status === 200 ? [] : [`${ids[i]}: ${a.status} ${records.find((r) => r.toolCallId === ids[i])?.error?.code ?? ''}`]));
    expect(failed).toEqual([]);
    expect(records).toHaveLength(1_000);
    expect(new Set(records.map((r) => r.id)).size).toBe(1_000);
    expect(new Set(records.map((r) => r.toolCallId))).toEqual(new Set(ids));
    for (const record of records) {
      expect(record.signature).toBe('valid');
      expect(record.verdict.kind).toBe('answered');
      expect(record.response?.body).toBe(JSON.stringify({ result: { echo: record.toolCallId } }));
    }
  });
});
