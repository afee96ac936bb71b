// SvelteKit 2 (Vite): src/routes/api/median/+server.ts, with the two files in src/lib/.
// vite dev reloads .env.local itself, but only $env/dynamic/private sees the new value
// (process.env keeps the one it started with): read the variables from there.
import { env } from '$env/dynamic/private';
import { exampleTools } from '$lib/example-tools';
import { createMedianHandler } from '$lib/median-handler';
import type { RequestHandler } from './$types';

const read = () => env;
const median = createMedianHandler({ tools: exampleTools(read), env: read });

export const GET: RequestHandler = ({ request }) => median(request);
export const POST: RequestHandler = ({ request }) => median(request);
export const fallback: RequestHandler = ({ request }) => median(request); // 405 for the rest
