import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * One-time tokens and the sessions they buy. A token goes into a printed URL
 * (`/session?token=…`); the first request that presents it gets a session id
 * (as an HttpOnly cookie) and the token is spent. Sessions live as long as
 * the daemon; nothing is written to disk.
 */
export interface SessionStore {
  /** A fresh one-time token (each `median-dev inspect` asks for one). */
  issueToken(): string;
  /** Spends the token: a new session id, or undefined for an unknown or spent token. */
  exchange(token: string): string | undefined;
  isSession(sessionId: string | undefined): boolean;
}

/** Unspent tokens kept at most; the oldest goes first (a token a user never opened). */
const MAX_TOKENS = 32;
const MAX_SESSIONS = 256;

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Constant time whatever the lengths. */
function findEqual(set: Set<string>, presented: string): string | undefined {
  const wanted = digest(presented);
  let found: string | undefined;
  for (const known of set) {
    if (timingSafeEqual(digest(known), wanted)) found = known;
  }
  return found;
}

export function createSessionStore(): SessionStore {
  const tokens = new Set<string>();
  const sessions = new Set<string>();
  const bounded = (set: Set<string>, max: number) => {
    while (set.size > max) set.delete(set.values().next().value as string);
  };
  return {
    issueToken() {
      const token = randomBytes(24).toString('base64url');
      tokens.add(token);
      bounded(tokens, MAX_TOKENS);
      return token;
    },
    exchange(token) {
      const known = findEqual(tokens, token);
      if (known === undefined) return undefined;
      tokens.delete(known);
      const sessionId = randomBytes(32).toString('base64url');
      sessions.add(sessionId);
      bounded(sessions, MAX_SESSIONS);
      return sessionId;
    },
    isSession(sessionId) {
      return sessionId !== undefined && sessionId !== '' && findEqual(sessions, sessionId) !== undefined;
    },
  };
}
