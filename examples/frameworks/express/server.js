// Express 5 under `node --watch server.js`, with lib/median-handler.js and lib/example-tools.js
// (the .ts files beside this folder, compiled: `npx tsc` or any bundler strips the types).
// node --watch never rereads env files: median-dev restarts it with the new MEDIAN_TOOLS_URL in its environment.
import express from 'express';
import { exampleTools } from './lib/example-tools.js';
import { createMedianHandler } from './lib/median-handler.js';

const env = () => process.env;
const median = createMedianHandler({ tools: exampleTools(env), env });

const app = express();
// The signature covers the raw body: read it as bytes, before any JSON parser sees it.
app.all('/api/median', express.raw({ type: () => true, limit: '1mb' }), async (req, res, next) => {
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
    }
    const hasBody = Buffer.isBuffer(req.body) && req.body.length > 0;
    const request = new Request(new URL(req.originalUrl, `http://${req.headers.host ?? 'localhost'}`), { method: req.method, headers, body: hasBody ? req.body : undefined });
    const response = await median(request);
    res.status(response.status);
    response.headers.forEach((value, name) => res.setHeader(name, value));
    res.send(Buffer.from(await response.arrayBuffer()));
  } catch (error) {
    next(error);
  }
});

const port = Number(process.env.PORT ?? 3000);
app.listen(port, process.env.HOST ?? 'localhost', () => console.log(`Listening on http://localhost:${port}`));
