import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveRecordAsTest } from '../../../src/saved-calls/index.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { makeRecord } from '../../helpers/make-record.js';
import { openSession, rawRequest, useInspectorServer } from '../../helpers/use-inspector-server.js';

describe('the inspector’s save-as-test', () => {
  it('saves a call under median-calls/ only for a session on its own Origin, and says where', async () => {
    const project = await useTempDir('median-dev-inspector-save-');
    const record = makeRecord({ toolCallId: 'call_0000000000000000000000000000cafe' });
    const { server } = await useInspectorServer([record], {
      // The daemon's wiring (src/daemon/daemon-inspector.ts): the store's record, saved into the project.
      saveCall: async (id) => saveRecordAsTest(id === record.id ? record : makeRecord(), { callsDir: join(project, 'median-calls'), cwd: project, mask: (t) => t }),
    });
    const session = await openSession(server);
    const own = `http://127.0.0.1:${server.port}`;
    const path = `/api/calls/${record.id}/save`;
    const refused: Array<{ headers: Record<string, string>; status: number }> = [
      { headers: { origin: own, 'content-type': 'application/json' }, status: 401 },
      { headers: { ...session, origin: 'http://127.0.0.1:9', 'content-type': 'application/json' }, status: 403 },
    ];
    for (const attempt of refused) {
      expect((await rawRequest(server.port, { method: 'POST', path, headers: attempt.headers, body: '{}' })).status).toBe(attempt.status);
    }
    expect(await readdir(project)).toEqual([]);
    expect((await rawRequest(server.port, { path, headers: { ...session } })).status).toBe(405);

    const answer = await rawRequest(server.port, { method: 'POST', path, headers: { ...session, origin: own, 'content-type': 'application/json' }, body: '{}' });
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ file: 'median-calls/orderStatus-0000cafe.json', isNew: true });
    expect(JSON.parse(await readFile(join(project, 'median-calls', 'orderStatus-0000cafe.json'), 'utf8')).savedFrom.recordId).toBe(record.id);
    const again = await rawRequest(server.port, { method: 'POST', path, headers: { ...session, origin: own, 'content-type': 'application/json' }, body: '{}' });
    expect(JSON.parse(again.body)).toEqual({ file: 'median-calls/orderStatus-0000cafe.json', isNew: false });
  });
});
