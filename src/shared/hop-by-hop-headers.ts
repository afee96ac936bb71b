/**
 * Headers that belong to one connection, not to the message (RFC 9110
 * §7.6.1): never forwarded by a proxy, never worth re-sending.
 */
export const HOP_BY_HOP_HEADERS: readonly string[] = Object.freeze([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
]);
