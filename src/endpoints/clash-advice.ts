import { OWNER_LABELS, type EndpointOwner } from './endpoint-owner.js';

export interface ClashFacts {
  tool: string;
  otherUrl: string;
  /** Whose the other endpoint is; undefined when Median no longer lists it. */
  otherOwner: EndpointOwner | undefined;
}

const OWN_KEY = 'use a key from a separate development organisation (Settings → API in that organisation) as MEDIAN_KEY';

/**
 * What to do about a tool-name clash, by whose the other endpoint is. Only
 * this project's own old endpoints are ever removed; production is never
 * offered for removal, and another dev tunnel only with a confirmation by name.
 */
export function clashAdvice(facts: ClashFacts): string {
  const { tool, otherUrl, otherOwner } = facts;
  switch (otherOwner) {
    case 'this-project':
      return `${otherUrl} is this project's old tunnel URL: \`median-dev endpoints prune --yes\` removes it (start does so by itself unless --no-auto-fix).`;
    case 'production':
      return `"${tool}" already comes from ${otherUrl}, ${OWNER_LABELS.production}: median-dev never removes it. Either ${OWN_KEY}, or rename "${tool}" in your route.`;
    case 'dev-tunnel':
      return `"${tool}" already comes from ${otherUrl}, ${OWNER_LABELS['dev-tunnel']}. Either ${OWN_KEY}, or rename "${tool}" in your route; if that tunnel is dead, \`median-dev endpoints prune\` offers to remove it once you confirm it by name.`;
    case undefined:
      return `Median no longer lists ${otherUrl}: \`median-dev sync\` syncs again.`;
    default: {
      const never: never = otherOwner;
      return never;
    }
  }
}
