import type { EndpointKeeper, ProductionGuardDecision, RouteRetry } from '../endpoints/index.js';
import { isWaitingForRoute } from '../endpoints/index.js';
import type { ControlCommand, DaemonFact, NewDaemonEvent } from '../events/index.js';
import { keyFingerprint } from '../median/index.js';
import { MedianDevError, errorCode } from '../shared/errors.js';
import type { ChildRestartPolicy } from './child-restart-policy.js';
import { createHealProgress, type HealProgress } from './heal-progress.js';
import type { KeyRotation } from './key-rotation.js';
import type { SerialQueue } from './serial-queue.js';
import type { ToolsUrlWriter } from './tools-url-writer.js';

/** What the dispatch acts on: the daemon's parts, built and wired in start-daemon.ts. */
export interface DispatchParts {
  route: string;
  envFile: string | null;
  /** Reactions that change the URL, the key or the endpoint run one at a time on it. */
  queue: SerialQueue;
  toolsUrl: ToolsUrlWriter;
  child: ChildRestartPolicy;
  keys: KeyRotation;
  endpoint: Pick<EndpointKeeper, 'ensure' | 'sync' | 'reconnect' | 'productionGuard'>;
  routeRetry: RouteRetry;
  /** A new key: the proxy (signature checks), the recorder and the masker (masking), the snapshot follow it. */
  /** `source`: the env file the key came from. */
  followKey(key: string | undefined, source: string | undefined): void;
  replay(command: Extract<ControlCommand, { command: 'replay' }>): Promise<unknown>;
  sendDiagnostics(): Promise<unknown>;
  simulateHostnameChange(): Promise<void>;
  /** Approves or denies a call the built-in emulator holds (`not_emulator` for a real Median). */
  decideEmulatorApproval(command: Extract<ControlCommand, { command: 'emulator-decision' }>): Promise<unknown>;
  clearRecords(): void;
  /** A fresh one-time inspector link; throws `inspector_off` when the daemon serves none. */
  inspectorLink(): { url: string; link: string };
  /** Closes every running part in order (shutdown.ts); idempotent. */
  shutdown(): Promise<void>;
  emit(event: NewDaemonEvent): void;
}

/**
 * Takes a fact and does what follows from it. Resolves once the reaction
 * is over: a queued one's failure is reported as an `error` event; a
 * command's result (or error) goes back to whoever sent it.
 */
export type Dispatch = (fact: DaemonFact) => Promise<unknown>;

/**
 * The daemon's one place where facts become actions (Wrangler's DevEnv):
 * parts never call each other, they report facts, and this switch says
 * what happens next. The order of a URL change is `healTo` just below.
 */
export function createDispatch(parts: DispatchParts): Dispatch {
  const { queue, child, keys, endpoint, emit } = parts;
  /** A heal that ended unsynced because the dev server did not answer: it resumes on `route.answering` for its URL. */
  let unsyncedHeal: { url: string; startedAt: number } | undefined;

  /** SPEC §2.1: a new public URL reaches the env file, then the dev server, then Median. */
  /** Each step is also a `heal` event (changing → connecting → syncing → done): clients show where the heal is. */
  async function healTo(url: string): Promise<void> {
    const heal = createHealProgress(url, emit);
    unsyncedHeal = undefined; // a newer heal replaces one waiting for the route
    let isSynced = false;
    try {
      if (url !== parts.toolsUrl.current()) heal.step('changing');
      await parts.toolsUrl.write(url); // 1. MEDIAN_TOOLS_URL in the env file (and the `tools-url` event)
      await child.restartFor(url); //     2. the dev server restarts with it, if it runs with another
      if (child.hasCommand) heal.step('connecting');
      const guard = askGuardEarly(url); // Median's endpoint list comes while the dev server starts
      await child.waitUntilAnswering(); // 3. its route answers (or the wait gives up)
      isSynced = await connectEndpoint(url, heal, guard); // 4. Median's endpoint points at it and syncs
    } finally {
      heal.end(isSynced);
    }
  }

  /** The production guard's decision for `url`, asked now (its failure is met where it is awaited); none without a key. */
  function askGuardEarly(url: string): Promise<ProductionGuardDecision> | undefined {
    if (!keys.api()) return undefined;
    const guard = endpoint.productionGuard(url);
    guard.catch(() => undefined); // awaited by connectEndpoint, which reports it
    return guard;
  }

  /** Whether the endpoint ended synced at `url`; `guard`: the production guard's decision, asked for already. */
  async function connectEndpoint(url: string, heal?: HealProgress, guard?: Promise<ProductionGuardDecision>): Promise<boolean> {
    if (!keys.api()) {
      const hint = keys.keyHint.replace('picks it up.', 'picks it up and connects.');
      emit({ event: 'error', code: 'missing_key', message: 'No MEDIAN_KEY is set, so the endpoint cannot be connected.', hint });
      return false;
    }
    if (!(await isAllowedToConnect(url, guard))) return false;
    heal?.step('syncing');
    const connected = await endpoint.ensure(url);
    // Median could not reach the dev server: fix the endpoint again once it answers (`route.answering`), and the heal with it.
    if (isWaitingForRoute(connected)) {
      if (heal) unsyncedHeal = { url, startedAt: heal.startedAt };
      void parts.routeRetry.watch(url);
    }
    return connected?.status === 'synced' && connected.url === url;
  }

  /** The dev server answers at `url`: connect the endpoint again; a heal left unsynced there resumes (`syncing`, `done`). */
  async function reconnectAnswering(url: string): Promise<void> {
    if (url !== parts.toolsUrl.current() || !keys.api()) return;
    const resumes = unsyncedHeal?.url === url ? unsyncedHeal : undefined;
    unsyncedHeal = undefined;
    const heal = resumes ? createHealProgress(url, emit, { resumesFrom: resumes.startedAt }) : undefined;
    let isSynced = false;
    try {
      isSynced = await connectEndpoint(url, heal);
    } finally {
      heal?.end(isSynced);
    }
  }

  /**
   * The production guard, a step of its own before anything connects into
   * the key's organisation (the pure decision is decideProductionGuard in
   * src/endpoints): production there and no --allow-production-org → no
   * connect, and the reason as an `error` event.
   */
  async function isAllowedToConnect(url: string, guard?: Promise<ProductionGuardDecision>): Promise<boolean> {
    const decision = await (guard ?? endpoint.productionGuard(url));
    if (decision.kind === 'proceed') return true;
    emit({ event: 'error', code: decision.code, message: decision.message, hint: decision.hint });
    return false;
  }

  /** Syncs the endpoint; with none at Median (removed meanwhile, never connected), connects it (guarded). */
  async function syncEndpoint(url: string): Promise<void> {
    try {
      await endpoint.sync(url);
    } catch (error) {
      if (errorCode(error) !== 'endpoint_not_connected') throw error;
      await connectEndpoint(url);
    }
  }

  /** A new MEDIAN_KEY: whoever signs or masks follows it, then the dev server (restarted unless it reloads the key's file), then Median binds it. */
  async function rotateKey(key: string | undefined, source: string | undefined): Promise<void> {
    keys.use(key);
    parts.followKey(key, source);
    const now = key ? `${keyFingerprint(key)} from ${source ?? parts.envFile}` : 'unset';
    emit({ event: 'log', level: 'info', message: `MEDIAN_KEY changed in the env files (now ${now}): reconnecting the endpoint with the new key.` });
    if (child.isStarted) {
      await child.followKey(source); // restarted, unless it reloads that file by itself
      await child.waitUntilAnswering();
    }
    const url = parts.toolsUrl.current();
    // A new key may belong to another organisation: the guard looks at that one's endpoints.
    if (url && keys.api() && (await isAllowedToConnect(url))) await endpoint.reconnect(url);
  }

  let hasSaidLocalOnly = false;
  /** The tunnel did not open: start the dev server as the env file has it (if it is not running), and say so once. */
  async function runWithoutTunnel(isFinal: boolean): Promise<void> {
    if (!child.hasCommand || parts.toolsUrl.current() !== undefined) return;
    await child.startLocally();
    if (hasSaidLocalOnly) return;
    hasSaidLocalOnly = true;
    emit(localOnlyEvent(child.toolsUrl ?? null, isFinal));
  }

  async function syncNow(): Promise<void> {
    const url = parts.toolsUrl.current();
    if (!url) throw new MedianDevError('no_tools_url', 'The tunnel has not given a public URL yet, so there is nothing to sync.');
    keys.requireApi();
    await syncEndpoint(url);
  }

  async function runCommand(command: ControlCommand): Promise<unknown> {
    switch (command.command) {
      case 'sync': // after a heal under way, so it syncs the URL in use
        await queue.run(syncNow);
        return { synced: true };
      case 'restart-child':
        await queue.run(() => child.restart());
        return { restarted: true };
      case 'replay': // not queued: a replay goes through the proxy as it is
        return parts.replay(command);
      case 'diagnostics':
        return parts.sendDiagnostics();
      case 'simulate-hostname-change':
        await parts.simulateHostnameChange();
        return { requested: true };
      case 'clear':
        parts.clearRecords();
        return { cleared: true };
      case 'inspector-link':
        return parts.inspectorLink();
      case 'emulator-decision': // not queued: the approved call goes through the tunnel and the proxy as Median's would
        return parts.decideEmulatorApproval(command);
      default: {
        const never: never = command;
        throw new MedianDevError('unknown_command', `Unknown control command ${JSON.stringify(never)}.`);
      }
    }
  }

  return async function dispatch(fact) {
    switch (fact.type) {
      case 'daemon.started': // the dev server compiles at the last URL while the tunnel opens
        return queue.push(() => child.startAtRememberedUrl());
      case 'tunnel.opened':
        return queue.push(() => healTo(`${fact.origin}${parts.route}`));
      case 'tunnel.openFailed': // no tunnel yet: the dev server runs anyway; the URL order follows on `tunnel.opened`
        return queue.push(() => runWithoutTunnel(fact.isFinal));
      case 'tunnel.lost': // the tunnel reopens by itself; its next `tunnel.opened` heals
        return;
      case 'envFile.changed':
        return queue.push(() => keys.reread());
      case 'envFile.keyChanged':
        return queue.push(() => rotateKey(fact.key, fact.source));
      case 'files.changed':
        return queue.push(async () => {
          const url = parts.toolsUrl.current();
          if (!url || !keys.api()) return;
          emit({ event: 'log', level: 'info', message: `${fact.count} watched file${fact.count === 1 ? '' : 's'} changed: syncing.` });
          await syncEndpoint(url);
        });
      case 'child.exited': // reported to clients as a `child` event; a dev server that exits stays down until restarted (KEY_MAP's restart-dev-server)
        return;
      case 'route.answering':
        return queue.push(() => reconnectAnswering(fact.toolsUrl));
      case 'command.received':
        return runCommand(fact.command);
      case 'shutdown.requested':
        return parts.shutdown();
      default: {
        const never: never = fact;
        throw new MedianDevError('internal_error', `No case for the fact ${JSON.stringify(never)}.`);
      }
    }
  };
}

/** What `local-only` says: the dev server runs, and what follows once the tunnel opens (or why nothing will). */
function localOnlyEvent(toolsUrl: string | null, isFinal: boolean): NewDaemonEvent {
  const runs = `The dev server runs without a tunnel, ${toolsUrl ? `with MEDIAN_TOOLS_URL=${toolsUrl}` : 'without MEDIAN_TOOLS_URL'}: work against it locally.`;
  const next = isFinal
    ? ' The tunnel will not open (see the error); fix it and start median-dev again for Median to reach the route.'
    : ' median-dev keeps opening the tunnel; then it writes the URL, restarts the dev server if the URL differs, and syncs the endpoint.';
  return { event: 'local-only', toolsUrl, message: `${runs}${next}` };
}
