import type { CallRecord } from '../median/index.js';
import { SIGNATURE_HEADER, signBody } from '../median/index.js';
import { MedianDevError } from '../shared/errors.js';
import { httpFetch, type HttpAnswer } from '../shared/http-fetch.js';
import type { ManifestTool } from '../events/inspector-api.js';

/** The tools of a manifest body, or undefined when it is not one. */
export function toolsOfManifest(body: string): ManifestTool[] | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const tools = (json as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return undefined;
  return tools
    .filter((tool): tool is Record<string, unknown> => typeof tool === 'object' && tool !== null && typeof (tool as { name?: unknown }).name === 'string')
    .map((tool) => ({ name: tool.name as string, risk: typeof tool.risk === 'string' ? tool.risk : null, inputSchema: tool.inputSchema ?? null }));
}

export interface ManifestToolsOptions {
  /** The newest manifest read the route answered (the store finds it). */
  latestManifestRead(): Promise<CallRecord | undefined>;
  /** The route through the proxy (a read there is recorded, so it becomes the last one). */
  routeUrl: string;
  secret(): Uint8Array | undefined;
}

/**
 * The tools of the last manifest read: the newest recorded signed GET of the
 * route that answered a manifest (Median's own syncs), else a fresh signed
 * read through the proxy.
 */
export async function lastManifestTools(options: ManifestToolsOptions): Promise<ManifestTool[]> {
  const record = await options.latestManifestRead();
  const recorded = record?.response && !record.response.truncated ? toolsOfManifest(record.response.body) : undefined;
  if (recorded) return recorded;
  const secret = options.secret();
  if (!secret) throw new MedianDevError('missing_key', 'Reading the manifest needs a signature, and no MEDIAN_KEY is set.');
  let response: HttpAnswer;
  try {
    response = await httpFetch(options.routeUrl, {
      headers: { [SIGNATURE_HEADER]: signBody(secret, ''), 'user-agent': 'median-dev' },
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new MedianDevError('route_unreachable', `Could not read the manifest at ${options.routeUrl}.`, { cause: error });
  }
  const tools = toolsOfManifest(await response.text());
  if (response.status !== 200 || !tools) {
    throw new MedianDevError('manifest_unreadable', `The route answered the manifest read with HTTP ${response.status} and no tool list.`, {
      hint: 'Run `median-dev manifest` to see what is wrong with it.',
    });
  }
  return tools;
}
