import { expect } from 'vitest';
import { INSPECTOR_SESSION_HEADER } from '../../src/shared/index.js';
import { spendLink } from './spend-link.js';

export interface InspectorSession {
  origin: string;
  /** The session header the page sends. */
  headers: Record<string, string>;
  /** A GET that must answer 200: its JSON. */
  get<T>(path: string): Promise<T>;
  /** A GET answered as it comes (any status). */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  post(path: string, body: unknown): Promise<Response>;
}

/** A browser's session: the page the link opens spends its token (a POST from its own origin) and sends the session header. */
export async function browserSession(link: string): Promise<InspectorSession> {
  const origin = new URL(link).origin;
  const first = await spendLink(link);
  expect(first.status).toBe(200);
  const headers = { [INSPECTOR_SESSION_HEADER]: ((await first.json()) as { session: string }).session };
  const send = (path: string, init: RequestInit = {}) => fetch(`${origin}${path}`, { ...init, headers: { ...headers, origin, ...(init.headers as Record<string, string> | undefined) } });
  return {
    origin,
    headers,
    fetch: send,
    get: async <T>(path: string): Promise<T> => {
      const res = await send(path);
      expect(res.status, path).toBe(200);
      return (await res.json()) as T;
    },
    post: (path: string, body: unknown) => send(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  };
}
