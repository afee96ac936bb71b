import type { InspectorServer } from '../inspector-server/index.js';
import { toCurl, toHar, type CallStore } from '../recorder/index.js';
import { MedianDevError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { DECIDERS, type ControlCommand, type EmulatorDecisionAnswer } from '../events/index.js';
import { DEFAULTS, type StartConfig } from '../config/index.js';
import type { EventHub } from './event-hub.js';
import type { EventMasker } from './event-masker.js';
import type { ReplayAnswer } from '../events/inspector-api.js';
import { parseFilter, recordMatches } from '../median/index.js';
import { lastManifestTools } from './manifest-tools.js';
import { join } from 'node:path';
import { DEFAULT_CALLS_DIR, saveRecordAsTest } from '../saved-calls/index.js';

export interface DaemonInspectorOptions {
  config: Pick<StartConfig, 'inspectorPort' | 'target' | 'route' | 'cwd'>;
  version: string;
  store: CallStore;
  hub: Pick<EventHub, 'on' | 'snapshot'>;
  handleCommand(command: ControlCommand): Promise<unknown>;
  secret(): Uint8Array | undefined;
  /** The route through the proxy (a manifest read there is recorded). */
  routeThroughProxy: string;
  masker: Pick<EventMasker, 'maskRecord'>;
  logger: Logger;
  /** The dev server's origin now (found from it after the start); left out, --target. */
  target?: () => string;
}

/** `median-dev inspect`'s answer: a fresh one-time link, or `inspector_off`. */
export function inspectorLinkOf(server: InspectorServer | undefined): { url: string; link: string } {
  if (!server) throw new MedianDevError('inspector_off', 'This daemon serves no inspector (it was started with --no-inspector).');
  return { url: server.url, link: server.newLink() };
}

/**
 * The browser inspector wired to the daemon's parts: the store, the event
 * hub, the command handler (replays), the one filter parser and the masker.
 * Undefined with --no-inspector.
 */
export async function startDaemonInspector(options: DaemonInspectorOptions): Promise<InspectorServer | undefined> {
  const { config } = options;
  if (config.inspectorPort === null) return undefined;
  // Loaded only when served: --no-inspector starts without the inspector server's modules.
  const { startInspectorServer } = await import('../inspector-server/index.js');
  const routeUrl = (): string => `${options.target?.() ?? config.target}${config.route}`;
  return startInspectorServer({
    port: config.inspectorPort ?? DEFAULTS.inspectorPort,
    snapshot: () => options.hub.snapshot(),
    events: { on: (listener) => options.hub.on(listener) },
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
        ...(body.allowUnsignedOriginal ? { allowUnsignedOriginal: true } : {}),
      })) as ReplayAnswer;
    },
    async decideEmulatorApproval(id, decision) {
      return (await options.handleCommand({ command: 'emulator-decision', id, decision, as: DECIDERS.inspector })) as EmulatorDecisionAnswer;
    },
    async saveCall(id) {
      // The project's median-calls/, as `median-dev calls save` run there writes it; the record masked as the inspector serves it.
      const record = options.masker.maskRecord(await options.store.findByToolCallId(id));
      return saveRecordAsTest(record, { callsDir: join(config.cwd, DEFAULT_CALLS_DIR), cwd: config.cwd, mask: (text) => text });
    },
    curlOf(record) {
      const secret = options.secret();
      if (!secret) throw new MedianDevError('missing_key', 'A copied curl is re-signed, and no MEDIAN_KEY is set.');
      return toCurl(record, { url: routeUrl(), secret });
    },
    harOf: (records) => toHar(records, { creator: { name: 'median-dev', version: options.version }, baseUrl: new URL(routeUrl()).origin }),
    readTools: () => lastManifestTools({ latestManifestRead: () => options.store.latestManifestRead(), routeUrl: options.routeThroughProxy, secret: options.secret }),
    maskRecord: (record) => options.masker.maskRecord(record),
    logger: options.logger,
  });
}
