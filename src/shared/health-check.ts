/**
 * The proxy's health check, both sides of it: the proxy answers
 * `GET /__median-dev/health` itself, and the tunnel's probe asks for it through
 * the public URL to learn whether the tunnel still reaches this proxy.
 */

/** The path the proxy answers itself, never forwarding it to the dev server. */
export const HEALTH_PATH = '/__median-dev/health';

/**
 * A header the proxy sets on its health answer, holding its instance id, so
 * no tunnel server's own answer (nor another median-dev's) is mistaken for it.
 */
export const HEALTH_MARKER_HEADER = 'x-median-dev-health';

/** Whether a marker header's value is the proxy's (with `instanceId` given, only that instance's). */
export function isProxyMarker(value: string | null | undefined, instanceId?: string): boolean {
  if (value === null || value === undefined || value === '') return false;
  return instanceId === undefined || value === instanceId;
}

/** The proxy's health answer: `{ok: true, service: "median-dev", instance}`. */
export function healthBody(instanceId: string): string {
  return JSON.stringify({ ok: true, service: 'median-dev', instance: instanceId });
}

/** Whether `text` is the proxy's health answer (with `instanceId` given, only that instance's). */
export function isProxyHealth(text: string, instanceId?: string): boolean {
  try {
    const body = JSON.parse(text) as { service?: unknown; instance?: unknown } | null;
    return body?.service === 'median-dev' && (instanceId === undefined || body.instance === instanceId);
  } catch {
    return false; // not JSON: not the proxy's answer
  }
}
