/**
 * The health of each group's destinations and sources: GET /m/{group}/system/status/outputs and …/status/inputs
 * (4.17+; paged with limit/offset from 4.18), every --dataflow.interval (`--[no-]collector.dataflow`, on by default).
 * Each item's health is the leader's roll-up over the group's worker processes (Green, Yellow, Red, Unknown), with
 * the processes per state (`healthCounts`: one red process shows even when the roll-up is yellow) and, where a
 * persistent queue is on, its health. The built-in devnull destination exports nothing. --dataflow.max-series caps
 * the series of a leader: the worst items are kept.
 */
import * as z from 'zod';
import { ENDPOINTS, segment } from '@cribl-exporter/api/routes';
import { healthColorSchema, healthCountsSchema, type HealthColor, type HealthCounts } from '@cribl-exporter/api/shapes';
import { withLabels } from '../../format/family.js';
import type { LeaderRequest, LeaderResult } from '../../leader/types.js';
import { boolRow, intervalRow, row } from '../../settings/table.js';
import { asInt } from '../../settings/values.js';
import { formatDuration } from '@cribl-exporter/api/duration';
import { collector, factsKey, groupKey, type GroupFamily, type GroupItem, type RunContext } from '../collector.js';
import { get, keptPage, nextRead, type Page, type Read } from '../read.js';
import { each, line, q, stateSet } from '../sample.js';

export const NAME = 'dataflow';

/** The states of a health state set, as label values (the API's health colors in lower case), in family order. */
export const STATES = ['green', 'yellow', 'red', 'unknown'] as const;
export type State = (typeof STATES)[number];

const stateOf = (c: HealthColor): State => c.toLowerCase() as State;

/** A destination's or source's status as kept. */
export interface IoHealth {
  readonly id: string;
  /** The integration type (`splunk_lb`, `s3`, …); '' where the leader omits it. */
  readonly type: string;
  readonly health: State;
  /** Worker processes per state, in STATES order (a state the leader leaves out is 0). */
  readonly processes: readonly number[];
  /** The persistent queue's health, where one is on. */
  readonly pq?: State;
}

/** What the exporter knows of a group's data flow: the last lists read (each kept through a failed read). */
export interface DataflowFacts {
  readonly destinations?: Read<readonly IoHealth[]>;
  readonly sources?: Read<readonly IoHealth[]>;
}

export const dataflowFacts = factsKey<DataflowFacts>(NAME);

const counts = (c: HealthCounts): number[] => [c.Green ?? 0, c.Yellow ?? 0, c.Red ?? 0, c.Unknown ?? 0];

/**
 * What is read of an item (OutputStatus / InputStatus): only what is exported, each part as lenient as it can be (a
 * health outside the four is Unknown, a count that is not a number is 0, a missing timestamp does not matter).
 */
const itemSchema = z.object({
  id: z.string().min(1),
  type: z.string().optional().catch(undefined),
  status: z.object({
    health: healthColorSchema,
    healthCounts: healthCountsSchema.catch({}),
    pq: z.object({ health: healthColorSchema }).optional().catch(undefined),
  }),
});

/** An item as kept; undefined for the built-in devnull destination. */
function kept(item: z.infer<typeof itemSchema>): IoHealth | undefined {
  if (item.id === 'devnull' || item.type === 'devnull') return undefined;
  const { status } = item;
  return {
    id: item.id,
    type: (item.type ?? '').slice(0, 64),
    health: stateOf(status.health),
    processes: counts(status.healthCounts),
    ...(status.pq ? { pq: stateOf(status.pq.health) } : {}),
  };
}

const ioPage = z.object({ items: z.array(z.unknown()), totalCount: z.number().optional() });

/** Decodes a status page; an item that is not a status is left out. */
export function decodeIoPage(json: unknown): Page<IoHealth> {
  return keptPage(ioPage.parse(json), (raw) => {
    const r = itemSchema.safeParse(raw);
    return r.success ? kept(r.data) : undefined;
  });
}

/** Items per page asked for. */
const PAGE = 500;
/** A leader that pages forever is cut off here. */
const MAX_PAGES = 100;

type Kind = 'outputs' | 'inputs';

/** One page of a group's destination (outputs) or source (inputs) status. */
export function statusRequest(
  group: string,
  kind: Kind,
  offset: number,
  deadline: number,
  signal?: AbortSignal,
): LeaderRequest<Page<IoHealth>> {
  const endpoint = kind === 'outputs' ? ENDPOINTS.outputStatus : ENDPOINTS.inputStatus;
  const path = `/m/${segment(group)}/system/status/${kind}`;
  return get(endpoint, path, decodeIoPage, deadline, signal, { limit: PAGE, offset });
}

/**
 * Every item of a group's list: pages until the leader's total is reached, or (without one) a short page; a leader
 * before 4.18 ignores limit and offset and answers everything at once, which a page bringing no new id ends.
 */
async function list(ctx: RunContext<unknown>, group: string, kind: Kind): Promise<LeaderResult<IoHealth[]>> {
  const byId = new Map<string, IoHealth>();
  let offset = 0;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const res = await ctx.client.request(statusRequest(group, kind, offset, ctx.deadline, ctx.signal));
    if (!res.ok) return res;
    const before = byId.size;
    for (const item of res.body.items) byId.set(item.id, item);
    offset += res.body.received;
    const { totalCount, received } = res.body;
    const done =
      received === 0 || byId.size === before || (totalCount === undefined ? received < PAGE : offset >= totalCount);
    if (done) break;
  }
  return { ok: true, status: 200, body: [...byId.values()] };
}

/** Series an item brings: its health and processes state sets, and its queue's. */
const seriesOf = (i: IoHealth): number => STATES.length * (i.pq ? 3 : 2);

const RANK: Readonly<Record<State, number>> = { red: 0, yellow: 1, unknown: 2, green: 3 };
const worst = (i: IoHealth): number => Math.min(RANK[i.health], i.pq ? RANK[i.pq] : 3);

/**
 * The facts of every group within `maxSeries` series: the worst items first (red, then yellow, unknown, green, by
 * their own or their queue's health), so that what is cut is healthy. Returns the facts and whether the cap bit.
 */
export function capped(
  facts: ReadonlyMap<string, DataflowFacts>,
  maxSeries: number,
): { facts: Map<string, DataflowFacts>; over: boolean } {
  const all: IoHealth[] = [];
  for (const f of facts.values()) all.push(...(f.destinations?.value ?? []), ...(f.sources?.value ?? []));
  const total = all.reduce((n, i) => n + seriesOf(i), 0);
  if (maxSeries <= 0 || total <= maxSeries) return { facts: new Map(facts), over: false };
  all.sort((a, b) => worst(a) - worst(b));
  const keep = new Set<IoHealth>();
  let used = 0;
  for (const i of all) {
    if (used + seriesOf(i) > maxSeries) break;
    used += seriesOf(i);
    keep.add(i);
  }
  const cut = (r: Read<readonly IoHealth[]> | undefined) => r && { ...r, value: r.value?.filter((i) => keep.has(i)) };
  const out = new Map<string, DataflowFacts>();
  for (const [key, f] of facts) out.set(key, { destinations: cut(f.destinations), sources: cut(f.sources) });
  return { facts: out, over: true };
}

interface Settings {
  readonly intervalMs: number;
  readonly maxSeries: number;
}

/** The gauge that says a cap bites (set by this collector and the throughput collector: the larger wins). */
export const OVER_LIMIT = 'cribl_exporter_dataflow_over_limit';

/** --dataflow.max-series: a row of this collector's settings, and of the throughput collector's (one row). */
export const MAX_SERIES = row({
  name: 'dataflow.max-series',
  parse: (r) => asInt(r, 0),
  group: 'Collectors',
  kind: 'int',
  default: '5000',
  help:
    'Most data-flow series per leader, counted apart for the health families and for the throughput families; ' +
    'beyond it the healthiest destinations and sources (throughput: the last seen) are left out and ' +
    'cribl_exporter_dataflow_over_limit is 1. 0 means no limit.',
});

/** Sets the over-limit gauge after a capped run, with one warning while the collector lives. */
export function reportOverLimit(ctx: RunContext<unknown>, maxSeries: number, over: boolean, what: string): void {
  ctx.setGauge(OVER_LIMIT, over ? 1 : 0);
  if (over) {
    ctx.warnOnce(
      'max-series',
      { maxSeries },
      `more data-flow series than --dataflow.max-series (${maxSeries}): ${what} are left out`,
    );
  }
}

/** Reads every group's destinations and sources, one request at a time. */
async function run(ctx: RunContext<Settings>): Promise<void> {
  const read = new Map<string, DataflowFacts>();
  for (const g of ctx.groups()) {
    if (ctx.signal.aborted) return;
    read.set(groupKey(g.product, g.id), await groupFlow(ctx, g));
  }
  if (ctx.signal.aborted) return;
  const { facts, over } = capped(read, ctx.settings.maxSeries);
  reportOverLimit(ctx, ctx.settings.maxSeries, over, 'the healthiest destinations and sources');
  ctx.setGroupFacts(facts);
}

/** One group's lists; a list that cannot be read keeps the last one read. */
async function groupFlow(ctx: RunContext<unknown>, g: GroupItem): Promise<DataflowFacts> {
  const prev = dataflowFacts.of(g);
  const outputs = await list(ctx, g.id, 'outputs');
  const inputs = await list(ctx, g.id, 'inputs');
  const now = ctx.clock.now();
  return { destinations: nextRead(prev?.destinations, outputs, now), sources: nextRead(prev?.sources, inputs, now) };
}

/** A state set of an item: its labels, then `state`. */
const stateLines = (name: string, base: string, extra: string, current: State): string =>
  stateSet(name, withLabels(base, extra), 'state', STATES, current);

/** The families of one kind: `cribl_destination_*` (label `destination`) or `cribl_source_*` (label `source`). */
function families(noun: 'destination' | 'source', read: (f: DataflowFacts) => readonly IoHealth[] | undefined) {
  const items = (g: GroupItem): readonly IoHealth[] => {
    const f = dataflowFacts.of(g);
    return (f && read(f)) ?? [];
  };
  const name = `cribl_${noun}`;
  const what = noun === 'destination' ? 'A destination' : 'A source';
  return [
    {
      name: `${name}_health`,
      what:
        `${what}'s health as the leader rolls it up over the group's worker processes: state is green, yellow, ` +
        'red or unknown (the API’s Green/Yellow/Red/Unknown), the reported one 1 and the others 0.',
      labels: [noun, 'type', 'state'],
      sample: (g, base) =>
        each(items(g), (i) => stateLines(`${name}_health`, base, `${noun}=${q(i.id)},type=${q(i.type)}`, i.health)),
    },
    {
      name: `${name}_worker_processes`,
      what: `Worker processes of the group per state of ${what.toLowerCase()} (the API's healthCounts; 0 where none).`,
      labels: [noun, 'state'],
      sample: (g, base) =>
        each(items(g), (i) =>
          each(STATES, (s, k) =>
            line(`${name}_worker_processes`, base, `${noun}=${q(i.id)},state="${s}"`, i.processes[k] ?? 0),
          ),
        ),
    },
    {
      name: `${name}_pq_health`,
      what: `The health of ${what.toLowerCase()}'s persistent queue, as a state set; only where one is on.`,
      labels: [noun, 'state'],
      sample: (g, base) =>
        each(items(g), (i) => (i.pq ? stateLines(`${name}_pq_health`, base, `${noun}=${q(i.id)}`, i.pq) : '')),
    },
  ] satisfies GroupFamily[];
}

export const dataflow = collector({
  name: NAME,
  settings: {
    enabled: boolRow(
      'collector.dataflow',
      true,
      'Read the health of every group’s destinations and sources every --dataflow.interval ' +
        '(cribl_destination_health, cribl_source_health): two requests per group.',
    ),
    intervalMs: intervalRow('dataflow.interval', '60s', 'Collectors', 'How often the data-flow health is read.'),
    maxSeries: MAX_SERIES,
  },
  enabled: (s) => s.enabled,
  optional: true,
  permission: 'read access to the group (a Read Only role on it)',
  gauges: [
    {
      name: OVER_LIMIT,
      help: '1 while --dataflow.max-series leaves destinations or sources out; set at each data-flow read.',
    },
  ],
  freshness: (s) =>
    `Read every ${formatDuration(s.intervalMs)} through the leader (--collector.dataflow); cached in between.`,
  families: {
    group: [...families('destination', (f) => f.destinations?.value), ...families('source', (f) => f.sources?.value)],
  },
  schedule: { kind: 'interval', perGroup: true, cost: { perGroup: 2 }, intervalMs: (s) => s.intervalMs, run },
  probe: (_s, group, deadline) => statusRequest(group ?? 'default', 'outputs', 0, deadline),
});
