/** A call this slow (ms) is shown in yellow: close to Median's limit. */
const SLOW_CALL_MS = 8000;

/** `HH:MM:SS` in local time. */
export function formatClock(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '--:--:--';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 100_000 ? `${Math.round(ms)}ms` : `${Math.round(ms / 1000)}s`;
}

export function isSlowCall(durationMs: number | null | undefined): boolean {
  return (durationMs ?? 0) >= SLOW_CALL_MS;
}
