/**
 * What `cloudflared tunnel --url …` prints on stderr, read line by line. From
 * cloudflared's observed output (2022–2025 releases):
 *
 *   2025-01-01T00:00:00Z INF Requesting new quick Tunnel on trycloudflare.com...
 *   2025-01-01T00:00:00Z INF +--------------------------------------------------------------------------------------------+
 *   2025-01-01T00:00:00Z INF |  Your quick Tunnel has been created! Visit it at (it may take some time to be reachable):  |
 *   2025-01-01T00:00:00Z INF |  https://seasonal-deck-organisms-sf.trycloudflare.com                                      |
 *   2025-01-01T00:00:00Z INF +--------------------------------------------------------------------------------------------+
 *   2025-01-01T00:00:00Z INF Starting metrics server on 127.0.0.1:41853/metrics
 *   2025-01-01T00:00:01Z INF Registered tunnel connection connIndex=0 connection=… event=0 ip=198.41.200.193 location=ams02 protocol=quic
 *
 * and, when quick tunnels are being created too often from this address:
 *
 *   failed to request quick Tunnel: Error unmarshaling QuickTunnel response: error code: 1015 status_code="429 Too Many Requests"
 *
 * The metrics line names the address cloudflared bound for `--metrics
 * 127.0.0.1:0` (cloudflared's metrics.ServeMetrics logs its listener's
 * address, the port the kernel chose). The metrics server's `/quicktunnel` is
 * the first source of the hostname; the other lines are the fallback and the
 * source of the error messages. The texts are matched anywhere in a line, so
 * `--output json` (TUNNEL_LOG_OUTPUT) lines read the same.
 */
export type CloudflaredLine =
  | { kind: 'url'; url: string }
  | { kind: 'registered' }
  /** `http://127.0.0.1:<port>`: a loopback address only (median-dev asks for 127.0.0.1:0). */
  | { kind: 'metrics'; origin: string }
  | { kind: 'rate-limited' }
  | { kind: 'failed'; message: string }
  | { kind: 'other' };

const BOX_URL = /\|\s+(https:\/\/[a-z0-9-]+(?:\.[a-z0-9-]+)*\.trycloudflare\.com)\s+\|/i;
const METRICS = /Starting metrics server on (127(?:\.\d{1,3}){3}|\[::1\]):(\d{1,5})\/metrics/;
const RATE_LIMITED = /error code: 1015|429 Too Many Requests/i;
const FAILED = /(?:failed to request quick Tunnel|failed to|\bERR\b)\s*:?\s*(.*)$/i;

export function readCloudflaredLine(line: string): CloudflaredLine {
  const url = BOX_URL.exec(line);
  if (url) return { kind: 'url', url: url[1]!.toLowerCase() };
  if (RATE_LIMITED.test(line)) return { kind: 'rate-limited' };
  const metrics = METRICS.exec(line);
  if (metrics && Number(metrics[2]) > 0 && Number(metrics[2]) < 65_536) return { kind: 'metrics', origin: `http://${metrics[1]}:${Number(metrics[2])}` };
  if (/Registered tunnel connection/i.test(line)) return { kind: 'registered' };
  if (/failed to request quick Tunnel/i.test(line) || /\sERR\s/.test(line)) {
    const message = FAILED.exec(line)?.[1]?.trim();
    return { kind: 'failed', message: message && message !== '' ? message : line.trim() };
  }
  return { kind: 'other' };
}

/** `GET /quicktunnel` of the metrics server: `{"hostname":"…trycloudflare.com"}` (empty until the tunnel was created). */
export function quickTunnelHostname(body: unknown): string | undefined {
  const hostname = (body as { hostname?: unknown } | null)?.hostname;
  return typeof hostname === 'string' && /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(hostname) ? hostname.toLowerCase() : undefined;
}

/** `GET /ready`: `{"status":200,"readyConnections":N,"connectorId":"…"}` (503 with 0 before the first edge connection). */
export function readyConnections(status: number, body: unknown): number {
  const count = (body as { readyConnections?: unknown } | null)?.readyConnections;
  return status === 200 && typeof count === 'number' && Number.isFinite(count) ? count : 0;
}
