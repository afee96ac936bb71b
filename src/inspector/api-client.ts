import type { CallRecord } from '../median/call-record.js';
import type { CallPage, InspectorStatus, ReplayAnswer, ReplayBody, ToolsAnswer } from '../events/inspector-api.js';

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

const get = <T>(path: string) => fetch(path, { credentials: 'same-origin' }).then((r) => answerOf<T>(r));

/** The daemon's JSON API, same origin (the session cookie goes along by itself). */
export const api = {
  session: () => get<{ ok: true }>('/api/session'),
  status: () => get<InspectorStatus>('/api/status'),
  calls: (offset: number, limit: number, filter: string) =>
    get<CallPage>(`/api/calls?offset=${offset}&limit=${limit}&filter=${encodeURIComponent(filter)}`),
  record: (id: string) => get<CallRecord>(`/api/calls/${encodeURIComponent(id)}`),
  curl: (id: string) => get<{ curl: string }>(`/api/calls/${encodeURIComponent(id)}/curl`),
  tools: () => get<ToolsAnswer>('/api/tools'),
  replay: (body: ReplayBody) =>
    fetch('/api/replay', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) =>
      answerOf<ReplayAnswer>(r),
    ),
  harUrl: (filter: string) => `/api/har?filter=${encodeURIComponent(filter)}`,
};
