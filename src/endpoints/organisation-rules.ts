import { CONNECT_MESSAGES, SYNC_MESSAGES } from '../median/messages.js';
import { MANIFEST_LIMITS } from '../median/manifest-rules.js';
import type { Endpoint } from '../median/api-client.js';
import { clashAdvice } from './clash-advice.js';
import { classifyEndpoints, type ProjectMemory } from './classify-endpoints.js';
import { OWNER_LABELS, type EndpointOwner } from './endpoint-owner.js';

/** One way this project's tools would break an organisation-wide rule at its next sync. */
export interface OrganisationProblem {
  rule: 'unique-names' | 'tool-limit' | 'endpoint-limit';
  /** Median's own message for it (the docs' wording). */
  message: string;
  /** The other endpoint involved (unique names), and whose it is. */
  otherUrl?: string;
  otherOwner?: EndpointOwner;
  fix: string;
}

/**
 * The rules that look across the organisation's endpoints (tool-errors.txt's
 * Sync errors and Connect errors), checked BEFORE a sync: every tool name
 * comes from one endpoint, at most 20 tools across all endpoints, at most 10
 * endpoints. `toolNames` are this project's manifest's; `endpoints` are the
 * organisation's; this project's current endpoint (by `memory`) is left out,
 * since its tools are the ones being checked.
 */
export function checkOrganisation(toolNames: readonly string[], endpoints: readonly Endpoint[], memory: ProjectMemory): OrganisationProblem[] {
  const classified = classifyEndpoints(endpoints, memory);
  const others = classified.filter((e) => !e.isCurrent);
  const problems: OrganisationProblem[] = [];
  for (const name of toolNames) {
    const other = others.find((e) => e.tools.some((t) => t.name === name));
    if (!other) continue;
    problems.push({
      rule: 'unique-names',
      message: SYNC_MESSAGES.nameClash(name, other.url),
      otherUrl: other.url,
      otherOwner: other.owner,
      fix: `${other.url} is ${OWNER_LABELS[other.owner]}. ${clashAdvice({ tool: name, otherUrl: other.url, otherOwner: other.owner })}`,
    });
  }
  // Counted the way Median counts: every endpoint's last good tool set, switched on or not.
  const total = others.reduce((sum, e) => sum + e.tools.length, toolNames.length);
  if (total > MANIFEST_LIMITS.maxTools) {
    const counts = others
      .filter((e) => e.tools.length > 0)
      .map((e) => `${e.url} (${OWNER_LABELS[e.owner]}): ${e.tools.length}`)
      .join('; ');
    problems.push({
      rule: 'tool-limit',
      message: SYNC_MESSAGES.tooManyTools(total, MANIFEST_LIMITS.maxTools),
      fix: `This project declares ${toolNames.length}; the other endpoints: ${counts}. Remove tools, or develop in a separate development organisation (its key from Settings → API there).`,
    });
  }
  const hasOwnEndpoint = classified.some((e) => e.isThisProject);
  if (!hasOwnEndpoint && endpoints.length >= MANIFEST_LIMITS.maxEndpoints) {
    problems.push({
      rule: 'endpoint-limit',
      message: CONNECT_MESSAGES.tooManyEndpoints,
      fix: `The organisation holds ${endpoints.length} endpoints (${others.map((e) => `${e.url}: ${OWNER_LABELS[e.owner]}`).join('; ')}). Remove one you no longer use — never production — or use a development organisation's key.`,
    });
  }
  return problems;
}
