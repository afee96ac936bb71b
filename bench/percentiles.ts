/** Nearest-rank percentiles over latency samples, and the median of a few runs. */

/** The p-th percentile (0–100) of `sorted` (ascending), nearest rank. */
export function percentileOfSorted(sorted: Float64Array | readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  const index = Math.min(sorted.length - 1, Math.max(0, rank - 1));
  return sorted[index]!;
}

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Sorts a copy of the samples and reads the usual percentiles (ms in, ms out). */
export function summarizeLatencies(samples: Float64Array): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    p50: percentileOfSorted(sorted, 50),
    p90: percentileOfSorted(sorted, 90),
    p99: percentileOfSorted(sorted, 99),
    max: sorted.length > 0 ? sorted[sorted.length - 1]! : Number.NaN,
    mean: sorted.length > 0 ? sum / sorted.length : Number.NaN,
  };
}

/** The middle item by `key` (the lower middle for an even count). */
export function medianBy<T>(items: readonly T[], key: (item: T) => number): T {
  if (items.length === 0) throw new Error('medianBy: no items');
  const sorted = [...items].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

export function median(values: readonly number[]): number {
  return medianBy(values, (v) => v);
}
