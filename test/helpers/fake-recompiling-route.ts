import { useHttpServer } from './use-http-server.js';
import { manifestOf } from './use-emulator.js';

export interface RecompilingRoute {
  /** `<origin><path>`: it answers every path alike. */
  url(path: string): string;
  /** The dev server reloaded its env and recompiles: the next `failures` requests get the 500. */
  reload(failures: number): void;
  /** What it answers once it compiled (default: 200 with a two-tool manifest). */
  compiled: { status: number; contentType: string; body: string };
  /** Every request's answer status, in order. */
  answers: number[];
}

/** The text Next.js put in its 500 while it recompiled after an env reload (a half-written build manifest). */
export const RECOMPILING_BODY = "SyntaxError: Unexpected end of JSON input\n    at JSON.parse (<anonymous>)\n    at loadManifest (next/dist/server/load-manifest.js)";

/**
 * A real HTTP server on 127.0.0.1 standing in for `next dev` (16, --webpack)
 * right after it reloaded `.env.local`, as the framework suite saw it: while
 * it recompiles, a request is answered 500 with a plain-text body (the error
 * Next hit reading its half-written manifest, not JSON), for about a second;
 * then the route answers as usual (200 with the manifest). The count of
 * failing requests stands in for that second, so a test is not timing-bound.
 */
export async function useRecompilingRoute(): Promise<RecompilingRoute> {
  let failuresLeft = 0;
  const answers: number[] = [];
  const route: RecompilingRoute = {
    url: (path) => `${server.url}${path}`,
    reload: (failures) => void (failuresLeft = failures),
    compiled: { status: 200, contentType: 'application/json', body: JSON.stringify(manifestOf('orderStatus', 'refundOrder')) },
    answers,
  };
  const server = await useHttpServer((req, res) => {
    req.resume();
    if (failuresLeft > 0) {
      failuresLeft -= 1;
      answers.push(500);
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(RECOMPILING_BODY);
      return;
    }
    answers.push(route.compiled.status);
    res.writeHead(route.compiled.status, { 'content-type': route.compiled.contentType }).end(route.compiled.body);
  });
  return route;
}
