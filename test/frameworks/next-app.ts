import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** Which Next.js the framework test installs (MEDIAN_DEV_NEXT_VERSION overrides). */
export const NEXT_VERSION = process.env.MEDIAN_DEV_NEXT_VERSION ?? '16';

/**
 * `app/api/median/route.js`: the route protocol (tool-endpoint-reference.txt,
 * SPEC §1.2) as a Next.js App Router route handler, written the way a user
 * would without median(): signed manifest on GET, signed tool calls and
 * diagnostics on POST, connect on a GET with the Bearer key. It reads
 * MEDIAN_KEY, MEDIAN_TOOLS_URL and MEDIAN_API_URL at request time, as route
 * handlers do; `whereAmI` answers the MEDIAN_TOOLS_URL and pid it runs with,
 * and the MEDIAN_TOOLS_URL read when the module was loaded (a route built at
 * module scope, as `export const { GET, POST } = median(…)` is).
 */
const ROUTE_JS = `import { createHmac, timingSafeEqual } from 'node:crypto';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';
const TOOLS_URL_AT_LOAD = process.env.MEDIAN_TOOLS_URL ?? null;

const TOOLS = [
  {
    name: 'orderStatus',
    description: 'Looks up an order by its number and says where it is.',
    risk: 'low',
    inputSchema: { type: 'object', properties: { orderNumber: { type: 'string', description: 'The order number, like A1001.' } }, required: ['orderNumber'], additionalProperties: false },
  },
  {
    name: 'whereAmI',
    description: 'Says which public URL and process this route runs with.',
    risk: 'low',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  },
];

const json = (status, body) => Response.json(body, { status });
const fail = (status, code, message) => json(status, { error: { code, message } });

function secret() {
  const key = process.env.MEDIAN_KEY ?? '';
  return createHmac('sha256', Buffer.from(key, 'utf8')).update('median/tool-signing/v1').digest();
}

function signatureProblem(header, body) {
  if (!header) return 'missing_signature';
  const match = /^t=(\\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return 'malformed_signature';
  if (Math.abs(Date.now() - Number(match[1])) > 300000) return 'stale_timestamp';
  const expected = createHmac('sha256', secret()).update(match[1] + '.' + body).digest();
  return timingSafeEqual(expected, Buffer.from(match[2], 'hex')) ? undefined : 'invalid_signature';
}

export async function GET(request) {
  const auth = request.headers.get('authorization') ?? '';
  if (auth.startsWith('Bearer ')) {
    if (auth.slice(7) !== process.env.MEDIAN_KEY) return fail(401, 'invalid_api_key', 'That is not this route\\'s MEDIAN_KEY.');
    const url = process.env.MEDIAN_TOOLS_URL;
    const api = (process.env.MEDIAN_API_URL ?? 'https://api.median.sh').replace(/\\/+$/, '');
    const answer = await fetch(api + '/v1/tool-endpoints', {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url }),
    });
    if (!answer.ok) return json(answer.status, await answer.json());
    return json(200, { connected: true, endpoint: url, tools: TOOLS.length, message: 'Connected.' });
  }
  const problem = signatureProblem(request.headers.get('median-signature'), '');
  if (problem) return fail(401, problem, 'The request is not signed by Median.');
  return json(200, { version: 1, tools: TOOLS });
}

export async function POST(request) {
  const body = await request.text();
  const problem = signatureProblem(request.headers.get('median-signature'), body);
  if (problem) return fail(401, problem, 'The request is not signed by Median.');
  const call = JSON.parse(body);
  if (call.op === 'diagnostics') return json(200, { result: { pid: process.pid } });
  if (call.tool === 'whereAmI') return json(200, { result: { toolsUrl: process.env.MEDIAN_TOOLS_URL ?? null, toolsUrlAtLoad: TOOLS_URL_AT_LOAD, pid: process.pid } });
  if (call.tool === 'orderStatus') return json(200, { result: { orderNumber: call.input.orderNumber, status: 'shipped' } });
  return fail(400, 'unknown_tool', 'No tool named ' + call.tool + '.');
}
`;

const LAYOUT_JS = `export default function RootLayout({ children }) {
  return <html><body>{children}</body></html>;
}
`;

/**
 * A small App Router app in `dir` with `next`, `react` and `react-dom`
 * installed from the registry (the only step that needs the network). Its
 * `dev` script is `next dev`.
 */
export async function createNextApp(dir: string): Promise<{ installSeconds: number; version: string }> {
  await mkdir(join(dir, 'app', 'api', 'median'), { recursive: true });
  await writeFile(join(dir, 'package.json'), `${JSON.stringify({ name: 'median-dev-next-app', private: true, scripts: { dev: 'next dev' } }, null, 2)}\n`);
  await writeFile(join(dir, 'app', 'layout.js'), LAYOUT_JS);
  await writeFile(join(dir, 'app', 'api', 'median', 'route.js'), ROUTE_JS);
  const startedAt = Date.now();
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  await promisify(execFile)(npm, ['install', '--no-audit', '--no-fund', '--loglevel=error', `next@${NEXT_VERSION}`, 'react', 'react-dom'], {
    cwd: dir,
    timeout: 600_000,
    shell: process.platform === 'win32',
  });
  const { version } = JSON.parse(await readFile(join(dir, 'node_modules', 'next', 'package.json'), 'utf8')) as { version: string };
  return { installSeconds: (Date.now() - startedAt) / 1000, version };
}

/** Makes the app folder a fresh project again: no data dir, so no remembered tunnel URL or endpoint. */
export async function forgetProject(dir: string): Promise<void> {
  await rm(join(dir, '.median-dev'), { recursive: true, force: true });
}
