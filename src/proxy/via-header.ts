/**
 * The `Via` header (RFC 9110 §7.6.3): every proxy a request passes through
 * adds itself. median-dev adds `1.1 median-dev-<instance id>`, so a request
 * that comes back carrying this proxy's own entry has gone round a loop — a
 * `--target` that leads back here through something the proxy cannot see
 * (the public tunnel URL, another proxy, a port forward).
 */
import type { IncomingHttpHeaders } from 'node:http';

function ownEntry(instanceId: string): string {
  return `median-dev-${instanceId}`;
}

/** Whether `via` (as received) lists this proxy instance. */
export function hasPassedThrough(via: string | string[] | undefined, instanceId: string): boolean {
  if (via === undefined) return false;
  const entry = ownEntry(instanceId);
  const text = Array.isArray(via) ? via.join(',') : via;
  // Each entry is `<protocol> <received-by> [comment]`.
  return text.split(',').some((part) => part.trim().split(/\s+/)[1] === entry);
}

/** Adds this proxy's entry to the headers sent on (after any earlier proxies'). */
export function addVia(headers: IncomingHttpHeaders, instanceId: string): void {
  const entry = `1.1 ${ownEntry(instanceId)}`;
  const earlier = headers.via;
  headers.via = earlier === undefined || earlier === '' ? entry : `${earlier}, ${entry}`;
}
