import { UserError } from '../shared/errors.js';

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `--since`/`--until`: a duration back from now (`30s`, `10m`, `2h`, `1d`)
 * or a date and time (`2026-01-05T14:00:00Z`, `2026-01-05`). Milliseconds since the epoch.
 */
export function parseTimeFlag(value: unknown, flag: string, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  const relative = /^(\d+(?:\.\d+)?)([smhd])$/.exec(text);
  if (relative) return now - Number(relative[1]) * UNIT_MS[relative[2]!]!;
  const at = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) {
    throw new UserError('invalid_time', `${flag} takes a duration like 10m, 2h or 1d, or a time like 2026-01-05T14:00:00Z, not "${text}".`, { exitCode: 2 });
  }
  return at;
}
