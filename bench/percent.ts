/** Percentages as BENCHMARKS.md prints them. */
export const pct = (n: number): string => `${(n * 100).toFixed(0)} %`;

/**
 * A ratio measured against a `≥ target`: whole percent, unless that rounds
 * up to the target while the ratio misses it (0.946 of a 0.95 goal is
 * `94.6 %`, not a `95 %` marked missed).
 */
export function pctAgainst(n: number, target: number): string {
  return n < target && pct(n) === pct(target) ? `${(n * 100).toFixed(1)} %` : pct(n);
}
