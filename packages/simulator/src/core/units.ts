/**
 * The leader's rate notation of scenario files (`loginRateLimit: 2/second`). Durations and sizes of scenario files
 * use the project's own grammars (packages/api/src/duration.ts, packages/api/src/size.ts), as every setting does.
 */

const RATE_UNITS: Readonly<Record<string, number>> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 };

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
