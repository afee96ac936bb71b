import { describe, expect, it } from 'vitest';
import { makeRecord } from '../helpers/record-fixtures.js';
import { openSession, rawRequest, useInspectorServer } from '../helpers/use-inspector-server.js';

/**
 * Issue 18 item 17: a malformed %-escape in an inspector API path answered
 * `500 internal_error`. It is the client's fault: a coded 400, and the
 * server keeps answering. The client is a raw HTTP client sending the bytes
 * as they are (a browser would too: it sends a typed path unchanged).
 */
const codeOf = (body: string): string => (JSON.parse(body) as { error: { code: string } }).error.code;

describe('inspector: a malformed %-escape in a path', () => {
  it('is a coded 400, never a 500, and the server keeps answering', async () => {
    const record = makeRecord();
    const { server } = await useInspectorServer([record]);
    const session = await openSession(server);
    for (const path of ['/api/calls/%', '/api/calls/%E0%A4%A', '/api/calls/%zz', '/api/calls/%C0%80/curl', '/api/calls/rec_%ED%A0%80']) {
      const answer = await rawRequest(server.port, { path, headers: { ...session } });
      expect(answer.status, path).toBe(400);
      expect(codeOf(answer.body), path).toBe('invalid_path');
    }
    const good = await rawRequest(server.port, { path: `/api/calls/${encodeURIComponent(record.id)}`, headers: { ...session } });
    expect(good.status).toBe(200);
    expect((JSON.parse(good.body) as { id: string }).id).toBe(record.id);
  });
});
