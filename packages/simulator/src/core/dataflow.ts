import type { Product } from '@cribl-exporter/api/products';
import type { HealthColor, HealthCounts } from '@cribl-exporter/api/shapes';
import type { InputOutputStatus, StatusError } from '../endpoints/status/shapes.js';
import { activeAt } from './schedule.js';
import type { DataflowBehaviour, DataflowWindow, ProcessCount, StateCounts } from '../endpoints/status/faults.js';
import { HEARTBEAT_PERIOD_MS } from './fleet-types.js';
import { pick, randomInt, seededRandom } from './random.js';

/**
 * The data flow of each group: its destinations and sources (seeded per group, generated on first use), and their
 * status as GET /m/{group}/system/status/{outputs,inputs} shows it. Statuses are aggregated over the
 * group's worker processes: every process is Green unless a dataflow window says otherwise.
 */

/** Destinations (`output`) or sources (`input`). */
export type FlowKind = 'output' | 'input';

/** One destination or source of a group. */
export interface FlowItem {
  id: string;
  type: string;
  /** Has a persistent queue (its status then carries `pq`). */
  pq: boolean;
  /** Disabled: left out of the status list, or listed as Unknown (dataflow.disabled). */
  disabled: boolean;
}

/** The destinations and sources of one group. */
export interface GroupFlow {
  outputs: FlowItem[];
  inputs: FlowItem[];
}

/** How many destinations (devnull included) and sources a group gets; absent: 3–5 and 2–4 by seed. */
export interface FlowCounts {
  outputs?: number;
  inputs?: number;
}

type Entry = readonly [id: string, type: string, pq: boolean];

/** Destinations after `devnull`: the first two in every group, then drawn by seed from the rest. */
const OUTPUTS: readonly Entry[] = [
  ['splunk_lb', 'splunk_lb', true],
  ['s3_archive', 's3', false],
  ['splunk_hec', 'splunk_hec', true],
  ['syslog_siem', 'syslog', false],
  ['kafka_events', 'kafka', true],
  ['elastic', 'elastic', false],
  ['datadog', 'datadog', false],
  ['cribl_lake', 'cribl_lake', false],
  ['azure_blob', 'azure_blob', false],
  ['sentinel', 'sentinel', true],
  ['loki', 'loki', false],
  ['webhook', 'webhook', false],
];

/** Sources of worker groups: the first two in every group, then drawn by seed. */
const STREAM_INPUTS: readonly Entry[] = [
  ['http', 'http', false],
  ['syslog', 'syslog', true],
  ['splunk_tcp', 'splunk_tcp', true],
  ['cribl', 'cribl', false],
  ['datagen', 'datagen', false],
  ['kafka_in', 'kafka', false],
  ['otel', 'open_telemetry', false],
  ['cribl_http', 'cribl_http', false],
  ['tcp_json', 'tcp_json', false],
];

/** Sources of Edge fleets. */
const EDGE_INPUTS: readonly Entry[] = [
  ['file_monitor', 'file', false],
  ['system_metrics', 'system_metrics', false],
  ['journal', 'journal_files', false],
  ['win_event_logs', 'win_event_logs', false],
  ['kube_logs', 'kube_logs', true],
  ['exec', 'exec', false],
];

/** FNV-1a of a string, mixed with a seed: a per-group stream that does not depend on the fleet's draws. */
function streamSeed(seed: number, key: string): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Generates a group's items: `fixed` first, then draws from the rest; ids repeat with a `_2`, `_3` suffix. */
function generate(r: () => number, entries: readonly Entry[], fixed: number, n: number, lead?: Entry): FlowItem[] {
  const out: FlowItem[] = [];
  const seen = new Map<string, number>();
  const add = (e: Entry, mayVary: boolean): void => {
    const k = (seen.get(e[0]) ?? 0) + 1;
    seen.set(e[0], k);
    out.push({
      id: k === 1 ? e[0] : `${e[0]}_${k}`,
      type: e[1],
      pq: e[2] && (!mayVary || r() < 0.6),
      disabled: mayVary && r() < 0.1,
    });
  };
  if (lead) add(lead, false);
  for (let i = 0; out.length < n; i++) {
    if (i < fixed && i < entries.length) add(entries[i] as Entry, false);
    else add(pick(r, entries.slice(fixed)), true);
  }
  return out;
}

/** The group model: one GroupFlow per group, generated from the seed on first use. */
export class DataflowModel {
  readonly #seed: number;
  readonly #counts: ReadonlyMap<string, FlowCounts>;
  readonly #groups = new Map<string, GroupFlow>();

  constructor(seed: number, counts: ReadonlyMap<string, FlowCounts> = new Map()) {
    this.#seed = seed;
    this.#counts = counts;
  }

  /** A group's destinations and sources (the same for the life of the simulator). */
  group(id: string, product: Product): GroupFlow {
    let g = this.#groups.get(id);
    if (!g) {
      const r = seededRandom(streamSeed(this.#seed, id));
      const edge = product === 'edge';
      const want = this.#counts.get(id) ?? {};
      const outputs = want.outputs ?? 1 + (edge ? randomInt(r, 1, 3) : randomInt(r, 2, 4));
      const inputs = want.inputs ?? randomInt(r, 2, 4);
      g = {
        outputs: generate(r, OUTPUTS, 2, Math.max(1, outputs), ['devnull', 'devnull', false]),
        inputs: generate(r, edge ? EDGE_INPUTS : STREAM_INPUTS, 2, inputs),
      };
      this.#groups.set(id, g);
    }
    return g;
  }
}

const ORDER: readonly HealthColor[] = ['Green', 'Unknown', 'Yellow', 'Red'];

/** Process counts of one item from the states a window gives (red first, then yellow, then unknown; the rest Green). */
export function processCounts(total: number, s: StateCounts | undefined): Required<HealthCounts> {
  const n = (c: ProcessCount | undefined, left: number): number => Math.min(left, c === 'all' ? total : (c ?? 0));
  const red = n(s?.red, total);
  const yellow = n(s?.yellow, total - red);
  const unknown = n(s?.unknown, total - red - yellow);
  return { Green: total - red - yellow - unknown, Yellow: yellow, Red: red, Unknown: unknown };
}

/**
 * The roll-up of process counts: `worst`, the worst state with a non-zero count (Red > Yellow > Unknown > Green);
 * `degraded`, Red or Unknown only when every process is, else Yellow when any is not Green. No process: Unknown.
 */
export function rollup(c: Required<HealthCounts>, rule: DataflowBehaviour['rollup']): HealthColor {
  const total = c.Green + c.Yellow + c.Red + c.Unknown;
  if (total === 0) return 'Unknown';
  if (rule === 'worst') {
    for (let i = ORDER.length - 1; i >= 0; i--) if (c[ORDER[i] as HealthColor] > 0) return ORDER[i] as HealthColor;
    return 'Green';
  }
  if (c.Red === total) return 'Red';
  if (c.Unknown === total) return 'Unknown';
  return c.Green === total ? 'Green' : 'Yellow';
}

function countsBody(c: Required<HealthCounts>, mode: DataflowBehaviour['healthCounts']): HealthCounts {
  if (mode === 'all') return c;
  const out: HealthCounts = {};
  for (const k of ['Green', 'Yellow', 'Red', 'Unknown'] as const) if (c[k] > 0) out[k] = c[k];
  return out;
}

const DEFAULT_ERRORS: Record<FlowKind, StatusError> = {
  output: { message: 'connection error', details: { error: 'connect ECONNREFUSED 10.0.0.5:9997' } },
  input: { message: 'listen error', details: { error: 'listen EADDRINUSE: address already in use 0.0.0.0:514' } },
};

/** What a status list is rendered from. */
export interface StatusContext {
  kind: FlowKind;
  group: string;
  items: readonly FlowItem[];
  /** Worker processes of the group's connected nodes. */
  processes: number;
  behaviour: DataflowBehaviour;
  /** Epoch ms. */
  now: number;
  /** Ms since the simulator started (windows). */
  t: number;
  /** `metrics=true`: a `metrics` object per item (`{}` at group level). */
  metrics: boolean;
  /** Leaders before 4.17: no item `type`, and `metrics` always (4.15.1 requires it). */
  legacy: boolean;
}

/** The windows of a kind in force for a group now, merged per item id (later entries win key by key). */
export function activeWindows(
  windows: readonly DataflowWindow[],
  kind: FlowKind,
  group: string,
  t: number,
): Map<string, DataflowWindow> {
  const out = new Map<string, DataflowWindow>();
  for (const w of windows) {
    const id = kind === 'output' ? w.destination : w.source;
    if (id === undefined || w.group !== group || !activeAt(w, t)) continue;
    const prev = out.get(id);
    out.set(id, prev ? { ...prev, ...w, pq: w.pq ? { ...prev.pq, ...w.pq } : prev.pq } : w);
  }
  return out;
}

/** The status items of a group's destinations or sources, in listing order (O(items + windows)). */
export function renderStatus(ctx: StatusContext): InputOutputStatus[] {
  const { behaviour: b, processes: total } = ctx;
  const timestamp = ctx.now - (ctx.now % HEARTBEAT_PERIOD_MS);
  const windows = activeWindows(b.windows, ctx.kind, ctx.group, ctx.t);
  const untypedFrom = ctx.items.length - b.untyped;
  const out: InputOutputStatus[] = [];
  ctx.items.forEach((item, i) => {
    if (item.disabled && b.disabled === 'omit') return;
    const w = item.disabled ? undefined : windows.get(item.id);
    const counts = item.disabled ? { Green: 0, Yellow: 0, Red: 0, Unknown: total } : processCounts(total, w);
    const status: InputOutputStatus['status'] = {
      health: rollup(counts, b.rollup),
      healthCounts: countsBody(counts, ctx.legacy ? 'all' : b.healthCounts),
      timestamp,
    };
    if (w?.error !== undefined) status.error = { message: w.error };
    else if (counts.Red > 0) status.error = DEFAULT_ERRORS[ctx.kind];
    if (item.pq) {
      const pc = item.disabled ? counts : processCounts(total, w?.pq);
      status.pq = {
        health: rollup(pc, b.rollup),
        healthCounts: countsBody(pc, ctx.legacy ? 'all' : b.healthCounts),
        timestamp,
      };
      if (w?.pq?.error !== undefined) status.pq.error = { message: w.pq.error };
    }
    if (ctx.metrics || ctx.legacy) status.metrics = {};
    // Field order as in the spec's examples: id, type, status.
    const typed = !ctx.legacy && i < untypedFrom;
    out.push(typed ? { id: item.id, type: item.type, status } : { id: item.id, status });
  });
  return out;
}

/**
 * Why a dataflow window cannot apply (unknown group, item, or a `pq` on an item without a persistent queue), or
 * undefined when it can.
 */
export function windowProblem(w: DataflowWindow, flow: (group: string) => GroupFlow | undefined): string | undefined {
  const g = flow(w.group);
  if (!g) return `unknown group ${JSON.stringify(w.group)}`;
  const kind = w.destination !== undefined ? 'destination' : 'source';
  const id = w.destination ?? w.source ?? '';
  const item = (kind === 'destination' ? g.outputs : g.inputs).find((x) => x.id === id);
  if (!item) return `group ${JSON.stringify(w.group)} has no ${kind} ${JSON.stringify(id)}`;
  if (w.pq && !item.pq)
    return `${kind} ${JSON.stringify(id)} of group ${JSON.stringify(w.group)} has no persistent queue`;
  return undefined;
}
