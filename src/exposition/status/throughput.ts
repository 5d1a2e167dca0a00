/**
 * The status page's data in motion (issue 48), as pure functions over the throughput collector's view of each group
 * (collectors/throughput/view.ts): a window's rates, the sparkline of the last hour, and which destinations and
 * persistent queues come first (blocked, then growing). page.ts lays them out and escapes what comes from the leader;
 * the sparkline holds numbers and fixed words only.
 *
 * Cost: O(points) per group (the view keeps at most 60) and O(connectors) for the list, sorted once per page.
 */
import type { GroupThroughputView, QueueView, ThroughputPoint } from '../../collectors/throughput/view.js';
import { formatAge } from './time.js';

/** Events per second over one window. */
export interface Rates {
  readonly in: number;
  readonly out: number;
  readonly dropped: number;
}

/** A point's rates (its sums over its span); undefined for an empty span. */
export const ratesOf = (p: ThroughputPoint): Rates | undefined =>
  p.spanMs > 0
    ? {
        in: p.inEvents / (p.spanMs / 1000),
        out: p.outEvents / (p.spanMs / 1000),
        dropped: p.droppedEvents / (p.spanMs / 1000),
      }
    : undefined;

/** The newest point with a span, and its rates. */
export function lastRates(history: readonly ThroughputPoint[]): Rates | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const r = ratesOf(history[i]!);
    if (r) return r;
  }
  return undefined;
}

/** `0`, `0.4`, `12`, `34,567`, `456.7k`, `7.8M` (per second). */
export function formatRate(x: number): string {
  if (x >= 1e6) return `${(x / 1e6).toFixed(1)}M`;
  if (x >= 1e5) return `${(x / 1e3).toFixed(1)}k`;
  if (x >= 10) return String(Math.round(x)).replace(/\B(?=(\d{3})+$)/g, ',');
  return x.toFixed(1).replace(/\.0$/, '');
}

/** `0 B`, `512 B`, `12.3 kB`, `4.5 MB`, `1.2 GB` (decimal units, as the licence table's GB). */
export function formatBytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return u === 0 ? `${Math.round(v)} B` : `${v.toFixed(1)} ${units[u]}`;
}

const HOUR_MS = 3_600_000;
/** The sparkline's size in CSS pixels (and its viewBox). */
export const SPARK_WIDTH = 120;
export const SPARK_HEIGHT = 28;

const LINES = ['in', 'out', 'dropped'] as const;

/** A coordinate with at most one decimal (keeps the page small). */
const c = (x: number): string => String(Math.round(x * 10) / 10);

/**
 * The sparkline of a group's last hour: one step line each for events in, out and dropped per second (dropped only
 * when some were), each window a flat stretch over its own span, so that a longer catch-up window reads as its
 * average and a skipped gap as a break in the line. The x axis ends at the newest window's end and covers at most an
 * hour; the y axis is shared by the three lines, from 0 to the largest rate (all zeros: flat at the bottom). No
 * point: undefined (the page says so in words).
 */
export function sparkline(history: readonly ThroughputPoint[]): string | undefined {
  const last = history[history.length - 1];
  if (!last) return undefined;
  const end = last.endMs;
  const windows = history
    .map((p) => ({ from: Math.max(p.endMs - p.spanMs, end - HOUR_MS), to: p.endMs, rates: ratesOf(p) }))
    .filter((w): w is { from: number; to: number; rates: Rates } => w.rates !== undefined && w.to > w.from);
  const first = windows[0];
  if (!first) return undefined;
  const start = first.from;
  const max = Math.max(...windows.map((w) => Math.max(w.rates.in, w.rates.out, w.rates.dropped)));
  const x = (t: number): string => c(((t - start) / (end - start)) * SPARK_WIDTH);
  // 1 px inside the top and bottom edges, so that a line at 0 or at the top is not cut in half.
  const y = (r: number): string => c(SPARK_HEIGHT - 1 - (max > 0 ? (r / max) * (SPARK_HEIGHT - 2) : 0));
  const lines = LINES.filter((k) => k !== 'dropped' || windows.some((w) => w.rates.dropped > 0)).map((k) => {
    // One polyline per contiguous run: a window that starts after the previous one's end begins a new one.
    const runs: string[][] = [];
    let prevTo = -Infinity;
    for (const w of windows) {
      if (w.from > prevTo || runs.length === 0) runs.push([]);
      const v = y(w.rates[k]);
      runs[runs.length - 1]!.push(`${x(w.from)},${v}`, `${x(w.to)},${v}`);
      prevTo = w.to;
    }
    return runs.map((pts) => `<polyline class="s-${k}" points="${pts.join(' ')}"/>`).join('');
  });
  const peak = (k: (typeof LINES)[number]): string => formatRate(Math.max(...windows.map((w) => w.rates[k])));
  const label =
    `events per second over the last ${formatAge(end - start)}: in up to ${peak('in')}, ` +
    `out up to ${peak('out')}, dropped up to ${peak('dropped')}`;
  return (
    `<svg class="spark" role="img" aria-label="${label}" width="${SPARK_WIDTH}" height="${SPARK_HEIGHT}" ` +
    `viewBox="0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}"><title>${label}</title>${lines.join('')}</svg>`
  );
}

/** A destination or source that needs a look: blocked, or with a persistent queue that holds data. */
export interface FlowConcern<G> {
  /** The group it belongs to (whatever the caller uses to name it). */
  readonly group: G;
  readonly kind: 'destination' | 'source';
  readonly id: string;
  readonly type: string;
  readonly blocked: boolean;
  /** Its queue as of the last window, when it has one. */
  readonly queue?: QueueView;
}

/** 0 blocked, 1 a growing queue, 2 a queue that holds data. */
const rank = (f: FlowConcern<unknown>): number => (f.blocked ? 0 : f.queue?.growing ? 1 : 2);

/** Blocked first, then growing queues, then the other queues; within each, the fuller queue first, then by id. */
export function compareConcerns(a: FlowConcern<unknown>, b: FlowConcern<unknown>): number {
  return (
    rank(a) - rank(b) ||
    (b.queue?.bytes ?? 0) - (a.queue?.bytes ?? 0) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) ||
    (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0)
  );
}

/**
 * What needs a look in one group: its blocked destinations (with their queues, when they have one), its growing
 * queues, and its other queues that hold data; an empty queue that is not growing is left out. Unordered.
 */
export function concernsOf<G>(group: G, view: GroupThroughputView): FlowConcern<G>[] {
  const out = new Map<string, FlowConcern<G>>();
  for (const b of view.blocked) {
    out.set(`destination\u0000${b.destination}`, {
      group,
      kind: 'destination',
      id: b.destination,
      type: b.type,
      blocked: true,
    });
  }
  for (const q of view.queues) {
    const key = `${q.kind}\u0000${q.id}`;
    const blocked = out.get(key);
    if (blocked) out.set(key, { ...blocked, queue: q });
    else if (q.growing || q.bytes > 0)
      out.set(key, { group, kind: q.kind, id: q.id, type: q.type, blocked: false, queue: q });
  }
  return [...out.values()];
}

/** A group's place in the throughput table: 0 with a blocked destination, 1 with a growing queue, 2 otherwise. */
export const groupRank = (view: GroupThroughputView | undefined): number =>
  !view ? 2 : view.blocked.length > 0 ? 0 : view.queues.some((q) => q.growing) ? 1 : 2;
