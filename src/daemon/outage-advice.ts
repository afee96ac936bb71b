import { findExecutable } from '../platform/index.js';

/** Another provider this machine has, and the start line that uses it. */
export interface ProviderAlternative {
  provider: 'ngrok' | 'cloudflared' | 'ssh';
  command: string;
}

/** The providers other than localtunnel that this machine could use now (never chosen for the user). */
export function providerAlternatives(env: Readonly<Record<string, string | undefined>>, hasNgrokToken: boolean): ProviderAlternative[] {
  const alternatives: ProviderAlternative[] = [];
  if (hasNgrokToken) alternatives.push({ provider: 'ngrok', command: 'median-dev start --tunnel ngrok' });
  if (findExecutable('cloudflared', env)) alternatives.push({ provider: 'cloudflared', command: 'median-dev start --tunnel cloudflared' });
  if (findExecutable('ssh', env)) alternatives.push({ provider: 'ssh', command: 'median-dev start --tunnel ssh --ssh nokey@localhost.run' });
  return alternatives;
}

export interface OutageAdvisorOptions {
  alternatives: readonly ProviderAlternative[];
  /** Outages within this window count together. Default 10 minutes. */
  windowMs?: number;
  /** This many outages in the window bring the advice. Default 3. */
  threshold?: number;
  now?: () => number;
}

/**
 * After repeated localtunnel outages, once: a suggestion of a provider the
 * machine has (median-dev never switches by itself: the URL, the endpoint
 * and the teammates' expectations are the user's). Without an alternative,
 * nothing is said.
 */
export function createOutageAdvisor(options: OutageAdvisorOptions): { noteOutage(): string | undefined } {
  const windowMs = options.windowMs ?? 10 * 60_000;
  const threshold = options.threshold ?? 3;
  const now = options.now ?? Date.now;
  const outages: number[] = [];
  let hasAdvised = false;
  return {
    noteOutage() {
      if (hasAdvised || options.alternatives.length === 0) return undefined;
      const at = now();
      outages.push(at);
      while (outages.length > 0 && at - outages[0]! > windowMs) outages.shift();
      if (outages.length < threshold) return undefined;
      hasAdvised = true;
      const [first, ...rest] = options.alternatives;
      const also = rest.length ? ` (or ${rest.map((a) => a.provider).join(', ')})` : '';
      return `The localtunnel server dropped the tunnel ${outages.length} times in ${Math.round(windowMs / 60_000)} minutes. This machine has ${first!.provider}${also}: \`${first!.command}\` keeps working when localtunnel's server does not. median-dev stays on localtunnel until you choose.`;
    },
  };
}
