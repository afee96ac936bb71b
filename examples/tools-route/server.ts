/**
 * The example tool route as an app:
 *
 *   MEDIAN_KEY=median_key_… node dist/examples/tools-route/server.js
 *   curl -H "authorization: Bearer $MEDIAN_KEY" http://127.0.0.1:3000/api/median   # connect
 *
 * Environment: PORT (3000), HOST (127.0.0.1), MEDIAN_KEY, MEDIAN_TOOL_SECRET,
 * MEDIAN_TOOLS_URL (this route's public address), MEDIAN_API_URL.
 */
import type { Logger } from '../../src/shared/logger.js';
import { createDemoTools } from './demo-tools.js';
import { startToolRouteServer } from './start-tool-route-server.js';
import { navigation, type ToolPlugin } from './plugins.js';

const env = process.env;
const startedAt = Date.now();

const stderrLogger: Logger = {
  debug: () => {},
  info: (message) => console.error(message),
  warn: (message) => console.error(message),
  // One line per failure; set ROUTE_STACKS=1 for whole stack traces.
  error: (message, fields) => {
    const stack = typeof fields?.stack === 'string' ? fields.stack : '';
    console.error(message, process.env.ROUTE_STACKS ? stack : (stack.split('\n')[0] ?? ''));
  },
};

function portFrom(value: string | undefined): number {
  const port = Number(value ?? '3000');
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be a number from 0 to 65535, not "${value}".`);
  }
  return port;
}

/**
 * MEDIAN_EXAMPLE_NAVIGATION: unset, no navigation plugin; `edge`, navigation()
 * as on an edge runtime (no file system: it finds no pages and says so);
 * otherwise the site's pages, comma-separated (`/orders,/help`).
 */
function navigationPlugins(value: string | undefined): ToolPlugin[] {
  if (value === undefined || value === '') return [];
  return [navigation({ routes: value === 'edge' ? [] : value.split(',').map((r) => r.trim()).filter(Boolean), logger: stderrLogger })];
}

async function main(): Promise<void> {
  const tools = createDemoTools();
  const plugins = navigationPlugins(env.MEDIAN_EXAMPLE_NAVIGATION);
  const server = await startToolRouteServer({
    port: portFrom(env.PORT),
    host: env.HOST || '127.0.0.1',
    key: env.MEDIAN_KEY,
    toolSecret: env.MEDIAN_TOOL_SECRET,
    toolsUrl: env.MEDIAN_TOOLS_URL,
    apiUrl: env.MEDIAN_API_URL,
    tools,
    plugins,
    diagnostics: () => ({
      node: process.version,
      uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
      tools: tools.map((tool) => tool.name),
    }),
    logger: stderrLogger,
  });

  console.log(`tools route listening on ${server.url}`);
  if (!env.MEDIAN_KEY && !env.MEDIAN_TOOL_SECRET) {
    console.error('MEDIAN_KEY is not set: the route answers 500 missing_secret until it is.');
  }

  const stop = (signal: NodeJS.Signals) => {
    console.error(`${signal}: closing the tools route.`);
    void server.close();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
