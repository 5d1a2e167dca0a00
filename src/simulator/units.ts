/** Parsers for the human-friendly values of scenario files: durations, sizes and the leader's rate notation. */

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const SIZE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1024,
  kib: 1024,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};
const RATE_UNITS: Readonly<Record<string, number>> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** "250ms", "2s", "1.5m", "1h", "1d" → milliseconds; undefined when not a duration. */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (!m) return undefined;
  return Math.round(Number(m[1]) * (DURATION_UNITS[m[2] as string] ?? NaN));
}

/** "512", "64KB", "20MB", "1GiB" → bytes (KB = KiB = 1024); undefined when not a size. */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!m) return undefined;
  const unit = SIZE_UNITS[(m[2] || 'b').toLowerCase()];
  return unit === undefined ? undefined : Math.round(Number(m[1]) * unit);
}

/** A limit in the leader's own notation (`loginRateLimit: 2/second`): `count` requests per `windowMs`. */
export interface RateSpec {
  count: number;
  windowMs: number;
}

/** "2/second", "10/minute", "100/hour", "1000/day" → RateSpec; undefined when malformed. */
export function parseRate(text: string): RateSpec | undefined {
  const m = /^\s*(\d+)\s*\/\s*(second|minute|hour|day)\s*$/.exec(text);
  if (!m) return undefined;
  const count = Number(m[1]);
  const windowMs = RATE_UNITS[m[2] as string];
  if (count < 1 || windowMs === undefined) return undefined;
  return { count, windowMs };
}
