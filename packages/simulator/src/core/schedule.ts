/**
 * The schedule of the signal faults (issue 39): an entry is in force from `start` (ms since the simulator started;
 * when omitted, from the moment it was set) until `end` (or `start + duration`; when both are omitted, until it is
 * cleared), repeating every `every` when given. The entries themselves are the endpoints' fault keys
 * (endpoints/<name>/faults.ts).
 */
import * as z from 'zod';
import { duration } from './schema-util.js';

/** When a scheduled change is in force (ms since the simulator started). */
export interface Schedule {
  start: number;
  end?: number;
  every?: number;
}

/** True while `t` (ms since start) falls inside the schedule. */
export function activeAt(s: Schedule, t: number): boolean {
  if (t < s.start) return false;
  if (s.end === undefined) return true;
  if (s.every === undefined) return t < s.end;
  return (t - s.start) % s.every < s.end - s.start;
}

/** When the schedule's current occurrence began (ms since start); call while it is active. */
export function begunAt(s: Schedule, t: number): number {
  if (s.every === undefined) return s.start;
  return s.start + Math.floor((t - s.start) / s.every) * s.every;
}

const scheduleShape = {
  start: duration.optional(),
  end: duration.optional(),
  duration: duration.optional(),
  every: duration.optional(),
};

/**
 * Adds the schedule keys to an entry and checks them. Without `start`, the entry keeps a relative `duration` until
 * it is stamped with the time it is set (stampSchedules).
 */
export function scheduled<S extends z.ZodRawShape>(shape: S) {
  type Out = z.output<z.ZodObject<S>> & { start?: number; end?: number; every?: number };
  type Raw = Record<string, unknown> & { start?: number; end?: number; duration?: number; every?: number };
  return z.strictObject({ ...shape, ...scheduleShape }).transform((raw, ctx): Out => {
    const { start, end, duration: length, every, ...rest } = raw as unknown as Raw;
    const from = start ?? 0;
    const until = end ?? (length === undefined ? undefined : from + length);
    if (until !== undefined && until <= from) {
      ctx.addIssue({ code: 'custom', message: 'needs `end` after `start`, or a positive `duration`' });
      return z.NEVER;
    }
    if (every !== undefined && (until === undefined || every < until - from)) {
      ctx.addIssue({ code: 'custom', message: '`every` needs an `end` or `duration`, and at least the window length' });
      return z.NEVER;
    }
    const out: Raw = { ...rest };
    if (start !== undefined) out.start = start;
    // Without a start, a duration counts from the moment the entry is stamped (stampSchedules).
    if (start === undefined && end === undefined && length !== undefined) out.duration = length;
    else if (until !== undefined) out.end = until;
    if (every !== undefined) out.every = every;
    return out as Out;
  });
}

type Unstamped = { start?: number; end?: number; duration?: number };

/**
 * Gives every scheduled entry of a parsed patch without `start` the time it is set (`t`, ms since start), so that
 * a change made at run time begins then (and a bulletin is dated then). Changes the patch in place.
 */
export function stampSchedules(patch: Record<string, unknown>, t: number): void {
  const stamp = (list: unknown): void => {
    if (!Array.isArray(list)) return;
    for (const w of list as Unstamped[]) {
      if (w.start !== undefined) continue;
      w.start = t;
      if (w.duration !== undefined) w.end = t + w.duration;
      delete w.duration;
    }
  };
  const section = (v: unknown): unknown => (v && typeof v === 'object' ? (v as { windows?: unknown }).windows : v);
  stamp(section(patch.dataflow));
  stamp(patch.groupWindows);
  stamp(section(patch.license));
  stamp(section(patch.vitals));
  stamp(patch.messages);
  stamp(section(patch.throughput));
  stamp((patch.throughput as { outages?: unknown } | undefined)?.outages);
}
