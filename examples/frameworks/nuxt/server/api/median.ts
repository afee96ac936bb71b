// Nuxt 4 (Nitro): server/api/median.ts, with the two files in server/lib/.
// nuxt dev reloads only .env, and its reloaded server keeps the values it started with: median-dev
// restarts nuxt dev with the new MEDIAN_TOOLS_URL in its environment, so process.env has it.
import { exampleTools } from '../lib/example-tools';
import { createMedianHandler } from '../lib/median-handler';

const env = () => process.env;
const median = createMedianHandler({ tools: exampleTools(env), env });

export default defineEventHandler((event) => median(toWebRequest(event)));
