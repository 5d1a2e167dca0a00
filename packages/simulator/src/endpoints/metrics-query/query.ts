import { BUCKET_MS, bucketsIn, type Bucket, type FlowGroup } from './throughput.js';

/**
 * The metrics store's query language as the exporter (collectors/throughput/query.ts) and the public apps use it: a
 * `where` of `&&`-joined atoms (`has_no_dimensions`, `key!=undefined`, `key==undefined`, `key=='v'`, `key!='v'`),
 * `sum|max|min|avg|count("metric").as("alias")` aggregations, `splitBys`, and `cumulative: true` (one row per split,
 * with `_time`) or `timeWindowSeconds` (rows per window with `starttime`/`endtime`). Answers carry roll-up rows
 * (a row per prefix of the split keys, summing the fully split ones) and omit an aggregation without data, as real
 * leaders do; relative time strings get empty results.
 */

/** One series of one bucket: its dimensions and metric values. */
export interface Series {
  readonly dims: Readonly<Record<string, string>>;
  readonly values: Readonly<Record<string, number>>;
}

type Values = Record<string, number>;

/** The series a group's bucket puts in the store. */
export function seriesOf(g: FlowGroup, b: Bucket): Series[] {
  const out: Series[] = [];
  const group = { __worker_group: g.id };
  for (const [id, s] of b.sources) {
    // A transport's share, the last one taking what rounding left: the parts add up to the source.
    let events = 0;
    let bytes = 0;
    const names = sourceNames(s.type, id);
    names.forEach(([name, share], i) => {
      const last = i === names.length - 1;
      const e = last ? s.events - events : Math.round(s.events * share);
      const by = last ? s.bytes - bytes : Math.round(s.bytes * share);
      events += e;
      bytes += by;
      out.push({
        dims: { ...group, input: name },
        values: {
          'total.in_events': e,
          'total.in_bytes': by,
          ...(s.pqBytes === undefined ? {} : { 'pq.queue_size': s.pqBytes }),
        },
      });
    });
  }
  out.push({
    dims: { ...group, input: `${b.internal.type}:CriblMetrics` },
    values: { 'total.in_events': b.internal.events, 'total.in_bytes': b.internal.bytes },
  });
  for (const [id, d] of b.destinations) {
    out.push({
      dims: { ...group, output: `${d.type}:${id}` },
      values: {
        'total.out_events': d.events,
        'total.out_bytes': d.bytes,
        'total.dropped_events': d.dropped,
        ...(d.blocked === undefined ? {} : { 'blocked.outputs': d.blocked }),
        'backpressure.outputs': d.backpressure,
        ...(d.pqBytes === undefined ? {} : { 'pq.queue_size': d.pqBytes }),
      },
    });
  }
  const totals = (x: { inEvents: number; inBytes: number; outEvents: number; outBytes: number }): Values => ({
    'total.in_events': x.inEvents,
    'total.in_bytes': x.inBytes,
    'total.out_events': x.outEvents,
    'total.out_bytes': x.outBytes,
  });
  if (g.product === 'edge') {
    out.push({ dims: group, values: { ...totals(b), 'total.dropped_events': b.dropped } });
  } else {
    // Stream: each worker node reports its share of the totals and its resources; drops are the group's.
    // No spreads here: a fleet has one of these per Stream node and bucket, every query of the store builds them all,
    // and with spreads one query of a 20,000-node fleet held the simulator's single thread for 260–450 ms.
    for (const [node, n] of b.nodes) {
      const values = totals(n);
      values['system.free_mem'] = n.freeMem;
      values['system.load_avg'] = n.load;
      values['system.max_worker_process_heartbeat_lag'] = n.heartbeatLag;
      out.push({ dims: { __worker_group: g.id, __worker_node: node }, values });
    }
    out.push({ dims: group, values: { 'total.dropped_events': b.dropped } });
  }
  return out;
}

/** The store's names of a source: syslog reports per transport. */
function sourceNames(type: string, id: string): (readonly [string, number])[] {
  const base = `${type}:${id}`;
  return type === 'syslog'
    ? [
        [`${base}:udp`, 0.6],
        [`${base}:tcp`, 0.4],
      ]
    : [[base, 1]];
}

type Fn = 'sum' | 'max' | 'min' | 'avg' | 'count';
interface Aggregation {
  readonly fn: Fn;
  readonly metric: string;
  readonly alias: string;
}

const word = String.raw`(?:"([^"]+)"|'([^']+)'|([\w.]+))`;
const AGG = new RegExp(String.raw`^(sum|max|min|avg|count)\(${word}\)(?:\.as\(${word}\))?$`);

function parseAggregation(text: string): Aggregation | undefined {
  const m = AGG.exec(text.trim());
  if (!m) return undefined;
  const metric = m[2] ?? m[3] ?? m[4] ?? '';
  const fn = m[1] as Fn;
  return { fn, metric, alias: m[5] ?? m[6] ?? m[7] ?? `${fn}(${metric})` };
}

type Atom = (s: Series) => boolean;

const hasDimensions = (s: Series): boolean => Object.keys(s.dims).some((k) => !k.startsWith('__'));

function parseAtom(text: string): Atom | undefined {
  const t = text
    .trim()
    .replace(/^\((.*)\)$/, '$1')
    .trim();
  if (t === 'has_no_dimensions') return (s) => !hasDimensions(s);
  const m = /^([\w.]+)\s*(==|!=)\s*(?:undefined|'([^']*)'|"([^"]*)")$/.exec(t);
  if (!m) return undefined;
  const [, key = '', op, a, b] = m;
  const value = a ?? b;
  const eq = (s: Series): boolean => (value === undefined ? s.dims[key] === undefined : s.dims[key] === value);
  return op === '==' ? eq : (s) => !eq(s);
}

/** A parsed query body, or why it is not one (400). */
export interface Query {
  /** Epoch ms; undefined: a relative time (empty results). */
  readonly earliestMs: number | undefined;
  readonly latestMs: number | undefined;
  readonly where: readonly Atom[];
  readonly aggregations: readonly Aggregation[];
  readonly splitBys: readonly string[];
  /** Bucketed rows of this many seconds; undefined: cumulative. */
  readonly windowSeconds: number | undefined;
}

/** Epoch ms of an absolute time (seconds or ms, as numbers or digit strings); undefined for relative ones. */
function absolute(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) return undefined;
  return n < 1e11 ? n * 1000 : n;
}

export function parseQuery(body: unknown): Query | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'Request body must be a JSON object';
  const b = body as Record<string, unknown>;
  const aggs = b.aggs as Record<string, unknown> | undefined;
  if (typeof aggs !== 'object' || aggs === null) return 'aggs is required';
  if (!Array.isArray(aggs.aggregations) || aggs.aggregations.length === 0) return 'aggs.aggregations is required';
  const aggregations: Aggregation[] = [];
  for (const a of aggs.aggregations) {
    const parsed = typeof a === 'string' ? parseAggregation(a) : undefined;
    if (!parsed) return `unsupported aggregation ${JSON.stringify(a)}`;
    aggregations.push(parsed);
  }
  const splitBys = aggs.splitBys ?? [];
  if (!Array.isArray(splitBys) || !splitBys.every((k) => typeof k === 'string')) return 'aggs.splitBys: strings';
  const where: Atom[] = [];
  if (b.where !== undefined) {
    if (typeof b.where !== 'string') return 'where must be a string';
    for (const part of b.where.split('&&')) {
      const atom = parseAtom(part);
      if (!atom) return `unsupported where expression ${JSON.stringify(part.trim())}`;
      where.push(atom);
    }
  }
  const tw = aggs.timeWindowSeconds;
  const windowSeconds = aggs.cumulative === true || tw === undefined || tw === -1 ? undefined : Number(tw);
  if (windowSeconds !== undefined && !(windowSeconds > 0)) return 'aggs.timeWindowSeconds must be positive';
  return {
    earliestMs: absolute(b.earliest),
    latestMs: absolute(b.latest),
    where,
    aggregations,
    splitBys,
    windowSeconds,
  };
}

interface Acc {
  sum: number;
  max: number;
  min: number;
  n: number;
}

interface Level {
  readonly keys: readonly string[];
  readonly acc: Map<string, Acc>;
}

/** A span's time fields: cumulative rows carry `_time`, bucketed ones `starttime`/`endtime` (epoch seconds). */
interface Stamp {
  readonly start: number;
  readonly end: number;
  readonly row: Readonly<Record<string, number>>;
}

function value(a: Aggregation, acc: Acc): number {
  if (a.fn === 'sum') return acc.sum;
  if (a.fn === 'max') return acc.max;
  if (a.fn === 'min') return acc.min;
  if (a.fn === 'count') return acc.n;
  return acc.sum / acc.n;
}

/** Rows of one span of buckets: fully split rows, then the roll-ups of each shorter prefix of the split keys. */
function rowsOf(q: Query, series: readonly Series[], stamp: Stamp): Record<string, unknown>[] {
  const k = q.splitBys.length;
  const levels: Map<string, Level>[] = Array.from({ length: k + 1 }, () => new Map<string, Level>());
  for (const s of series) {
    if (!q.where.every((a) => a(s))) continue;
    const keys: string[] = [];
    for (const key of q.splitBys) {
      const v = s.dims[key];
      if (v !== undefined) keys.push(v);
    }
    if (keys.length !== k) continue;
    levels.forEach((m, level) => {
      const prefix = keys.slice(0, level);
      const id = prefix.join('\u0000');
      let row = m.get(id);
      if (!row) m.set(id, (row = { keys: prefix, acc: new Map() }));
      for (const a of q.aggregations) {
        const v = s.values[a.metric];
        if (v === undefined) continue;
        let acc = row.acc.get(a.alias);
        if (!acc) row.acc.set(a.alias, (acc = { sum: 0, max: -Infinity, min: Infinity, n: 0 }));
        acc.sum += v;
        acc.max = Math.max(acc.max, v);
        acc.min = Math.min(acc.min, v);
        acc.n++;
      }
    });
  }
  const out: Record<string, unknown>[] = [];
  for (let level = k; level >= 0; level--) {
    for (const row of (levels[level] as Map<string, Level>).values()) {
      const r: Record<string, unknown> = {};
      row.keys.forEach((v, i) => (r[q.splitBys[i] as string] = v));
      for (const a of q.aggregations) {
        if (a.metric === '_time') r[a.alias] = a.fn === 'max' ? stamp.end : stamp.start;
        else {
          const acc = row.acc.get(a.alias);
          if (acc) r[a.alias] = value(a, acc);
        }
      }
      out.push({ ...r, ...stamp.row, _raw: '' });
    }
  }
  return out;
}

/** The answer to a query, given the buckets of every group in a window. */
export function answer(
  q: Query,
  groups: readonly FlowGroup[],
  bucket: (g: FlowGroup, b: number) => Bucket,
): { results: Record<string, unknown>[] } {
  if (q.earliestMs === undefined || q.latestMs === undefined || q.latestMs <= q.earliestMs) return { results: [] };
  const spans: [number, number][] = [];
  if (q.windowSeconds === undefined) spans.push([q.earliestMs, q.latestMs]);
  else {
    const step = Math.max(BUCKET_MS, q.windowSeconds * 1000);
    for (let s = q.earliestMs; s < q.latestMs; s += step) spans.push([s, Math.min(q.latestMs, s + step)]);
  }
  const results: Record<string, unknown>[] = [];
  for (const [from, to] of spans) {
    const series: Series[] = [];
    for (const b of bucketsIn(from, to)) for (const g of groups) series.push(...seriesOf(g, bucket(g, b)));
    if (series.length === 0) continue;
    const start = Math.floor(from / 1000);
    const end = Math.floor(to / 1000);
    const row: Record<string, number> =
      q.windowSeconds === undefined ? { _time: start } : { starttime: start, endtime: end };
    results.push(...rowsOf(q, series, { start, end, row }));
  }
  return { results };
}
