/**
 * `emulate --with-tunnel-server`: where its localtunnel server listens by
 * default, and the domain its tunnels live under. Apart from the server
 * itself (emulate-tunnel-server.ts), so the program's help text does not load
 * the tunnel server for every command.
 */
export const EMULATE_TUNNEL_SERVER_PORT = 4180;
export const EMULATE_TUNNEL_DOMAIN = 'lt.median.test';
