import { checkOrganisation, type OrganisationProblem } from '../../endpoints/organisation-rules.js';
import { checkManifest } from '../../median/manifest-rules.js';
import { createMedianApiClient } from '../../median/api-client.js';
import { syncFix } from '../../median/sync-fixes.js';
import type { ManifestTool } from '../../median/protocol.js';
import type { Config } from '../../config/resolve-config.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { loadConfig } from '../load-config.js';
import { fetchManifest } from '../fetch-manifest.js';
import { requireSecret } from '../require-secret.js';
import { createStyle } from '../terminal-style.js';
import { QuietFailure } from '../quiet-failure.js';

export async function runManifest(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const secret = requireSecret(config, 'A manifest read');
  const url = `${config.target}${config.route}`;
  const fetched = await fetchManifest(url, secret);
  // Every manifest rule applies only to a 2xx JSON answer; anything else (a 401, a 500 error body) is the one
  // sync error Median itself would show for it.
  const isManifestAnswer = fetched.outcome.kind === 'answer' && fetched.outcome.status >= 200 && fetched.outcome.status < 300 && fetched.json !== undefined;
  const problems = fetched.judgement.ok ? [] : isManifestAnswer ? checkManifest(fetched.json) : [];
  const allProblems = problems.length > 0 ? problems : fetched.judgement.ok ? [] : [{ path: '', message: fetched.judgement.message }];
  const manifest = fetched.judgement.ok ? fetched.judgement.manifest : null;
  const organisation = manifest ? await checkOrganisationRules(config, manifest.tools.map((t) => t.name)) : undefined;
  const wouldSync = fetched.judgement.ok && allProblems.length === 0 && (organisation?.problems.length ?? 0) === 0;

  if (config.json) {
    writeJson(io, {
      url,
      status: fetched.outcome.kind === 'answer' ? fetched.outcome.status : null,
      wouldSync,
      problems: allProblems,
      organisation: organisation ?? null,
      manifest: manifest ?? (fetched.json !== undefined ? fetched.json : null),
    });
  } else {
    const style = createStyle(useColor(io));
    const status = fetched.outcome.kind === 'answer' ? `HTTP ${fetched.outcome.status}` : 'no answer';
    writeLine(io.stdout, `GET ${url} (signed) → ${status}`);
    const tools = (manifest?.tools ?? (fetched.json as { tools?: ManifestTool[] } | undefined)?.tools ?? []) as ManifestTool[];
    if (Array.isArray(tools) && tools.length > 0) {
      writeLine(io.stdout, '');
      for (const tool of tools) {
        const fields = Object.keys(tool?.inputSchema?.properties ?? {});
        writeLine(io.stdout, `  ${style.bold(String(tool?.name))}  ${style.dim(String(tool?.risk))}  ${fields.length} field${fields.length === 1 ? '' : 's'}${fields.length ? style.dim(` (${fields.join(', ')})`) : ''}`);
        if (typeof tool?.description === 'string') writeLine(io.stdout, `    ${style.dim(tool.description.slice(0, 120))}`);
      }
    }
    writeLine(io.stdout, '');
    if (organisation?.error) writeLine(io.stdout, style.yellow(`! The organisation-wide rules were not checked: ${organisation.error}`));
    else if (!organisation && manifest) writeLine(io.stdout, style.dim('The organisation-wide rules (unique names, 20 tools, 10 endpoints) need MEDIAN_KEY: not checked.'));
    const orgProblems = organisation?.problems ?? [];
    if (wouldSync) {
      const org = organisation ? `, and across the organisation's ${organisation.endpoints} other endpoint${organisation.endpoints === 1 ? '' : 's'}` : '';
      writeLine(io.stdout, style.green(`✓ Would sync: ${tools.length} tool${tools.length === 1 ? '' : 's'}, every sync rule passes${org}.`));
    } else {
      const count = allProblems.length + orgProblems.length;
      writeLine(io.stdout, style.red(`✗ Would fail to sync (${count} problem${count === 1 ? '' : 's'}):`));
      for (const p of allProblems) {
        writeLine(io.stdout, `  • ${p.message}`);
        const fix = syncFix(p.message);
        if (fix) writeLine(io.stdout, `    → ${fix}`);
      }
      for (const p of orgProblems) {
        writeLine(io.stdout, `  • ${p.message}`);
        writeLine(io.stdout, `    → ${p.fix}`);
      }
    }
  }
  if (!wouldSync) throw new QuietFailure(1);
}

/**
 * The organisation-wide rules, when a key is available: undefined without a
 * key; an `error` when the endpoint list could not be read.
 */
async function checkOrganisationRules(
  config: Config,
  toolNames: string[],
): Promise<{ endpoints: number; problems: OrganisationProblem[]; error?: string } | undefined> {
  if (!config.medianKey) return undefined;
  try {
    const endpoints = await createMedianApiClient({ baseUrl: config.medianApi, key: config.medianKey }).listEndpoints();
    const problems = checkOrganisation(toolNames, endpoints, config.state);
    const others = endpoints.filter((e) => e.id !== config.state.endpointId && e.url !== config.state.toolsUrl).length;
    return { endpoints: others, problems };
  } catch (error) {
    return { endpoints: 0, problems: [], error: error instanceof Error ? error.message : String(error) };
  }
}
