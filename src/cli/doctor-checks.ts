import { access, constants } from 'node:fs/promises';
import type { Config } from '../config/resolve-config.js';
import { ALLOW_PRODUCTION_FLAG, decideProductionGuard } from '../endpoints/production-guard.js';
import { checkOrganisation } from '../endpoints/organisation-rules.js';
import { clashAdvice } from '../endpoints/clash-advice.js';
import { classifyEndpoints } from '../endpoints/classify-endpoints.js';
import { OWNER_LABELS } from '../shared/endpoint-owner.js';
import { parseClash } from '../endpoints/clash-message.js';
import { checkMedianKey, KEY_MESSAGES, resolveToolSecret } from '../median/key.js';
import { createMedianApiClient } from '../median/api-client.js';
import { MANIFEST_LIMITS } from '../median/manifest-rules.js';
import { syncFix } from '../median/sync-fixes.js';
import { errorCode } from '../shared/errors.js';
import type { AddCheck, DoctorCheck } from './doctor-check.js';
import { checkDaemonAndTunnel } from './doctor-tunnel-check.js';
import { fetchManifest } from './fetch-manifest.js';
import { configKeySource } from '../daemon/key-source.js';

export type { DoctorCheck } from './doctor-check.js';
type Add = AddCheck;

async function checkKey(config: Config, add: Add): Promise<boolean> {
  if (!config.medianKey) {
    add({ check: 'key', status: 'fail', message: 'MEDIAN_KEY is not set.', fix: `Copy the Median key from Settings → API into ${config.envFile ?? 'the environment'} as MEDIAN_KEY=median_key_…` });
    return false;
  }
  const problem = checkMedianKey(config.medianKey);
  if (problem) {
    add({ check: 'key', status: 'fail', message: problem === 'wrong_prefix' ? KEY_MESSAGES.wrongPrefix : KEY_MESSAGES.malformed, fix: 'Use the Median key (median_key_…), not the browser key; copy it whole.' });
    return false;
  }
  add({ check: 'key', status: 'ok', message: `MEDIAN_KEY is set (…${config.medianKey.slice(-4)}, from ${configKeySource(config)}).` });
  return true;
}

async function checkEnvFile(config: Config, add: Add, fileToolsUrl: string | undefined): Promise<void> {
  if (!config.envFile) {
    add({ check: 'env-file', status: 'warn', message: '--no-env-file: median-dev does not write MEDIAN_TOOLS_URL.', fix: 'Make sure your dev server gets MEDIAN_TOOLS_URL some other way.' });
    return;
  }
  try {
    await access(config.envFile, constants.R_OK | constants.W_OK);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') {
      add({ check: 'env-file', status: 'warn', message: `${config.envFile} does not exist yet.`, fix: '`median-dev start` creates it (0600) with MEDIAN_TOOLS_URL.' });
    } else {
      add({ check: 'env-file', status: 'fail', message: `${config.envFile} cannot be read and written (${errorCode(error)}).`, fix: 'Fix its permissions, or pass --env-file with another path.' });
    }
    return;
  }
  if (config.state.toolsUrl && fileToolsUrl !== config.state.toolsUrl) {
    add({ check: 'env-file', status: 'warn', message: `${config.envFile} ${fileToolsUrl === undefined ? 'does not set MEDIAN_TOOLS_URL' : `has MEDIAN_TOOLS_URL=${fileToolsUrl}`}, but the last tunnel URL was ${config.state.toolsUrl}.`, fix: '`median-dev start` rewrites it; restart your dev server if you run it yourself.' });
    return;
  }
  if (fileToolsUrl === undefined) {
    add({ check: 'env-file', status: 'warn', message: `${config.envFile} does not set MEDIAN_TOOLS_URL yet.`, fix: '`median-dev start` writes it once the tunnel opens.' });
    return;
  }
  add({ check: 'env-file', status: 'ok', message: `${config.envFile} has MEDIAN_TOOLS_URL=${fileToolsUrl}.` });
}

/** Returns the manifest's tool names when it would sync. */
async function checkRoute(config: Config, add: Add, hasKey: boolean): Promise<string[] | undefined> {
  const url = `${config.target}${config.route}`;
  if (!hasKey) {
    add({ check: 'route', status: 'warn', message: `Skipped the signed manifest read of ${url}: no usable key.` });
    return undefined;
  }
  const secret = resolveToolSecret({ medianKey: config.medianKey, toolSecret: config.toolSecret });
  const fetched = await fetchManifest(url, secret);
  if (fetched.outcome.kind === 'no-answer') {
    add({ check: 'route', status: 'fail', message: `${url} does not answer.`, fix: 'Start your dev server (or pass it to `median-dev start -- …`), and check --target and --route.' });
    return undefined;
  }
  if (!fetched.judgement.ok) {
    const fix = syncFix(fetched.judgement.message);
    add({ check: 'route', status: 'fail', message: `A signed manifest read of ${url} would fail Median's sync: ${fetched.judgement.message}`, fix: `${fix ? `${fix} ` : ''}Run \`median-dev manifest\` for every problem.` });
    return undefined;
  }
  add({ check: 'route', status: 'ok', message: `${url} answers a signed manifest read with ${fetched.judgement.manifest.tools.length} tools that pass every sync rule.` });
  return fetched.judgement.manifest.tools.map((t) => t.name);
}

async function checkEndpoints(config: Config, add: Add, toolNames: string[] | undefined): Promise<void> {
  if (!config.medianKey) return;
  let endpoints;
  try {
    endpoints = await createMedianApiClient({ baseUrl: config.medianApi, key: config.medianKey }).listEndpoints();
  } catch (error) {
    add({ check: 'endpoints', status: 'fail', message: `Median's endpoint list could not be read: ${error instanceof Error ? error.message : String(error)}`, fix: 'Check MEDIAN_KEY and --median-api / MEDIAN_API_URL.' });
    return;
  }
  const classified = classifyEndpoints(endpoints, config.state);
  const current = classified.find((e) => e.isCurrent);
  const guard = decideProductionGuard(endpoints, config.state);
  if (guard.kind === 'stop') {
    add({ check: 'production', status: 'fail', message: guard.message, fix: guard.hint });
  } else if (guard.production.length > 0) {
    add({
      check: 'production',
      status: 'warn',
      message: `This organisation serves production (or a preview): ${guard.production.map((e) => e.url).join(', ')}. This project connects into it because ${ALLOW_PRODUCTION_FLAG} was given.`,
      fix: `Use a key from a separate development organisation (Settings → API there); \`median-dev start --no-allow-production-org\` forgets the flag.`,
    });
  }
  if (!current) {
    add({ check: 'endpoint', status: config.state.toolsUrl ? 'fail' : 'warn', message: 'Median has no endpoint for this project.', fix: '`median-dev start` connects it.' });
  } else if (current.status === 'synced') {
    add({ check: 'endpoint', status: 'ok', message: `${current.id} at ${current.url} is synced (${current.tools.filter((t) => t.enabled).length}/${current.tools.length} tools on).` });
  } else {
    const clash = parseClash(current.error);
    const other = clash ? classified.find((e) => e.url === clash.otherUrl) : undefined;
    add({
      check: 'endpoint',
      status: 'fail',
      message: `${current.id} at ${current.url}: ${current.status}${current.error ? `. Sync failed: ${current.error}` : ''}${other ? ` (${other.url} is ${OWNER_LABELS[other.owner]})` : ''}`,
      fix: clash
        ? clashAdvice({ tool: clash.tool, otherUrl: clash.otherUrl, otherOwner: other?.owner })
        : (syncFix(current.error) ?? 'Fix the route (see `median-dev manifest`), then `median-dev sync`.'),
    });
  }
  const stale = classified.filter((e) => e.isStale);
  if (stale.length > 0) add({ check: 'stale-endpoints', status: 'warn', message: `${stale.length} stale endpoint${stale.length === 1 ? '' : 's'} of this project are still connected.`, fix: '`median-dev endpoints prune --yes` removes them.' });
  const teammates = classified.filter((e) => e.owner === 'dev-tunnel');
  if (teammates.length > 0) {
    add({ check: 'dev-tunnels', status: 'warn', message: `${teammates.length} other dev tunnel${teammates.length === 1 ? '' : 's'} (likely a teammate’s) share this organisation: ${teammates.map((e) => e.url).join(', ')}.`, fix: 'Each developer is best off with their own development organisation and key; tool names have to be unique across all of them.' });
  }
  if (toolNames) {
    const problems = checkOrganisation(toolNames, endpoints, config.state);
    for (const p of problems) add({ check: 'organisation', status: 'fail', message: p.message, fix: p.fix });
    if (problems.length === 0) add({ check: 'organisation', status: 'ok', message: `The ${toolNames.length} tools pass the organisation-wide rules (unique names, 20 tools, 10 endpoints) against its ${classified.filter((e) => !e.isCurrent).length} other endpoints.` });
  } else if (endpoints.length >= MANIFEST_LIMITS.maxEndpoints - 1) {
    add({ check: 'endpoint-limit', status: 'warn', message: `${endpoints.length} of the ${MANIFEST_LIMITS.maxEndpoints} endpoints an organization can connect are in use.`, fix: 'Remove endpoints you no longer use (`median-dev endpoints`).' });
  }
}

/** Every doctor check, in the order a developer would fix them. */
export async function runDoctorChecks(config: Config, fileToolsUrl: string | undefined): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const add: Add = (c) => checks.push(c);
  const hasKey = await checkKey(config, add);
  await checkEnvFile(config, add, fileToolsUrl);
  const toolNames = await checkRoute(config, add, hasKey);
  await checkDaemonAndTunnel(config, add, hasKey ? resolveToolSecret({ medianKey: config.medianKey, toolSecret: config.toolSecret }) : undefined);
  if (hasKey) await checkEndpoints(config, add, toolNames);
  return checks;
}
