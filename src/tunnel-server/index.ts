// src/tunnel-server: a loopback localtunnel-compatible server (tests, the demo, `emulate --with-tunnel-server`).
// Layer: a part. May import: src/events, src/median, src/config, src/presentation, src/shared, src/platform.
export {
  startTunnelServer,
  type TunnelServer,
  type TunnelServerOptions,
  type RegistrationFault,
  type FrontProxyAnswer,
} from './tunnel-server.js';
export type { SocketReuse } from './client-socket-pool.js';
export { TUNNEL_NAME_PATTERN, isValidTunnelName } from './tunnel-names.js';
