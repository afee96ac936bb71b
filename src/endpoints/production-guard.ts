import type { Endpoint } from '../median/api-client.js';
import { classifyEndpoints, type ClassifiedEndpoint, type ProjectMemory } from './classify-endpoints.js';
import { productionAtOrigin } from './endpoint-trust.js';

/** The flag that lets median-dev connect into an organisation holding production endpoints. */
export const ALLOW_PRODUCTION_FLAG = '--allow-production-org';

export type ProductionGuardDecision =
  | { kind: 'proceed'; production: ClassifiedEndpoint[] }
  | { kind: 'stop'; production: ClassifiedEndpoint[]; code: 'production_org'; message: string; hint: string };

/**
 * Whether median-dev may connect (or keep) this laptop's endpoint in the
 * organisation whose endpoints are `endpoints`. An organisation holding an
 * endpoint that is neither this project's nor a dev tunnel is a production
 * (or preview) organisation: the live agent there would see tools still being
 * written, and every new customer conversation waits for every endpoint's
 * sync (tool-errors.txt, "Preview deployments add endpoints"). Only an explicit
 * `--allow-production-org`, remembered per project, lets it proceed.
 */
export function decideProductionGuard(
  endpoints: readonly Endpoint[],
  memory: ProjectMemory,
  options: {
    extraTunnelDomains?: readonly string[];
    /** The URL about to be connected: an origin where a production endpoint lives is refused, whatever the flag. */
    toolsUrl?: string;
    /** The configured tunnel server's domains (dev tunnels), for the URL check. */
    tunnelDomains?: readonly string[];
  } = {},
): ProductionGuardDecision {
  // The URL just written as MEDIAN_TOOLS_URL proves nothing (a tunnel server or --public-url chose it): only the id and the history do.
  const proof: ProjectMemory = { ...memory, toolsUrl: undefined };
  // An endpoint under the configured tunnel server's domains is a dev tunnel (a teammate on the same server), never production.
  const classified = classifyEndpoints(endpoints, proof, { extraTunnelDomains: [...(options.extraTunnelDomains ?? []), ...(options.tunnelDomains ?? [])] });
  const taken = options.toolsUrl === undefined ? [] : productionAtOrigin(endpoints, options.toolsUrl, memory, options.tunnelDomains);
  if (taken.length > 0) {
    const ids = new Set(taken.map((e) => e.id));
    return {
      kind: 'stop',
      production: classified.filter((e) => ids.has(e.id)),
      code: 'production_org',
      message:
        `The public URL median-dev was about to connect, ${options.toolsUrl}, is on the origin of this organisation's production (or preview) endpoint ${taken.map((e) => e.url).join(', ')}. ` +
        'median-dev did not connect, adopt or change anything: that would move the live agent’s tools to this laptop.',
      hint:
        'Check --public-url, or --tunnel-host (a tunnel server must name tunnels under its own domain): this laptop needs a public URL of its own. ' +
        `${ALLOW_PRODUCTION_FLAG} does not change this.`,
    };
  }
  const production = classified.filter((e) => e.owner === 'production');
  if (production.length === 0 || memory.allowProductionOrg === true) return { kind: 'proceed', production };
  const urls = production.map((e) => e.url).join(', ');
  const it = production.length === 1 ? 'production (or a preview) endpoint' : `${production.length} production (or preview) endpoints`;
  return {
    kind: 'stop',
    production,
    code: 'production_org',
    message:
      `This MEDIAN_KEY's organisation already has a ${it}: ${urls}. median-dev did not connect this laptop's endpoint into it: ` +
      'the live agent would see the tools you are still writing, and every new customer conversation would wait for a sync of this laptop’s tunnel before its first reply.',
    hint:
      'Use a key from a separate development organisation (Settings → API in that organisation) as MEDIAN_KEY; median-dev connects as soon as the env file has it. ' +
      `To connect into this organisation anyway, restart with \`median-dev start ${ALLOW_PRODUCTION_FLAG}\` (remembered for this project).`,
  };
}
