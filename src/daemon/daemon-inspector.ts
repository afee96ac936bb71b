import type { CallRecord } from '../median/index.js';
import { startInspectorServer, type InspectorServer } from '../inspector-server/index.js';
import { toCurl, toHar, type CallStore } from '../recorder/index.js';
import { MedianDevError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { ControlCommand, DaemonEvent, DaemonSnapshot } from '../events/index.js';
import type { ReplayAnswer } from '../events/inspector-api.js';
import { parseFilter, recordMatches } from '../tui/index.js';
import { lastManifestTools } from './manifest-tools.js';

export interface DaemonInspectorOptions {
  port: number;
  version: string;
  store: CallStore;
  events: { on(listener: (event: DaemonEvent) => void): () => void };
  snapshot(): DaemonSnapshot;
  handleCommand(command: ControlCommand): Promise<unknown>;
  secret(): Uint8Array | undefined;
  /** The dev server's route (what a copied curl sends to). */
  routeUrl: string;
  /** The route through the proxy (a manifest read there is recorded). */
  routeThroughProxy: string;
  maskRecord(record: CallRecord): CallRecord;
  logger: Logger;
}

/**
 * The browser inspector wired to the daemon's parts: the store, the event
 * hub, the command handler (replays), the one filter parser and the masker.
 */
export function startDaemonInspector(options: DaemonInspectorOptions): Promise<InspectorServer> {
  return startInspectorServer({
    port: options.port,
    snapshot: options.snapshot,
    events: options.events,
    scanRecords: () => options.store.scan(),
    findRecord: (id) => options.store.findByToolCallId(id),
    matcherFor(text) {
      const filter = parseFilter(text);
      return filter ? (record) => recordMatches(record, filter) : null;
    },
    async replay(body) {
      return (await options.handleCommand({
        command: 'replay',
        toolCallId: body.id,
        ...(body.newId ? { newId: true } : {}),
        ...(body.input !== undefined ? { input: body.input } : {}),
        ...(body.atOffsetMs !== undefined ? { atOffsetMs: body.atOffsetMs } : {}),
        ...(body.confirmed ? { confirmed: true } : {}),
      })) as ReplayAnswer;
    },
    curlOf(record) {
      const secret = options.secret();
      if (!secret) throw new MedianDevError('missing_key', 'A copied curl is re-signed, and no MEDIAN_KEY is set.');
      return toCurl(record, { url: options.routeUrl, secret });
    },
    harOf: (records) => toHar(records, { creator: { name: 'median-dev', version: options.version }, baseUrl: new URL(options.routeUrl).origin }),
    readTools: () => lastManifestTools({ latestManifestRead: () => options.store.latestManifestRead(), routeUrl: options.routeThroughProxy, secret: options.secret }),
    maskRecord: options.maskRecord,
    logger: options.logger,
  });
}
