import type { CallRecord } from '../median/call-record.js';
import { INSPECTOR_SESSION_HEADER } from '../shared/inspector-session.js';
import type { CallPage, InspectorStatus, ReplayAnswer, ReplayBody, SaveCallAnswer, ToolsAnswer } from '../events/inspector-api.js';
import type { EmulatorDecisionAnswer } from '../events/daemon-events.js';

/** An error answer of the inspector's API: its code and message. */
export class ApiFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function answerOf<T>(response: Response): Promise<T> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiFailure('bad_answer', `The inspector answered HTTP ${response.status} without JSON.`, response.status);
  }
  if (!response.ok) {
    const error = (body as { error?: { code?: string; message?: string } }).error;
    throw new ApiFailure(error?.code ?? 'http_error', error?.message ?? `HTTP ${response.status}`, response.status);
  }
  return body as T;
}

/** Where the page keeps its session id: this tab, this origin only (another port is another origin). */
const SESSION_KEY = 'median-dev-session';

/** The page's session, held in sessionStorage (it survives a reload) and sent as a header: no cookie. */
export const session = {
  id: (): string | null => sessionStorage.getItem(SESSION_KEY),
  keep: (id: string) => sessionStorage.setItem(SESSION_KEY, id),
  forget: () => sessionStorage.removeItem(SESSION_KEY),
};

/**
 * A request to the inspector with the session header. `credentials: 'omit'`:
 * cookies other pages of 127.0.0.1 set are not the inspector's, and are not sent.
 */
export function request(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const id = session.id();
  if (id !== null) headers.set(INSPECTOR_SESSION_HEADER, id);
  return fetch(path, { ...init, headers, credentials: 'omit' });
}

const get = <T>(path: string) => request(path).then((r) => answerOf<T>(r));
const post = <T>(path: string, body: unknown) =>
  request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => answerOf<T>(r));

/** The daemon's JSON API, same origin, the session in a header. */
export const api = {
  /** Spends a one-time token (the link's) for a session id. */
  exchange: (token: string) => post<{ session: string }>('/api/session', { token }),
  session: () => get<{ ok: true }>('/api/session'),
  status: () => get<InspectorStatus>('/api/status'),
  calls: (offset: number, limit: number, filter: string) =>
    get<CallPage>(`/api/calls?offset=${offset}&limit=${limit}&filter=${encodeURIComponent(filter)}`),
  record: (id: string) => get<CallRecord>(`/api/calls/${encodeURIComponent(id)}`),
  curl: (id: string) => get<{ curl: string }>(`/api/calls/${encodeURIComponent(id)}/curl`),
  tools: () => get<ToolsAnswer>('/api/tools'),
  replay: (body: ReplayBody) => post<ReplayAnswer>('/api/replay', body),
  saveCall: (id: string) => post<SaveCallAnswer>(`/api/calls/${encodeURIComponent(id)}/save`, {}),
  /** Approves or denies a call median-dev's emulator holds. */
  decideHeld: (id: string, decision: 'approve' | 'deny') => post<EmulatorDecisionAnswer>(`/api/emulator-approvals/${encodeURIComponent(id)}/${decision}`, {}),
  /** The HAR of the filtered list, as a file's bytes (a link cannot carry the session header). */
  har: async (filter: string): Promise<Blob> => {
    const response = await request(`/api/har?filter=${encodeURIComponent(filter)}`);
    if (!response.ok) await answerOf(response);
    return response.blob();
  },
};
