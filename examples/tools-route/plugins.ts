import { LOAD_MESSAGES } from '../../src/median/messages.js';
import type { Logger } from '../../src/shared/logger.js';
import { p } from './field-builder.js';
import { defineTool, type ToolDefinition } from './tool-definition.js';

/**
 * Plugins as `median()` takes them: a named bundle of tools served beside the
 * route's own. Two plugins defining one tool name, or a tool of yours named
 * like one of the navigation plugin's, are load errors (tool-errors.txt).
 */
export interface ToolPlugin {
  plugin: string;
  tools: ToolDefinition[];
}

export interface NavigationOptions {
  /**
   * The site's pages. Left out, navigation() reads them from the file system;
   * on an edge runtime there is none, so it finds no pages (emulated: `[]`).
   */
  routes?: readonly string[];
  logger?: Logger;
}

/**
 * The navigation plugin: a `goToPage` tool over the site's pages, answering
 * with `medianNavigateTo`. With no pages (an edge runtime without `routes`)
 * it logs the docs' line and serves no goToPage tool.
 */
export function navigation(options: NavigationOptions = {}): ToolPlugin {
  const routes = options.routes ?? [];
  if (routes.length === 0) {
    options.logger?.warn(LOAD_MESSAGES.navigationNoPages);
    return { plugin: 'navigation', tools: [] };
  }
  const goToPage = defineTool({
    name: 'goToPage',
    description: 'Take the customer to a page of the site.',
    risk: 'low',
    input: { path: p.enum(routes as [string, ...string[]]).describe('The page to open.') },
    execute: ({ path }) => ({ opened: path, medianNavigateTo: path }),
  });
  return { plugin: 'navigation', tools: [goToPage as unknown as ToolDefinition] };
}
