import type { CallRecord } from '../median/index.js';
import { MedianDevError, UserError, errorCode } from '../shared/errors.js';
import type { InspectorStatus, ReplayBody, ToolsAnswer } from '../events/inspector-api.js';
import type { CallIndex } from './call-index.js';
import type { InspectorServerOptions } from './inspector-options.js';

export interface ApiAnswer {
  status: number;
  body: unknown;
  /** Sent as an attachment with this file name. */
  download?: string;
}

export type ApiRoutesOptions = Pick<
  InspectorServerOptions,
  'scanRecords' | 'findRecord' | 'matcherFor' | 'replay' | 'saveCall' | 'curlOf' | 'harOf' | 'readTools' | 'maskRecord' | 'decideEmulatorApproval'
> & {
  index: CallIndex;
  status(): InspectorStatus;
};

/** Rows a page holds at most. */
const MAX_PAGE = 500;
/** Records a HAR download holds at most (newest first of the filtered list). */
export const MAX_HAR_RECORDS = 5_000;

/**
 * The inspector's JSON API, behind the gate: reads of the list, a record, its
 * curl, a HAR of the filtered list, the status, the tools of the last
 * manifest read; and the writes: a replay, saving a call as a test, a
 * decision on a call median-dev's emulator holds. Every write passed the
 * gate first (own Origin, the session header).
 */
export function createApiRoutes(options: ApiRoutesOptions): { answer(method: string, url: URL, body: unknown): Promise<ApiAnswer> } {
  const mask = options.maskRecord ?? ((record: CallRecord) => record);
  let tools: ToolsAnswer = { tools: null, readAt: null, error: null };

  async function readTools(): Promise<ToolsAnswer> {
    try {
      tools = { tools: await options.readTools(), readAt: new Date().toISOString(), error: null };
    } catch (error) {
      // Keep the last manifest that was read; say why this read failed.
      tools = { ...tools, error: { code: errorCode(error) ?? 'manifest_unreadable', message: error instanceof Error ? error.message : String(error) } };
    }
    return tools;
  }

  async function harRecords(filter: string): Promise<CallRecord[]> {
    const matcher = options.matcherFor(filter.trim());
    const records: CallRecord[] = [];
    for await (const record of options.scanRecords()) {
      if (matcher && !matcher(record)) continue;
      records.push(mask(record));
      if (records.length >= MAX_HAR_RECORDS) break;
    }
    return records.reverse();
  }

  return {
    async answer(method, url, body) {
      const path = url.pathname;
      const isGet = method === 'GET' || method === 'HEAD';
      if (path === '/api/session' && isGet) return { status: 200, body: { ok: true } };
      if (path === '/api/status' && isGet) return { status: 200, body: options.status() };
      if (path === '/api/calls' && isGet) {
        const offset = intParam(url, 'offset', 0);
        const limit = Math.min(MAX_PAGE, intParam(url, 'limit', 100));
        return { status: 200, body: await options.index.page({ offset, limit, filter: url.searchParams.get('filter') ?? '' }) };
      }
      const callMatch = /^\/api\/calls\/([^/]+)(\/curl)?$/.exec(path);
      if (callMatch && isGet) {
        const record = mask(await options.findRecord(decodedSegment(callMatch[1]!)));
        if (callMatch[2]) return { status: 200, body: { curl: options.curlOf(record) } };
        return { status: 200, body: record };
      }
      if (path === '/api/har' && isGet) {
        const records = await harRecords(url.searchParams.get('filter') ?? '');
        return { status: 200, body: options.harOf(records), download: 'median-dev-calls.har' };
      }
      if (path === '/api/tools' && isGet) return { status: 200, body: url.searchParams.has('cached') && tools.tools ? tools : await readTools() };
      const saveMatch = /^\/api\/calls\/([^/]+)\/save$/.exec(path);
      if (saveMatch && options.saveCall) {
        if (method !== 'POST') return { status: 405, body: { error: { code: 'method_not_allowed', message: 'Saving a call is a POST.' } } };
        return { status: 200, body: await options.saveCall(decodedSegment(saveMatch[1]!)) };
      }
      const heldMatch = /^\/api\/emulator-approvals\/([^/]+)\/(approve|deny)$/.exec(path);
      if (heldMatch && options.decideEmulatorApproval) {
        if (method !== 'POST') return { status: 405, body: { error: { code: 'method_not_allowed', message: 'A decision is a POST.' } } };
        return { status: 200, body: await options.decideEmulatorApproval(decodedSegment(heldMatch[1]!), heldMatch[2] as 'approve' | 'deny') };
      }
      if (path === '/api/replay') {
        if (method !== 'POST') return { status: 405, body: { error: { code: 'method_not_allowed', message: 'A replay is a POST.' } } };
        return { status: 200, body: await options.replay(replayBodyOf(body)) };
      }
      throw new MedianDevError('not_found', `The inspector has no ${method} ${path}.`);
    },
  };
}

/** A path segment's %-escapes decoded; a malformed one is the client's mistake, not ours. */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new UserError('invalid_path', `The path segment "${segment}" has a malformed %-escape.`);
  }
}

function intParam(url: URL, name: string, fallback: number): number {
  const text = url.searchParams.get(name);
  if (text === null) return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new UserError('invalid_query', `${name} must be a whole number ≥ 0.`);
  return value;
}

function replayBodyOf(body: unknown): ReplayBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new UserError('invalid_replay', 'A replay body is a JSON object like {"id":"rec_…"}.');
  }
  const b = body as Record<string, unknown>;
  if (typeof b.id !== 'string' || b.id === '') throw new UserError('invalid_replay', 'A replay needs the id of the call to replay.');
  if (b.atOffsetMs !== undefined && (typeof b.atOffsetMs !== 'number' || !Number.isFinite(b.atOffsetMs))) {
    throw new UserError('invalid_replay', 'atOffsetMs must be a number of milliseconds.');
  }
  return {
    id: b.id,
    ...(b.newId === true ? { newId: true } : {}),
    ...(b.input !== undefined ? { input: b.input } : {}),
    ...(typeof b.atOffsetMs === 'number' ? { atOffsetMs: b.atOffsetMs } : {}),
    ...(b.confirmed === true ? { confirmed: true } : {}),
    ...(b.allowUnsignedOriginal === true ? { allowUnsignedOriginal: true } : {}),
  };
}
