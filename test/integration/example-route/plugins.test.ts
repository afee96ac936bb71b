import { describe, expect, it } from 'vitest';
import { createDemoTools, defineTool, navigation, p, startToolRouteServer } from '../../../examples/tools-route/index.js';
import { findLoadError, findLoadNotice, LOAD_MESSAGES } from '../../../src/median/index.js';
import { createRecordingLogger } from '../../helpers/recording-logger.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { signedGet } from './route-client.js';

import { KEY } from './route-client.js';

const toolNames = async (url: string) => ((await signedGet(url)).body as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
const tool = (name: string) => defineTool({ name, description: `The ${name} tool of a plugin.`, risk: 'low', input: { q: p.string().optional() }, execute: () => ({ ok: true }) });

describe('the example route’s plugins and their load errors', () => {
  it('two plugins that both define a tool: the docs’ load error, nothing served', async () => {
    const start = startToolRouteServer({ port: 0, key: KEY, tools: createDemoTools(), plugins: [{ plugin: 'search', tools: [tool('findPage')] }, { plugin: 'help', tools: [tool('findPage')] }] });
    await expect(start).rejects.toMatchObject({ code: 'invalid_tool_definition', message: 'Median: two plugins both define a tool called "findPage". Take one of them out.' });
    expect(findLoadError(` ⨯ Error: ${LOAD_MESSAGES.twoPlugins('findPage')}`)?.fix).toBe('Remove one plugin.');
  });

  it('a tool of yours named like the navigation plugin’s: the docs’ load error', async () => {
    const start = startToolRouteServer({ port: 0, key: KEY, tools: [...createDemoTools(), tool('goToPage')], plugins: [navigation({ routes: ['/orders'] })] });
    await expect(start).rejects.toMatchObject({
      code: 'invalid_tool_definition',
      message: 'Median: your tool "goToPage" has the same name as one from the navigation plugin. Rename yours, or drop the plugin.',
    });
    expect(findLoadError(LOAD_MESSAGES.navigationClash('goToPage'))?.fix).toBe('Rename your tool.');
  });

  it('navigation() with pages serves goToPage; with none (an edge runtime) it logs the docs’ line and serves none', async () => {
    const withPages = useTeardown(await startToolRouteServer({ port: 0, key: KEY, tools: createDemoTools(), plugins: [navigation({ routes: ['/orders', '/help'] })] }), (r) => r.close());
    expect(await toolNames(withPages.url)).toContain('goToPage');
    const logger = createRecordingLogger();
    const edge = useTeardown(await startToolRouteServer({ port: 0, key: KEY, tools: createDemoTools(), plugins: [navigation({ logger })] }), (r) => r.close());
    expect(await toolNames(edge.url)).not.toContain('goToPage');
    const line = logger.messages('warn')[0] ?? '';
    expect(line).toBe('Median: navigation() found no pages, so the agent has no way to move anybody.');
    expect(findLoadNotice(`\u001b[33m${line}\u001b[39m`)?.fix).toContain('Pass routes to navigation(), or run the route on Node 20.16 or later, or Bun.');
  });
});
