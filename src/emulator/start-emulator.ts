import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Endpoint, Visitor } from '../median/index.js';
import { MedianDevError, silentLogger, systemClock, type Clock, type Logger } from '../shared/index.js';
import { createApiHandler } from './api-routes.js';
import { ApiError } from './api-error.js';
import { createApprovals, type ApprovalRequest, type ApproveOptions, type ReviewerDecision, type TeammateRun } from './approvals.js';
import { createAgentCalls, type AgentCallOutcome } from './agent-calls.js';
import { createConversations, type Conversation } from './conversations.js';
import { createEmulatorRoutes } from './emulator-routes.js';
import { createConversationRoutes } from './conversation-routes.js';
import { checkEndpointUrl } from './endpoint-url-rules.js';
import { heldTool, type HeldEndpointSpec } from './held-endpoint.js';
import { resolveLimits, type EmulatorLimits } from './emulator-limits.js';
import { createEndpointRegistry } from './endpoint-registry.js';
import { createKeyRing, generateMedianKey } from './key-ring.js';
import { fetchManifest } from './manifest-fetch.js';
import type { HostResolver } from './outbound-request.js';
import { createRateLimiter } from './rate-limiter.js';
import { createToolCaller, type CallToolRequest, type EmulatedCall, type EmulatedDiagnostics } from './tool-caller.js';
import { startTraffic, type Traffic, type TrafficOptions } from './traffic.js';

export interface EmulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /**
   * The org's first MEDIAN_KEY; generated (`median_key_` + 32 alphanumerics)
   * when absent. More keys come from `createKey()`.
   */
  key?: string;
  /** Reach public (tunnel) hostnames on loopback over plain HTTP, with the original Host header. */
  resolve?: HostResolver;
  /**
   * Consulted last: after `resolve` and after every `addResolver` resolver,
   * however late it was added (tests send unknown hostnames to a closed
   * loopback port with it, so they never reach DNS).
   */
  fallbackResolve?: HostResolver;
  limits?: Partial<EmulatorLimits>;
  logger?: Logger;
  /** @deprecated use `clock`; read only when `clock` is absent. */
  now?: () => number;
  /** The emulator's time: signing, approval expiry, the reviewer's delay, the hourly no-result check. Default real time. */
  clock?: Clock;
  /** What the automated reviewer does with `reviewed` calls; default approve (after `limits.reviewerDelayMs`). */
  reviewer?: ReviewerDecision;
}

export interface Emulator {
  /** The API base URL, e.g. `http://127.0.0.1:54321` (use as MEDIAN_API_URL). */
  readonly url: string;
  /** The org's first key (`options.key`); it may have been revoked since. */
  readonly key: string;
  /**
   * A new valid key for the same org, like "Create the new key on Settings →
   * API". Every non-revoked key authenticates /v1 calls; an endpoint is
   * signed for with the key that connected it (tool-errors.txt, "You rotated
   * the Median key").
   */
  createKey(): string;
  /**
   * Revokes a key: /v1 calls with it answer 401 `invalid_api_key`. Endpoints
   * it connected stay, and their syncs and calls still sign with its secret
   * until the route is opened again with another key. Idempotent; throws
   * `unknown_key` for a key the org never held.
   */
  revokeKey(key: string): void;
  /** The org's keys that are not revoked, oldest first. */
  keys(): string[];
  endpoints(): Endpoint[];
  /**
   * Consulted after `options.resolve` and earlier added resolvers, before
   * `options.fallbackResolve`. Returns a function that removes it again.
   */
  addResolver(resolve: HostResolver): () => void;
  callTool(request: CallToolRequest): Promise<EmulatedCall>;
  /**
   * OUR extension: an endpoint the emulator answers for itself — the
   * organisation's production deployment (`https://acme.example/api/median`)
   * or a teammate's tunnel (`https://dana-7f3a.loca.lt/api/median`) — bound to
   * the first key and synced against the same rules. Resolves once synced
   * (it may have failed: a clash, the 20-tool limit). Also
   * `POST /v1/emulator/endpoints` and `median-dev emulate --production/--teammate`.
   */
  holdEndpoint(spec: HeldEndpointSpec): Promise<Endpoint>;
  /** A reviewed/high call waiting for its approval (nothing is sent yet). Also `POST /v1/emulator/approvals`. */
  requestApproval(request: CallToolRequest): ApprovalRequest;
  /**
   * Approves it: the call runs with the request's id as `toolCallId` and
   * `approvedBy`, or ends with the docs' call error (`runError`) when the
   * tool is gone or `fault` says so. Also `POST /v1/emulator/approvals/{id}/approve`.
   */
  approve(id: string, options?: ApproveOptions): Promise<EmulatedCall>;
  /** A teammate declines it: nothing is sent. Also `POST /v1/emulator/approvals/{id}/deny`. */
  deny(id: string, options?: { as?: string }): ApprovalRequest;
  approval(id: string): ApprovalRequest;
  approvals(state?: ApprovalRequest['state']): ApprovalRequest[];
  /** A teammate runs a tool themselves, at any risk. Also `POST /v1/emulator/runs`. */
  runAsTeammate(run: TeammateRun): Promise<EmulatedCall>;
  /** Every approved run once it ended (the reviewer's, a teammate's, one the hourly check marked). */
  onRun(listener: (call: EmulatedCall) => void): () => void;
  /**
   * A new conversation: every endpoint syncs before its first reply (the
   * wait is measured in `firstReply`), and it keeps that tool set while
   * open. Also `POST /v1/emulator/conversations`.
   */
  startConversation(options?: { id?: string; visitor?: Visitor }): Promise<Conversation>;
  conversation(id: string): Conversation;
  /** A new customer message: a new turn of 3 calls. */
  newTurn(id: string): Conversation;
  /** The agent calls a tool in the conversation, by the rules of its risk and the turn. */
  agentCall(conversationId: string, request: { tool: string; input?: Record<string, unknown> }): Promise<AgentCallOutcome>;
  /** The conversation ends: its pending approvals expire. */
  endConversation(id: string): Conversation;
  setArchived(id: string, isArchived: boolean): Conversation;
  diagnostics(endpointUrl?: string): Promise<EmulatedDiagnostics>;
  startTraffic(options: TrafficOptions): Traffic;
  close(): Promise<void>;
}

function newEndpointId(): string {
  return `tep_${randomBytes(12).toString('hex')}`;
}

/**
 * The Median cloud on loopback (SPEC §3): the API of §1.3, signed syncs with
 * every manifest rule, and signed tool calls. Resolves once listening.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const clock: Clock = options.clock ?? (options.now ? { ...systemClock, now: options.now } : systemClock);
  const now = (): number => clock.now();
  const logger = options.logger ?? silentLogger;
  const limits = resolveLimits(options.limits);
  const keys = createKeyRing(options.key ?? generateMedianKey());
  // In the order they are asked; the fallback always stays last.
  const resolvers: HostResolver[] = [options.resolve, options.fallbackResolve].filter(
    (r): r is HostResolver => r !== undefined,
  );
  const fallbackCount = options.fallbackResolve ? 1 : 0;
  const closing = new AbortController();

  const registry = createEndpointRegistry({
    limits,
    now,
    logger,
    newId: newEndpointId,
    syncRate: createRateLimiter(limits.syncRate, now),
    fetchManifest: (url, key) =>
      fetchManifest({
        url,
        secret: keys.secretFor(key),
        now,
        timeoutMs: limits.syncTimeoutMs,
        maxManifestBytes: limits.maxManifestBytes,
        resolvers,
        signal: closing.signal,
      }),
  });
  const caller = createToolCaller({ registry, secretFor: (key) => keys.secretFor(key), limits, now, resolvers, signal: closing.signal, logger });
  const conversations = createConversations({ registry, limits, clock });
  const approvals = createApprovals({ registry, caller, conversations, limits, clock, logger, ...(options.reviewer ? { reviewer: options.reviewer } : {}) });
  const agentCall = createAgentCalls({ registry, caller, conversations, approvals, limits });
  const endConversation = (id: string): Conversation => {
    conversations.end(id);
    approvals.expireConversation(id);
    return conversations.get(id);
  };
  const server: Server = createServer(
    createApiHandler({
      keys,
      registry,
      connectRate: createRateLimiter(limits.connectRate, now),
      extensions: createEmulatorRoutes({
        registry,
        approvals,
        caller,
        more: createConversationRoutes({ conversations, approvals, agentCall, keys, endConversation: (id) => endConversation(id) }),
      }),
      logger,
    }),
  );

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(
        new MedianDevError(
          error.code === 'EADDRINUSE' ? 'port_in_use' : 'emulator_listen_failed',
          error.code === 'EADDRINUSE'
            ? `Port ${options.port ?? 0} on ${host} is already in use. Pick another with --port.`
            : `The emulator could not listen on ${host}:${options.port ?? 0} (${error.code ?? error.message}).`,
          { cause: error },
        ),
      );
    };
    server.once('error', onError);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  logger.info('emulator: listening', { url });

  let closed: Promise<void> | undefined;
  return {
    url,
    key: keys.first,
    createKey: () => keys.create(),
    revokeKey: (key) => keys.revoke(key),
    keys: () => keys.active(),
    endpoints: () => registry.list(),
    addResolver(resolve) {
      // A fresh wrapper, so adding one function twice gives two removable entries.
      const entry: HostResolver = (hostname) => resolve(hostname);
      resolvers.splice(resolvers.length - fallbackCount, 0, entry);
      return () => {
        const at = resolvers.indexOf(entry);
        if (at >= 0) resolvers.splice(at, 1);
      };
    },
    callTool: (request) => caller.callTool(request),
    async holdEndpoint(spec) {
      try {
        return await registry.hold(checkEndpointUrl(spec.url), spec.tools.map(heldTool), keys.first).synced;
      } catch (error) {
        throw error instanceof ApiError ? new MedianDevError(error.code, error.message, { details: { status: error.status } }) : error;
      }
    },
    requestApproval: (request) => approvals.request(request),
    approve: (id, approveOptions) => approvals.approve(id, approveOptions),
    deny: (id, denyOptions) => approvals.deny(id, denyOptions),
    approval: (id) => approvals.get(id),
    approvals: (state) => approvals.list(state),
    runAsTeammate: (run) => approvals.runAsTeammate(run),
    onRun: (listener) => approvals.onRun(listener),
    startConversation: (start) => conversations.start(start),
    conversation: (id) => conversations.get(id),
    newTurn: (id) => conversations.newTurn(id),
    agentCall,
    endConversation,
    setArchived: (id, isArchived) => conversations.setArchived(id, isArchived),
    diagnostics: (endpointUrl) => caller.diagnostics(endpointUrl),
    startTraffic: (trafficOptions) =>
      startTraffic(trafficOptions, {
        registry,
        startConversation: (start) => conversations.start(start),
        newTurn: (id) => conversations.newTurn(id),
        agentCall,
        onRun: (listener) => approvals.onRun(listener),
        logger,
        closed: closing.signal,
      }),
    close() {
      closed ??= (async () => {
        closing.abort();
        approvals.close();
        await Promise.allSettled([
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
          registry.settled(),
        ]);
      })();
      return closed;
    },
  };
}
