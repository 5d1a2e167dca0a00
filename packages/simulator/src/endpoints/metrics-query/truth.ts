import type { Env } from '../../core/env.js';
import { bucketsIn, type Bucket, type FlowGroup, type FlowInputs } from './throughput.js';
import type { ThroughputWindow } from './faults.js';

/**
 * What the metrics store holds of a group over a window, from the flow model rather than the store: the truth tests
 * compare the exporter with; and whether a throughput window can apply to this fleet.
 */

/** Every group as the flow model sees it now: its connected processes and (Stream) nodes. */
export function flowGroups(env: Env): FlowGroup[] {
  const out: FlowGroup[] = [];
  for (const product of ['stream', 'edge'] as const) {
    const nodes = product === 'stream' ? env.fleet.connectedNodes('stream') : new Map<string, never[]>();
    for (const g of env.fleet.groups(product)) {
      out.push({ id: g.id, product, processes: env.fleet.processes(g.id), nodes: nodes.get(g.id) ?? [] });
    }
  }
  return out;
}

export const flowInputs = (env: Env): FlowInputs => ({
  startedAt: env.startedAt,
  throughput: env.faults.throughput,
  dataflow: env.faults.dataflow,
});

/** What the store holds of a group over a window: sums of counters, max of blocked/queues/lag, mean of the rest. */
export interface FlowTruth {
  /** Absent for a Stream group without connected nodes (its totals are reported per node). */
  readonly totals: Readonly<Record<string, number>>;
  readonly destinations: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly sources: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly nodes: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

type Acc = Record<string, number>;

const add = (acc: Acc, k: string, v: number | undefined) => {
  if (v !== undefined) acc[k] = (acc[k] ?? 0) + v;
};
const max = (acc: Acc, k: string, v: number | undefined) => {
  if (v !== undefined) acc[k] = Math.max(acc[k] ?? -Infinity, v);
};

/** The truth of a group over `[earliestMs, latestMs)` (buckets by their start), from the model, not the store. */
export function flowTruth(env: Env, group: string, earliestMs: number, latestMs: number): FlowTruth | undefined {
  const g = flowGroups(env).find((x) => x.id === group);
  if (!g) return undefined;
  const inputs = flowInputs(env);
  const totals: Acc = {};
  const destinations: Record<string, Acc> = {};
  const sources: Record<string, Acc> = {};
  const nodes: Record<string, Acc> = {};
  const buckets: Bucket[] = bucketsIn(earliestMs, latestMs).map((b) => env.throughput.bucket(g, b, inputs));
  const perNode = g.product === 'stream';
  for (const b of buckets) {
    if (!perNode || g.nodes.length > 0) {
      add(totals, 'in_events', b.inEvents);
      add(totals, 'in_bytes', b.inBytes);
      add(totals, 'out_events', b.outEvents);
      add(totals, 'out_bytes', b.outBytes);
    }
    add(totals, 'dropped_events', b.dropped);
    for (const [id, d] of b.destinations) {
      const acc = (destinations[id] ??= {});
      add(acc, 'out_events', d.events);
      add(acc, 'out_bytes', d.bytes);
      add(acc, 'dropped_events', d.dropped);
      max(acc, 'blocked', d.blocked);
      max(acc, 'backpressure', d.backpressure);
      max(acc, 'pq_size', d.pqBytes);
    }
    for (const [id, s] of b.sources) {
      const acc = (sources[id] ??= {});
      add(acc, 'in_events', s.events);
      add(acc, 'in_bytes', s.bytes);
      max(acc, 'pq_size', s.pqBytes);
    }
    for (const [id, n] of b.nodes) {
      const acc = (nodes[id] ??= {});
      add(acc, 'free_mem', n.freeMem);
      add(acc, 'load_avg', n.load);
      max(acc, 'heartbeat_lag', n.heartbeatLag);
      add(acc, 'in_events', n.inEvents);
      add(acc, 'in_bytes', n.inBytes);
      add(acc, 'out_events', n.outEvents);
      add(acc, 'out_bytes', n.outBytes);
      add(acc, 'buckets', 1);
    }
  }
  for (const acc of Object.values(nodes)) {
    const n = acc.buckets ?? 1;
    acc.free_mem = (acc.free_mem ?? 0) / n;
    acc.load_avg = (acc.load_avg ?? 0) / n;
    delete acc.buckets;
  }
  return { totals, destinations, sources, nodes };
}

/** Why a throughput window cannot apply to this fleet (unknown group, connector, node), or undefined. */
export function throughputWindowProblem(env: Env, w: ThroughputWindow): string | undefined {
  if (w.node !== undefined) {
    return env.fleet.node(w.node) ? undefined : `unknown node ${JSON.stringify(w.node)}`;
  }
  const group = w.group ?? '';
  const product = env.fleet.groupProduct(group);
  if (!product) return `unknown group ${JSON.stringify(group)}`;
  if (w.nodes !== undefined) return undefined;
  const flow = env.dataflow.group(group, product);
  const kind = w.destination !== undefined ? 'destination' : 'source';
  const id = w.destination ?? w.source ?? '';
  const items = kind === 'destination' ? flow.outputs : flow.inputs;
  if (!items.some((i) => i.id === id)) return `group ${JSON.stringify(group)} has no ${kind} ${JSON.stringify(id)}`;
  return undefined;
}
