// Hono on Node (@hono/node-server), run with `tsx watch src/index.ts`, the two files in src/lib/.
// tsx watch never rereads env files: median-dev restarts it with the new MEDIAN_TOOLS_URL in its environment.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { exampleTools } from './lib/example-tools.js';
import { createMedianHandler } from './lib/median-handler.js';

const env = () => process.env;
const median = createMedianHandler({ tools: exampleTools(env), env });

const app = new Hono();
app.all('/api/median', (c) => median(c.req.raw));

const port = Number(process.env.PORT ?? 3000);
serve({ fetch: app.fetch, port, hostname: process.env.HOST ?? 'localhost' }, (info) => console.log(`Server is running on http://localhost:${info.port}`));
