// Next.js App Router (16): app/api/median/route.ts, with lib/ at the project root.
// next dev reloads .env.local itself and process.env then has the new MEDIAN_TOOLS_URL:
// read it per request, as here, and median-dev leaves next dev running when the tunnel URL changes.
import { exampleTools } from '../../../lib/example-tools';
import { createMedianHandler } from '../../../lib/median-handler';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs'; // node:crypto

const env = () => process.env;
const median = createMedianHandler({ tools: exampleTools(env), env });

export const GET = (request: Request) => median(request);
export const POST = (request: Request) => median(request);
// Other methods: Next.js answers 405 by itself.
