import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Why an upgrade request is answered with an HTTP error instead of a WebSocket. */
export interface UpgradeRefusal {
  status: number;
  code: string;
  message: string;
}

/**
 * The control channel's gate, decided before any WebSocket exists:
 * - any `Origin` header → 403: browsers always send one, Node clients never do,
 *   so a web page (even one rebinding DNS to 127.0.0.1) cannot drive the daemon;
 * - no `Authorization: Bearer <token>`, or another token → 401.
 */
export function checkControlUpgrade(headers: IncomingHttpHeaders, token: string): UpgradeRefusal | undefined {
  if (headers.origin !== undefined || headers['sec-websocket-origin'] !== undefined) {
    return {
      status: 403,
      code: 'origin_refused',
      message: 'The median-dev control channel does not accept connections from web pages.',
    };
  }
  const presented = bearerToken(headers.authorization);
  if (presented === undefined || !tokensEqual(presented, token)) {
    return {
      status: 401,
      code: 'unauthorized',
      message: 'The median-dev control channel needs the token from control.json (Authorization: Bearer <token>).',
    };
  }
  return undefined;
}

export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  return match?.[1];
}

/** Constant time whatever the lengths: both sides are hashed to 32 bytes first. */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
