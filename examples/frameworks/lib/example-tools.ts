import type { MedianEnv, MedianTool } from './median-handler.js';

/**
 * Two tools to start from: replace `orderStatus` with your own; `routeInfo`
 * says which public URL and process the route runs with, so you can see that
 * a dev server picked up a new MEDIAN_TOOLS_URL after a tunnel change.
 */
export function exampleTools(env: () => MedianEnv): MedianTool[] {
  return [
    {
      name: 'orderStatus',
      description: 'Looks up an order by its number and says where it is.',
      risk: 'low',
      inputSchema: {
        type: 'object',
        properties: { orderNumber: { type: 'string', description: 'The order number, like A1001.' } },
        required: ['orderNumber'],
        additionalProperties: false,
      },
      execute: (input) => ({ orderNumber: input.orderNumber, status: 'shipped' }),
    },
    {
      name: 'routeInfo',
      description: 'Says which public URL and process this route runs with.',
      risk: 'low',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      execute: () => ({ toolsUrl: env().MEDIAN_TOOLS_URL ?? null, pid: process.pid }),
    },
  ];
}
