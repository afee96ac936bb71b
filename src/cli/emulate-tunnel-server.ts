import { startTunnelServer, type TunnelServer } from '../tunnel-server/tunnel-server.js';
import type { TunnelDomain } from '../emulator/tunnel-domains.js';
import { UserError, errorCode } from '../shared/errors.js';
import { EMULATE_TUNNEL_DOMAIN, EMULATE_TUNNEL_SERVER_PORT } from './emulate-tunnel-defaults.js';

export { EMULATE_TUNNEL_DOMAIN, EMULATE_TUNNEL_SERVER_PORT };

/**
 * The loopback localtunnel server `emulate --with-tunnel-server` runs beside
 * the emulator, so `emulate`, the `start` its banner prints and `emulate call`
 * make a whole offline setup for one's own app. `value`: the flag's value
 * (true: the default port).
 */
export async function startEmulateTunnelServer(value: unknown): Promise<{ server: TunnelServer; domain: TunnelDomain }> {
  const text = value === true ? String(EMULATE_TUNNEL_SERVER_PORT) : String(value);
  if (!/^\d+$/.test(text) || Number(text) > 65535) {
    throw new UserError('invalid_port', `--with-tunnel-server takes a port from 0 to 65535, not "${text}".`, { exitCode: 2 });
  }
  const server = await startTunnelServer({ port: Number(text), domain: EMULATE_TUNNEL_DOMAIN }).catch((error: unknown) => {
    if (errorCode(error) === 'EADDRINUSE' || errorCode(error) === 'port_in_use') {
      throw new UserError('port_in_use', `Port ${text} on 127.0.0.1 is taken, so the tunnel server cannot listen there.`, { hint: 'Pass --with-tunnel-server 0 for any free port.' });
    }
    throw error;
  });
  return { server, domain: { domain: EMULATE_TUNNEL_DOMAIN, host: '127.0.0.1', port: server.port } };
}
