import { RISKS } from './protocol.js';
import { MANIFEST_SHAPE_MESSAGES as SHAPE, SYNC_MESSAGES } from './messages.js';

/** One reason a manifest would not sync. `message` is the docs' wording. */
export interface ManifestProblem {
  /** Where the problem is (`tools[2].inputSchema`), `''` for the whole manifest. */
  path: string;
  message: string;
}

/** The sync rules' limits (tool-errors.txt, Sync errors). */
export const MANIFEST_LIMITS = Object.freeze({
  version: 1,
  maxTools: 20,
  /** Tool endpoints an organisation can connect at once (the connect error too_many_tool_endpoints). */
  maxEndpoints: 10,
  maxNameLength: 64,
  maxDescriptionChars: 500,
  maxFields: 20,
  maxSchemaChars: 8000,
});

/** A letter, then letters, numbers and underscores, up to 64 characters. */
export const TOOL_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/**
 * OUR ASSUMPTION: the docs say some names are "one of the agent's own tools"
 * but never list them. We reserve the built-ins we expect the agent to have:
 * handing off to a teammate, ending the conversation, searching the docs.
 * Matched exactly (names are case-sensitive everywhere else too).
 *
 * `goToPage` is deliberately NOT here: the docs show the navigation plugin's
 * `goToPage` is served by the route itself ("…serves no goToPage tool"), so
 * it appears in manifests and must sync. Clashing with it is a load error
 * instead (see NAVIGATION_PLUGIN_TOOLS, checkToolDefinitions).
 */
export const RESERVED_TOOL_NAMES: readonly string[] = Object.freeze([
  'handOff',
  'handoff',
  'endConversation',
  'searchDocs',
  'searchKnowledge',
]);

/** The tools the navigation plugin adds to a route. */
export const NAVIGATION_PLUGIN_TOOLS: readonly string[] = Object.freeze(['goToPage']);

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON.stringify that cannot throw (deep nesting, getters): undefined on failure. */
function jsonLength(value: unknown): number | undefined {
  try {
    return JSON.stringify(value)?.length;
  } catch {
    // Too deep to serialize: the caller treats that as "too long".
    return undefined;
  }
}

function checkInputSchema(schema: unknown, path: string, problems: ManifestProblem[]): void {
  if (schema === undefined || schema === null) {
    problems.push({ path, message: SHAPE.required(path) });
    return;
  }
  if (!isObject(schema)) {
    problems.push({ path, message: SHAPE.notAnObject(path) });
    return;
  }
  if (schema['type'] !== 'object') problems.push({ path: `${path}.type`, message: SHAPE.typeObject(`${path}.type`) });
  const properties = schema['properties'];
  const propsPath = `${path}.properties`;
  let fieldNames: string[] = [];
  if (!isObject(properties)) {
    problems.push({ path: propsPath, message: properties === undefined ? SHAPE.required(propsPath) : SHAPE.notAnObject(propsPath) });
  } else {
    fieldNames = Object.keys(properties);
    for (const field of fieldNames) {
      if (!isObject(properties[field])) {
        const fieldPath = `${propsPath}.${field}`;
        problems.push({ path: fieldPath, message: SHAPE.notAnObject(fieldPath) });
      }
    }
  }
  const required = schema['required'];
  const requiredPath = `${path}.required`;
  if (required !== undefined) {
    if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) {
      problems.push({ path: requiredPath, message: SHAPE.stringArray(requiredPath) });
    } else if (isObject(properties)) {
      const missing = (required as string[]).find((r) => !Object.hasOwn(properties, r));
      if (missing !== undefined) problems.push({ path: requiredPath, message: SHAPE.unknownRequired(requiredPath, missing) });
    }
  }
  if (schema['additionalProperties'] !== false) {
    const p = `${path}.additionalProperties`;
    problems.push({ path: p, message: SHAPE.hasToBeFalse(p) });
  }
  if (fieldNames.length > MANIFEST_LIMITS.maxFields) {
    problems.push({ path, message: SYNC_MESSAGES.tooManyFields(path, fieldNames.length, MANIFEST_LIMITS.maxFields) });
  }
  const length = jsonLength(schema);
  if (length === undefined || length > MANIFEST_LIMITS.maxSchemaChars) {
    problems.push({ path, message: SYNC_MESSAGES.schemaTooLong(path, MANIFEST_LIMITS.maxSchemaChars) });
  }
}

function checkTool(tool: unknown, path: string, seen: Map<string, string>, problems: ManifestProblem[]): void {
  if (!isObject(tool)) {
    problems.push({ path, message: SHAPE.notAnObject(path) });
    return;
  }
  const namePath = `${path}.name`;
  const name = tool['name'];
  if (typeof name !== 'string') {
    problems.push({ path: namePath, message: name === undefined ? SHAPE.required(namePath) : SHAPE.notAString(namePath) });
  } else if (!TOOL_NAME_PATTERN.test(name)) {
    problems.push({ path: namePath, message: SHAPE.badName(namePath, name) });
  } else if (RESERVED_TOOL_NAMES.includes(name)) {
    problems.push({ path: namePath, message: SYNC_MESSAGES.reservedName(namePath, name) });
  } else {
    const first = seen.get(name);
    if (first !== undefined) problems.push({ path: namePath, message: SHAPE.duplicateName(namePath, name, first) });
    else seen.set(name, path);
  }

  const descPath = `${path}.description`;
  const description = tool['description'];
  if (description === undefined || description === null || (typeof description === 'string' && description.trim() === '')) {
    problems.push({ path: descPath, message: SHAPE.required(descPath) });
  } else if (typeof description !== 'string') {
    problems.push({ path: descPath, message: SHAPE.notAString(descPath) });
  } else if (description.length > MANIFEST_LIMITS.maxDescriptionChars) {
    problems.push({ path: descPath, message: SYNC_MESSAGES.descriptionTooLong(descPath, MANIFEST_LIMITS.maxDescriptionChars) });
  }

  const riskPath = `${path}.risk`;
  const risk = tool['risk'];
  if (risk === undefined) problems.push({ path: riskPath, message: SHAPE.required(riskPath) });
  else if (!(RISKS as readonly unknown[]).includes(risk)) problems.push({ path: riskPath, message: SHAPE.badRisk(riskPath) });

  checkInputSchema(tool['inputSchema'], `${path}.inputSchema`, problems);
}

/**
 * Every sync rule a single manifest can break, in the order Median would
 * report them: the whole document, its version, the tool count, then each
 * tool (name, description, risk, inputSchema). `[]` means it would sync.
 * Never throws.
 */
export function checkManifest(json: unknown): ManifestProblem[] {
  try {
    return checkManifestUnguarded(json);
  } catch {
    // Only hostile objects (throwing getters, proxies) get here; JSON never does.
    return [{ path: '', message: SYNC_MESSAGES.couldNotSync }];
  }
}

function checkManifestUnguarded(json: unknown): ManifestProblem[] {
  if (!isObject(json)) return [{ path: '', message: SHAPE.notAnObject('') }];
  const problems: ManifestProblem[] = [];
  const version = json['version'];
  if (version === undefined) {
    problems.push({ path: 'version', message: SHAPE.required('version') });
  } else if (typeof version === 'number' || (typeof version === 'string' && version.trim() !== '' && Number.isFinite(Number(version)))) {
    if (Number(version) !== MANIFEST_LIMITS.version) {
      problems.push({ path: 'version', message: SYNC_MESSAGES.versionMismatch(String(version)) });
      // A manifest of another version is not judged by this version's rules.
      return problems;
    }
    if (typeof version === 'string') problems.push({ path: 'version', message: SHAPE.notANumber('version') });
  } else {
    problems.push({ path: 'version', message: SHAPE.notANumber('version') });
  }

  const tools = json['tools'];
  if (!Array.isArray(tools)) {
    problems.push({ path: 'tools', message: tools === undefined ? SHAPE.required('tools') : SHAPE.notAnArray('tools') });
    return problems;
  }
  if (tools.length > MANIFEST_LIMITS.maxTools) {
    problems.push({ path: 'tools', message: SYNC_MESSAGES.tooManyTools(tools.length, MANIFEST_LIMITS.maxTools) });
  }
  const seen = new Map<string, string>();
  tools.forEach((tool, i) => checkTool(tool, `tools[${i}]`, seen, problems));
  return problems;
}

export interface EndpointTools {
  url: string;
  toolNames: string[];
}

/**
 * The rules that look across the organization's endpoints: a tool name may
 * come from one endpoint only, and all endpoints together declare at most
 * `limit` (20) tools. `endpoint` is the one being synced; `others` are the
 * organization's other endpoints (their last good tool sets). Returns the
 * first problem, or undefined.
 */
export function checkToolsAcrossEndpoints(
  endpoint: EndpointTools,
  others: EndpointTools[],
  limit: number = MANIFEST_LIMITS.maxTools,
): ManifestProblem | undefined {
  for (const [i, name] of endpoint.toolNames.entries()) {
    const owner = others.find((other) => other.url !== endpoint.url && other.toolNames.includes(name));
    if (owner) return { path: `tools[${i}].name`, message: SYNC_MESSAGES.nameClash(name, owner.url) };
  }
  const total = others
    .filter((other) => other.url !== endpoint.url)
    .reduce((sum, other) => sum + other.toolNames.length, endpoint.toolNames.length);
  if (total > limit) return { path: 'tools', message: SYNC_MESSAGES.tooManyTools(total, limit) };
  return undefined;
}
