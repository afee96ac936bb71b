import localtunnel from 'localtunnel';
import { useTeardown } from '../../helpers/use-teardown.js';
import type { TunnelServer } from '../../../src/tunnel-server/index.js';

export interface RealClient {
  tunnel: localtunnel.Tunnel;
  url: string;
  /** The tunnel id: the first label of the URL's hostname. */
  id: string;
  errors: Error[];
}

/**
 * Opens the real `localtunnel` npm client against the loopback server and
 * closes it when the test ends. Its `error` events are collected (the client
 * would crash the process without a listener).
 */
export async function useRealClient(server: TunnelServer, localPort: number, subdomain?: string): Promise<RealClient> {
  const tunnel = await localtunnel({ port: localPort, host: server.url, ...(subdomain ? { subdomain } : {}) });
  const errors: Error[] = [];
  tunnel.on('error', (error: Error) => errors.push(error));
  useTeardown(tunnel, (t) => t.close());
  return { tunnel, url: tunnel.url, id: new URL(tunnel.url).hostname.split('.')[0] as string, errors };
}
