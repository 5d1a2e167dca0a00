/**
 * The leader's metrics store, POST /system/metrics/query (global context, docs/ARCHITECTURE.md): the four queries of a
 * window (one per scope, every group split in `splitBys`, never one query per group) and the decoder of their answer.
 *
 * What a real leader sends that the spec does not promise is checked here: the envelope is `{results: Row[]}` (the
 * 4.15.1 definition's `{count, items}` is not what leaders answer: a decode failure, never a number); a row lacking
 * a split key is a roll-up of the others (dropped); an aggregation without data is omitted (absent, never 0); rows
 * come cumulative (`_time`) or bucketed (`starttime`/`endtime`), the buckets of one key then merged by the
 * aggregation's own rule. A connector's name is `type:id`, sometimes `type:id:transport`.
 */
import * as z from 'zod';
import { ENDPOINTS } from '@cribl-exporter/api/routes';
import type { LeaderRequest } from '../../leader/types.js';

/** The query scopes; each has its own window (a failed query of one leaves the others' counts exact). */
export const SCOPES = ['group', 'destination', 'source', 'node'] as const;
export type ScopeName = (typeof SCOPES)[number];

export type Aggregation = 'sum' | 'max' | 'avg';

/** One aggregation of a query: the store's metric, how a window folds it, and the alias its rows carry. */
export interface Measure {
  readonly alias: string;
  readonly metric: string;
  readonly agg: Aggregation;
}

/** A query of one scope. */
export interface QuerySpec {
  readonly scope: ScopeName;
  readonly where: string;
  /** The split keys; a row must carry every one as a string, or it is a roll-up. */
  readonly splitBys: readonly string[];
  readonly measures: readonly Measure[];
}

const m = (alias: string, metric: string, agg: Aggregation): Measure => ({ alias, metric, agg });

/** The totals of a group: the store's rows without input/output dimensions, split by group (Edge fleets too). */
export const GROUP_QUERY: QuerySpec = {
  scope: 'group',
  where: '__worker_group!=undefined && has_no_dimensions',
  splitBys: ['__worker_group'],
  measures: [
    m('in_events', 'total.in_events', 'sum'),
    m('in_bytes', 'total.in_bytes', 'sum'),
    m('out_events', 'total.out_events', 'sum'),
    m('out_bytes', 'total.out_bytes', 'sum'),
    m('dropped_events', 'total.dropped_events', 'sum'),
  ],
};

export const DESTINATION_QUERY: QuerySpec = {
  scope: 'destination',
  where: '__worker_group!=undefined && output!=undefined',
  splitBys: ['__worker_group', 'output'],
  measures: [
    m('out_events', 'total.out_events', 'sum'),
    m('out_bytes', 'total.out_bytes', 'sum'),
    m('dropped_events', 'total.dropped_events', 'sum'),
    m('blocked', 'blocked.outputs', 'max'),
    m('backpressure', 'backpressure.outputs', 'max'),
    m('pq_size', 'pq.queue_size', 'max'),
  ],
};

export const SOURCE_QUERY: QuerySpec = {
  scope: 'source',
  where: '__worker_group!=undefined && input!=undefined',
  splitBys: ['__worker_group', 'input'],
  measures: [
    m('in_events', 'total.in_events', 'sum'),
    m('in_bytes', 'total.in_bytes', 'sum'),
    m('pq_size', 'pq.queue_size', 'max'),
  ],
};

/** Node resources; the node's totals too with --throughput.per-node (in the same query, not a fifth). */
export function nodeQuery(perNode: boolean): QuerySpec {
  return {
    scope: 'node',
    where: '__worker_group!=undefined && __worker_node!=undefined && has_no_dimensions',
    splitBys: ['__worker_group', '__worker_node'],
    measures: [
      m('free_mem', 'system.free_mem', 'avg'),
      m('load_avg', 'system.load_avg', 'avg'),
      m('heartbeat_lag', 'system.max_worker_process_heartbeat_lag', 'max'),
      ...(perNode
        ? [
            m('in_events', 'total.in_events', 'sum'),
            m('in_bytes', 'total.in_bytes', 'sum'),
            m('out_events', 'total.out_events', 'sum'),
            m('out_bytes', 'total.out_bytes', 'sum'),
          ]
        : []),
    ],
  };
}

/** The four queries of a window. */
export const queries = (perNode: boolean): readonly QuerySpec[] => [
  GROUP_QUERY,
  DESTINATION_QUERY,
  SOURCE_QUERY,
  nodeQuery(perNode),
];

/** A window `[earliestMs, latestMs)`, whole seconds (sent as epoch seconds). */
export interface Window {
  readonly earliestMs: number;
  readonly latestMs: number;
}

/** The request body: absolute epoch seconds (relative strings get empty results from real leaders), cumulative. */
export function queryBody(spec: QuerySpec, w: Window): unknown {
  return {
    where: spec.where,
    earliest: Math.floor(w.earliestMs / 1000),
    latest: Math.floor(w.latestMs / 1000),
    aggs: {
      aggregations: spec.measures.map((x) => `${x.agg}(${JSON.stringify(x.metric)}).as(${JSON.stringify(x.alias)})`),
      splitBys: spec.splitBys,
      cumulative: true,
    },
  };
}

/** One decoded row: its split values (in `splitBys` order) and the aggregations it carried. */
export interface Row {
  readonly keys: readonly string[];
  readonly values: Readonly<Record<string, number>>;
}

const envelope = z.object({ results: z.array(z.unknown()) });

/** Why an answer is not the store's envelope, in a few words (a `{count, items}` answer is named as such). */
function envelopeProblem(json: unknown): string {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'expected an object {results: [...]}';
  const keys = Object.keys(json).slice(0, 5).join(', ');
  return `expected {results: [...]}, got {${keys}}`;
}

/** A split value: a non-empty string (a row without one is a roll-up of the others). */
const isKey = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * The rows of an answer, one per key, roll-ups dropped; the buckets of a key (bucketed answers) merged by each
 * aggregation's rule (sum, max; avg: the mean of the buckets). Throws on an envelope that is not `{results: [...]}`.
 *
 * Allocates per row only what it returns (a node answer is a row per Stream node each window): its keys, its values,
 * and an index entry under its first key; the bucket counts an average needs exist only for a key that repeats.
 */
export function decodeRows(json: unknown, spec: QuerySpec): Row[] {
  const parsed = envelope.safeParse(json);
  if (!parsed.success) throw new Error(envelopeProblem(json));
  const out: Row[] = [];
  // Rows by their first key, then the others joined (no string built for the one or two keys of every query).
  const index = new Map<string, Map<string, Row>>();
  let buckets: Map<Row, Record<string, number>> | undefined;
  for (const raw of parsed.data.results) {
    if (typeof raw !== 'object' || raw === null) continue;
    const r = raw as Record<string, unknown>;
    const keys = spec.splitBys.map((k) => r[k]);
    if (keys.length === 0 || !keys.every(isKey)) continue;
    const rest = keys.length === 2 ? (keys[1] as string) : keys.slice(1).join('\u0000');
    let byRest = index.get(keys[0] as string);
    if (!byRest) index.set(keys[0] as string, (byRest = new Map<string, Row>()));
    const row = byRest.get(rest);
    if (!row) {
      const values: Record<string, number> = {};
      for (const x of spec.measures) {
        const v = r[x.alias];
        if (typeof v === 'number' && Number.isFinite(v)) values[x.alias] = v;
      }
      const fresh: Row = { keys, values };
      byRest.set(rest, fresh);
      out.push(fresh);
      continue;
    }
    buckets ??= new Map<Row, Record<string, number>>();
    const values = row.values as Record<string, number>;
    let n = buckets.get(row);
    if (!n) {
      n = {};
      for (const a of Object.keys(values)) n[a] = 1;
      buckets.set(row, n);
    }
    for (const x of spec.measures) {
      const v = r[x.alias];
      if (typeof v !== 'number' || !Number.isFinite(v)) continue;
      const prev = values[x.alias];
      const count = n[x.alias] ?? 0;
      n[x.alias] = count + 1;
      if (prev === undefined) values[x.alias] = v;
      else if (x.agg === 'sum') values[x.alias] = prev + v;
      else if (x.agg === 'max') values[x.alias] = Math.max(prev, v);
      else values[x.alias] = prev + (v - prev) / (count + 1);
    }
  }
  return out;
}

/** A connector as the store names it: `type:id`, or `type:id:transport`. */
export interface ConnectorName {
  readonly type: string;
  readonly id: string;
}

/** `type:id[:transport]` → type and id (the transport is summed into its connector); a bare name is an id. */
export function parseConnector(name: string): ConnectorName {
  const parts = name.split(':');
  if (parts.length < 2 || parts[1] === '') return { type: '', id: name };
  return { type: parts[0] ?? '', id: parts[1] ?? '' };
}

/** Connectors that export nothing: the built-in devnull destination and Cribl's internal ones (`cribl:*`). */
export function internalConnector(name: string, c: ConnectorName): boolean {
  return name.startsWith('cribl:') || c.id === 'devnull' || c.type === 'devnull';
}

const jsonBody = (payload: unknown) => ({ contentType: 'application/json', payload: JSON.stringify(payload) });

/** One query of a window. */
export function metricsQuery(spec: QuerySpec, w: Window, deadline: number, signal?: AbortSignal): LeaderRequest<Row[]> {
  return {
    endpoint: ENDPOINTS.metricsQuery,
    path: '/system/metrics/query',
    method: 'POST',
    body: jsonBody(queryBody(spec, w)),
    decode: (json) => decodeRows(json, spec),
    deadline,
    ...(signal ? { signal } : {}),
  };
}
