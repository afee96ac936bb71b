// The public face of src/tunnel-server: a loopback localtunnel-compatible server.
export {
  startTunnelServer,
  type TunnelServer,
  type TunnelServerOptions,
  type RegistrationFault,
  type FrontProxyAnswer,
} from './tunnel-server.js';
export { TUNNEL_NAME_PATTERN, isValidTunnelName } from './tunnel-names.js';
