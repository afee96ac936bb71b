import type { Config } from '../config/resolve-config.js';
import { checkToolUse, type ToolUseCheck, type ToolUseFacts } from '../median/tool-use-checks.js';
import { createMedianApiClient, type Endpoint } from '../median/api-client.js';
import { resolveToolSecret } from '../median/key.js';
import type { ManifestTool } from '../median/protocol.js';
import { createCallStore } from '../recorder/call-store.js';
import type { DoctorCheck } from './doctor-check.js';
import { fetchManifest } from './fetch-manifest.js';

/** Recorded tool calls read for the turn check: the newest this many. */
const RECENT_CALLS = 2_000;

/** What the five checks look at, read once: Median's endpoints, the route's manifest, the recorded calls. */
export async function readToolUseFacts(config: Config): Promise<Omit<ToolUseFacts, 'tool'>> {
  const secret = config.medianKey || config.toolSecret ? resolveToolSecret({ medianKey: config.medianKey, toolSecret: config.toolSecret }) : undefined;
  const [endpoints, manifest, calls] = await Promise.all([
    config.medianKey
      ? createMedianApiClient({ baseUrl: config.medianApi, key: config.medianKey }).listEndpoints().catch((): Endpoint[] | undefined => undefined)
      : Promise.resolve(undefined),
    secret
      ? fetchManifest(`${config.target}${config.route}`, secret).then((read): ManifestTool[] | undefined => (read.judgement.ok ? read.judgement.manifest.tools : undefined))
      : Promise.resolve(undefined),
    createCallStore(config.dataDir)
      .list({ limit: RECENT_CALLS, where: (r) => r.kind === 'tool-call' && r.replayOf === null })
      .catch(() => []),
  ]);
  return { endpoints, manifest, calls: calls.map((c) => ({ tool: c.tool, conversationId: c.conversationId, receivedAt: c.receivedAt })) };
}

/** The five checks for one tool. */
export async function toolUseReport(config: Config, tool: string): Promise<ToolUseCheck[]> {
  return checkToolUse({ tool, ...(await readToolUseFacts(config)) });
}

/**
 * doctor's section: the five checks for every tool the route serves, as
 * doctor lines (`tool-use`): one line per problem, or one saying all pass.
 */
export async function toolUseDoctorChecks(config: Config): Promise<DoctorCheck[]> {
  const facts = await readToolUseFacts(config);
  if (!facts.manifest || facts.manifest.length === 0) return [];
  const lines: DoctorCheck[] = [];
  for (const tool of facts.manifest) {
    for (const check of checkToolUse({ tool: tool.name, ...facts })) {
      // A warning in doctor: a switch may be off on purpose; `why <tool>` says fail.
      if (check.status !== 'ok') lines.push({ check: 'tool-use', status: 'warn', message: `${tool.name} (${check.check}): ${check.message}`, ...(check.fix ? { fix: check.fix } : {}) });
    }
  }
  if (lines.length === 0) lines.push({ check: 'tool-use', status: 'ok', message: `All ${facts.manifest.length} tools pass the five checks of "The agent does not use a tool" (median-dev why <tool>).` });
  return lines;
}
