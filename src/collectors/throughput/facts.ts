/**
 * What the throughput collector keeps of each group (its group facts), of each Stream node (its node facts: what the
 * node families read, compared node by node when a body is built) and of the leader (its windows), and how one
 * answered window changes them: counters add the window's sums, gauges are the window's, the status page's view is
 * recomputed. Items are immutable: a window makes new ones.
 */
import { dataflowFacts, type IoHealth } from '../dataflow/index.js';
import { factsKey, type GroupItem } from '../collector.js';
import { internalConnector, parseConnector, type QuerySpec, type Row, type ScopeName } from './query.js';
import type { GroupThroughputView, QueueView, ThroughputPoint } from './view.js';
import { NAME } from './view.js';
import { addWindow, gaugesOf, type Counters, type Planned } from './windows.js';

/** The counter and gauge aliases of each scope's query (query.ts). */
export const COUNTERS = {
  group: ['in_events', 'in_bytes', 'out_events', 'out_bytes', 'dropped_events'],
  destination: ['out_events', 'out_bytes', 'dropped_events'],
  source: ['in_events', 'in_bytes'],
  node: ['in_events', 'in_bytes', 'out_events', 'out_bytes'],
} as const satisfies Record<ScopeName, readonly string[]>;

export const GAUGES = {
  destination: ['blocked', 'backpressure', 'pq_size'],
  source: ['pq_size'],
  node: ['free_mem', 'load_avg', 'heartbeat_lag'],
} as const;

/** A destination or source of a group. */
export interface ConnectorFacts {
  /** The id the status list (cribl_destination_health, cribl_source_health) carries. */
  readonly id: string;
  /** The status list's type, or where it has none the type part of the store's name. */
  readonly type: string;
  readonly counters: Counters;
  /** What the last answered window reported (blocked, backpressure, pq_size); absent what it did not. */
  readonly gauges: Counters;
  /** The queue sizes of the last windows that reported one, oldest first. */
  readonly queue: readonly number[];
  /** Left out of /metrics by --dataflow.max-series (its counts go on). */
  readonly cut?: true;
}

/** A Stream node's figures (per-node splits; Edge nodes are not in them). */
export interface NodeFigures {
  readonly counters: Counters;
  readonly gauges: Counters;
  /** When a window last reported the node (epoch ms): one silent for an hour is forgotten. */
  readonly seenMs: number;
}

/** The collector's facts of a group. */
export interface ThroughputFacts {
  readonly totals?: Counters;
  readonly destinations: readonly ConnectorFacts[];
  readonly sources: readonly ConnectorFacts[];
  /** Group windows answered, oldest first (the sparkline's points). */
  readonly history: readonly ThroughputPoint[];
  /** What the status page reads (view.ts). */
  readonly view?: GroupThroughputView;
}

/** The collector's facts of the leader: where each scope's windows stand, and the decode failure last logged. */
export interface ThroughputLeaderFacts {
  readonly cursors: Readonly<Partial<Record<ScopeName, number>>>;
  readonly decodeError?: string;
}

export const throughputFacts = factsKey<ThroughputFacts>(NAME);

/** The collector's facts of a Stream node. */
export const throughputNodeFacts = factsKey<NodeFigures>(NAME);

export const EMPTY_FACTS: ThroughputFacts = { destinations: [], sources: [], history: [] };

/** Points of history kept (the last hour at the default interval). */
export const HISTORY = 60;
/** Queue sizes kept per connector to tell a growing queue. */
const QUEUE_WINDOWS = 5;
/** A node not reported for this long is forgotten. */
const NODE_FORGET_MS = 3_600_000;

/** A group's rows of a connector scope, by id: the transports of one connector merged (summed, max of max). */
export function connectorRows(
  rows: readonly Row[],
  spec: QuerySpec,
): Map<string, Map<string, { type: string; values: Record<string, number> }>> {
  const byGroup = new Map<string, Map<string, { type: string; values: Record<string, number> }>>();
  for (const r of rows) {
    const [group = '', name = ''] = r.keys;
    const c = parseConnector(name);
    if (internalConnector(name, c)) continue;
    const ids = byGroup.get(group) ?? new Map<string, { type: string; values: Record<string, number> }>();
    byGroup.set(group, ids);
    const acc = ids.get(c.id);
    if (!acc) {
      ids.set(c.id, { type: c.type, values: { ...r.values } });
      continue;
    }
    for (const x of spec.measures) {
      const v = r.values[x.alias];
      if (v === undefined) continue;
      const p = acc.values[x.alias];
      acc.values[x.alias] = p === undefined ? v : x.agg === 'max' ? Math.max(p, v) : x.agg === 'sum' ? p + v : p;
    }
  }
  return byGroup;
}

/** The type of a connector: the status list's (the join with cribl_*_health), else the store's. */
function typeOf(list: readonly IoHealth[] | undefined, id: string, storeType: string): string {
  const t = list?.find((i) => i.id === id)?.type;
  return t || storeType;
}

/** A group's connectors after a window of their scope. */
export function foldConnectors(
  g: GroupItem,
  prev: readonly ConnectorFacts[],
  rows: ReadonlyMap<string, { type: string; values: Record<string, number> }> | undefined,
  kind: 'destination' | 'source',
  w: Planned,
): ConnectorFacts[] {
  const counters = COUNTERS[kind];
  const gauges = GAUGES[kind];
  const flow = dataflowFacts.of(g);
  const list = kind === 'destination' ? flow?.destinations?.value : flow?.sources?.value;
  const out: ConnectorFacts[] = [];
  const seen = new Set<string>();
  const next = (id: string, before: ConnectorFacts | undefined, storeType: string): ConnectorFacts => {
    const row = rows?.get(id);
    const size = row?.values.pq_size;
    return {
      id,
      type: typeOf(list, id, before?.type || storeType),
      counters: addWindow(before?.counters, row?.values, counters, w.priming),
      gauges: gaugesOf(row?.values, gauges),
      queue: size === undefined ? [] : [...(before?.queue ?? []), size].slice(-QUEUE_WINDOWS),
    };
  };
  for (const c of prev) {
    seen.add(c.id);
    out.push(next(c.id, c, c.type));
  }
  for (const [id, r] of rows ?? []) if (!seen.has(id)) out.push(next(id, undefined, r.type));
  return out;
}

/**
 * A node's figures after a window of the node scope (`values`: its row, if the window had one): the same object when
 * nothing changed, undefined once it has been silent for an hour.
 */
export function foldNode(
  prev: NodeFigures | undefined,
  values: Readonly<Record<string, number>> | undefined,
  w: Planned,
  nowMs: number,
): NodeFigures | undefined {
  if (values) {
    const counters = addWindow(prev?.counters, values, COUNTERS.node, w.priming);
    // Counters a window left as they were stay the same object: their families are not rendered again.
    return {
      counters: prev && sameCounters(prev.counters, counters) ? prev.counters : counters,
      gauges: gaugesOf(values, GAUGES.node),
      seenMs: nowMs,
    };
  }
  if (!prev || nowMs - prev.seenMs > NODE_FORGET_MS) return undefined;
  return Object.keys(prev.gauges).length === 0 ? prev : { ...prev, gauges: {} };
}

function sameCounters(a: Counters, b: Counters): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/** A group's totals after a window of the group scope, and the window's point of history. */
export function foldTotals(
  prev: ThroughputFacts,
  values: Readonly<Record<string, number>> | undefined,
  w: Planned,
): Pick<ThroughputFacts, 'totals' | 'history'> {
  const totals = addWindow(prev.totals, values, COUNTERS.group, w.priming);
  const point: ThroughputPoint = {
    endMs: w.latestMs,
    spanMs: w.latestMs - w.earliestMs,
    inEvents: values?.in_events ?? 0,
    outEvents: values?.out_events ?? 0,
    droppedEvents: values?.dropped_events ?? 0,
  };
  return { totals, history: [...prev.history, point].slice(-HISTORY) };
}

/** A queue grew over the windows kept: the newest larger than the oldest, and never smaller than the one before. */
export function growing(queue: readonly number[]): boolean {
  if (queue.length < 2) return false;
  for (let i = 1; i < queue.length; i++) if ((queue[i] as number) < (queue[i - 1] as number)) return false;
  return (queue[queue.length - 1] as number) > (queue[0] as number);
}

/** The status page's view of a group's facts. */
export function viewOf(f: ThroughputFacts): GroupThroughputView {
  const queues: QueueView[] = [];
  const add = (kind: QueueView['kind'], list: readonly ConnectorFacts[]) => {
    for (const c of list) {
      const bytes = c.gauges.pq_size;
      if (bytes !== undefined) queues.push({ kind, id: c.id, type: c.type, bytes, growing: growing(c.queue) });
    }
  };
  add('destination', f.destinations);
  add('source', f.sources);
  return {
    history: f.history,
    blocked: f.destinations
      .filter((c) => (c.gauges.blocked ?? 0) > 0)
      .map((c) => ({ destination: c.id, type: c.type })),
    queues,
  };
}

/** Series a connector brings to /metrics: its counters and gauges. */
const seriesOf = (c: ConnectorFacts): number => Object.keys(c.counters).length + Object.keys(c.gauges).length;

/**
 * The facts of every group with the connectors beyond `maxSeries` series (over all groups, in the order they were
 * first seen) marked `cut`: a connector kept stays kept. Returns whether the cap bit.
 */
export function capConnectors(
  facts: ReadonlyMap<string, ThroughputFacts>,
  maxSeries: number,
): { facts: Map<string, ThroughputFacts>; over: boolean } {
  let used = 0;
  let over = false;
  const out = new Map<string, ThroughputFacts>();
  const cap = (list: readonly ConnectorFacts[]): ConnectorFacts[] =>
    list.map((c) => {
      const n = seriesOf(c);
      const fits = maxSeries <= 0 || used + n <= maxSeries;
      if (fits) used += n;
      else over = true;
      const { cut: _cut, ...rest } = c;
      return fits ? rest : { ...rest, cut: true };
    });
  for (const [key, f] of facts) out.set(key, { ...f, destinations: cap(f.destinations), sources: cap(f.sources) });
  return { facts: out, over };
}
