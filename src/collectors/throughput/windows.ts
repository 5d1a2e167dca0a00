/**
 * The windows of each scope, and what a window's answer adds to the counters (delta to cumulative, as
 * statsd_exporter and OpenTelemetry's deltatocumulative processor do).
 *
 * A scope's windows are contiguous: each begins where the last answered one ended and ends `lag` before its query
 * (whole seconds), so no bucket is counted twice and none is skipped while the leader answers. After an outage the
 * next window covers the gap, at most `maxCatchUp` back; what lies beyond is skipped (and counted). The first query
 * of a scope primes it: its window (one interval before `now − lag`) gives the gauges and which series exist, its
 * sums are not counted, so counters count from 0 what happened while the exporter ran.
 */
import type { Window } from './query.js';

export interface WindowSettings {
  readonly intervalMs: number;
  readonly lagMs: number;
  readonly maxCatchUpMs: number;
}

/** The next window of a scope whose last answered window ended at `cursorMs` (undefined: never answered). */
export interface Planned extends Window {
  /** The first query of the scope: its sums are not counted. */
  readonly priming: boolean;
  /** Time between the cursor and this window not queried (a gap longer than max-catch-up). */
  readonly skippedMs: number;
}

const SECOND = 1000;

/** The window to query now; undefined when the last one already reaches `now − lag`. */
export function planWindow(cursorMs: number | undefined, nowMs: number, s: WindowSettings): Planned | undefined {
  const latestMs = Math.floor((nowMs - s.lagMs) / SECOND) * SECOND;
  if (cursorMs === undefined) {
    const span = Math.max(SECOND, Math.floor(s.intervalMs / SECOND) * SECOND);
    return { earliestMs: latestMs - span, latestMs, priming: true, skippedMs: 0 };
  }
  if (latestMs <= cursorMs) return undefined;
  const earliestMs = Math.max(cursorMs, latestMs - Math.floor(s.maxCatchUpMs / SECOND) * SECOND);
  return { earliestMs, latestMs, priming: false, skippedMs: earliestMs - cursorMs };
}

/** Cumulative counters by alias, only those ever reported. */
export type Counters = Readonly<Record<string, number>>;

/**
 * The counters after a window: each alias of `aliases` the window reported is added (created at 0 plus nothing when
 * priming); one not reported stays as it was (absent if never reported).
 */
export function addWindow(
  prev: Counters | undefined,
  values: Readonly<Record<string, number>> | undefined,
  aliases: readonly string[],
  priming: boolean,
): Counters {
  const out: Record<string, number> = { ...prev };
  if (!values) return out;
  for (const a of aliases) {
    const v = values[a];
    if (v === undefined) continue;
    out[a] = (out[a] ?? 0) + (priming ? 0 : Math.max(0, v));
  }
  return out;
}

/** The gauges of a window: the values of `aliases` it reported (absent otherwise). */
export function gaugesOf(values: Readonly<Record<string, number>> | undefined, aliases: readonly string[]): Counters {
  const out: Record<string, number> = {};
  for (const a of aliases) {
    const v = values?.[a];
    if (v !== undefined) out[a] = v;
  }
  return out;
}
