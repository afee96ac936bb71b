import { RESERVED_TOOL_NAMES, TOOL_NAME_PATTERN } from './manifest-rules.js';
import { LOAD_MESSAGES } from './messages.js';
import { RISKS } from './protocol.js';

/** A tool as a route config declares it, before anything is checked. */
export interface ToolDefinitionInput {
  name: unknown;
  description?: unknown;
  risk?: unknown;
  execute?: unknown;
  /** Input fields, each expected to come from the schema builder. */
  fields?: Record<string, unknown>;
}

export interface ToolDefinitionOptions {
  /**
   * Tells a schema-builder field from anything else. OUR DEFAULT: an object
   * whose `kind` is `string`, `number`, `boolean` or `enum` (what
   * `p.string()`, `p.number()`, `p.boolean()`, `p.enum()` build).
   */
  isSchemaField?: (field: unknown) => boolean;
  /**
   * The tools plugins add, by plugin. The plugin called `navigation` is the
   * navigation plugin (its tools: NAVIGATION_PLUGIN_TOOLS).
   */
  plugins?: Array<{ plugin: string; tools: string[] }>;
}

const FIELD_KINDS = new Set(['string', 'number', 'boolean', 'enum']);

export function isSchemaBuilderField(field: unknown): boolean {
  return typeof field === 'object' && field !== null && FIELD_KINDS.has((field as { kind?: unknown }).kind as string);
}

function label(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // Unserializable (a cycle, a BigInt): fall back to its tag.
    return Object.prototype.toString.call(value);
  }
}

/**
 * The docs' Load errors for a route config, in declaration order (each tool:
 * name, description, risk, fields, execute; then name clashes with plugins).
 * `[]` means the route would load. Messages are the docs' (see messages.ts
 * for those we complete). Never throws.
 */
export function checkToolDefinitions(tools: ToolDefinitionInput[], options: ToolDefinitionOptions = {}): string[] {
  const isField = options.isSchemaField ?? isSchemaBuilderField;
  const errors: string[] = [];
  const seen = new Set<string>();
  for (const tool of Array.isArray(tools) ? tools : []) {
    if (typeof tool !== 'object' || tool === null) {
      errors.push(LOAD_MESSAGES.invalidName(label(tool)));
      continue;
    }
    const name = tool.name;
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
      errors.push(LOAD_MESSAGES.invalidName(label(name)));
      continue;
    }
    if (typeof tool.description !== 'string' || tool.description.trim() === '') errors.push(LOAD_MESSAGES.noDescription(name));
    if (!(RISKS as readonly unknown[]).includes(tool.risk)) errors.push(LOAD_MESSAGES.badRisk(name, label(tool.risk)));
    const fields = tool.fields;
    if (typeof fields === 'object' && fields !== null) {
      for (const [key, field] of Object.entries(fields)) {
        if (!isField(field)) errors.push(LOAD_MESSAGES.notSchemaBuilt(key, name));
      }
    }
    if (typeof tool.execute !== 'function') errors.push(LOAD_MESSAGES.noExecute(name));
    if (seen.has(name)) errors.push(LOAD_MESSAGES.duplicateTool(name));
    seen.add(name);
  }

  const pluginOwner = new Map<string, string>();
  for (const { plugin, tools: names } of options.plugins ?? []) {
    for (const name of names) {
      const other = pluginOwner.get(name);
      if (other !== undefined && other !== plugin) errors.push(LOAD_MESSAGES.twoPlugins(name));
      else pluginOwner.set(name, plugin);
      if (seen.has(name) && plugin === 'navigation') errors.push(LOAD_MESSAGES.navigationClash(name));
    }
  }
  return errors;
}

/**
 * The names a route may not declare because the agent owns them (OUR
 * ASSUMPTION, see RESERVED_TOOL_NAMES). A load-time check would catch them
 * before the sync does.
 */
export function isReservedToolName(name: string): boolean {
  return RESERVED_TOOL_NAMES.includes(name);
}
