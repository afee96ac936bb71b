import type { DaemonEvent, DaemonSnapshot, EmulatorDecisionAnswer } from '../events/index.js';
import type { ManifestTool, ReplayAnswer, ReplayBody, SaveCallAnswer } from '../events/inspector-api.js';
import type { CallRecord } from '../median/index.js';
import type { Logger } from '../shared/index.js';
import type { RecordMatcher } from './call-index.js';

export interface InspectorServerOptions {
  /** Default 4142 (not 4040: the ngrok agent’s); when taken, any free port (as the proxy's `--port 0`). 0: any free port. */
  port?: number;
  /** The daemon's state (already masked). */
  snapshot(): DaemonSnapshot;
  /** The daemon's events (already masked); the inspector subscribes once. */
  events: { on(listener: (event: DaemonEvent) => void): () => void };
  /** Every stored record, newest first. */
  scanRecords(): AsyncIterable<CallRecord>;
  /** One record by record id or toolCallId; throws `call_not_found`. */
  findRecord(id: string): Promise<CallRecord>;
  /** The one filter parser: null for a blank text, a coded error for a bad one. */
  matcherFor(text: string): RecordMatcher | null;
  replay(body: ReplayBody): Promise<ReplayAnswer>;
  /**
   * Approves or denies a call median-dev's emulator holds (the status page's
   * buttons); left out, the inspector offers none. A real Median's approvals
   * are never decided here: the daemon refuses them (`not_emulator`).
   */
  decideEmulatorApproval?(id: string, decision: 'approve' | 'deny'): Promise<EmulatorDecisionAnswer>;
  /** Saves a recorded tool call as a test file (median-calls/); left out, the inspector offers no save. */
  saveCall?(id: string): Promise<SaveCallAnswer>;
  /** A curl command re-signed with a fresh timestamp, every secret masked. */
  curlOf(record: CallRecord): string;
  /** A HAR log of the records (oldest first), every secret masked. */
  harOf(records: CallRecord[]): unknown;
  /** Reads the route's manifest (signed) for its tools' input schemas. */
  readTools(): Promise<ManifestTool[]>;
  /** Masks whatever the inspector serves (the daemon's one masker). */
  maskRecord?(record: CallRecord): CallRecord;
  /** Where the built page is (default: dist/inspector). */
  assetDir?: string;
  logger?: Logger;
}
