import { readProjectState, updateProjectState, type StartConfig } from '../config/index.js';
import { DEFAULT_RETRY_POLICY, createEndpointKeeper, type EndpointKeeper } from '../endpoints/index.js';
import type { NewDaemonEvent } from '../events/index.js';
import type { Logger } from '../shared/logger.js';
import type { Clock } from '../shared/clock.js';
import type { KeyRotation } from './key-rotation.js';
import { openRouteWithKey } from './route-opener.js';
import type { TargetWatch } from './target-watch.js';
import { registrationDomains } from '../tunnel/index.js';

export interface ProjectEndpointOptions {
  config: Pick<StartConfig, 'dataDir' | 'route' | 'target' | 'autoFix' | 'allowProductionOrg' | 'tunnel' | 'tunnelHost' | 'tunnelDomains'>;
  /** The proxy's origin: the route is opened through it, so the connect is recorded. */
  proxyUrl: string;
  keys: KeyRotation;
  emit(event: NewDaemonEvent): void;
  logger: Logger;
  signal: AbortSignal;
  timing: Partial<{ routeReadyTimeoutMs: number; syncTimeoutMs: number }>;
  /** Says `target_unreachable` while the route is opened and nothing answers at --target. */
  targetWatch?: TargetWatch;
  /** The dev server's origin now (found from it after the start); left out, --target. */
  target?: () => string;
  /** What the pauses between Median tries wait on; real time when left out. */
  clock?: Clock | undefined;
  /** When median-dev last (re)started or reloaded the dev server (the child policy's `startingSince`). */
  devServerStartingSince?: () => number | undefined;
}

/** This project's Median endpoint: remembered in the data dir, connected through our proxy, with the key in use. */
export function createProjectEndpoint(options: ProjectEndpointOptions): EndpointKeeper {
  const { config, keys, timing } = options;
  return createEndpointKeeper({
    api: () => keys.requireApi(),
    readMemory: async () => {
      const state = await readProjectState(config.dataDir);
      return {
        endpointId: state.endpointId,
        toolsUrl: state.toolsUrl,
        tunnelUrls: state.tunnelUrls,
        allowProductionOrg: config.allowProductionOrg ?? state.allowProductionOrg,
      };
    },
    remember: async ({ endpointId, toolsUrl }) => {
      const state = await readProjectState(config.dataDir);
      const urls = new Set(state.tunnelUrls ?? []);
      urls.add(toolsUrl);
      await updateProjectState(config.dataDir, { endpointId, toolsUrl, tunnelUrls: [...urls] });
    },
    openRoute: () =>
      openRouteWithKey({
        url: `${options.proxyUrl}${config.route}`,
        key: () => keys.key(),
        readyTimeoutMs: timing.routeReadyTimeoutMs ?? 60_000,
        signal: options.signal,
        ...(options.targetWatch ? { targetWatch: options.targetWatch } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
        startingUntil: () => {
          const since = options.devServerStartingSince?.();
          return since === undefined ? undefined : since + DEFAULT_RETRY_POLICY.starting.windowMs;
        },
      }),
    autoFix: config.autoFix,
    emit: options.emit,
    logger: options.logger,
    routeUrl: () => `${options.target?.() ?? config.target}${config.route}`,
    // The domains the tunnel server may name our tunnels under (what its registration was checked against).
    tunnelDomains: devTunnelDomains(config),
    signal: options.signal,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.devServerStartingSince ? { devServerStartingSince: options.devServerStartingSince } : {}),
    ...(timing.syncTimeoutMs ? { syncTimeoutMs: timing.syncTimeoutMs } : {}),
  });
}

/**
 * The domains the tunnel server may name tunnels under (what its registration
 * is checked against): an endpoint there is a dev tunnel, this project's or a
 * teammate's on the same server, never production.
 */
export function devTunnelDomains(config: Pick<StartConfig, 'tunnel' | 'tunnelHost' | 'tunnelDomains'>): string[] {
  return config.tunnel === 'localtunnel' ? registrationDomains(new URL(config.tunnelHost), config.tunnelDomains) : [];
}
