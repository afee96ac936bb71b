// The sample app: the route Median calls, at http://127.0.0.1:$PORT/api/median.
// Its tools are median-dev's example shop tools (shipped in the package), as an app's own would be.
import { createDemoTools, startToolRouteServer } from 'median-dev/dist/examples/tools-route/index.js';

const server = await startToolRouteServer({
  port: Number(process.env.PORT ?? 3000),
  key: process.env.MEDIAN_KEY,
  tools: createDemoTools(),
});
console.log(`my-shop listening on ${server.url}`);
const stop = () => void server.close();
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
