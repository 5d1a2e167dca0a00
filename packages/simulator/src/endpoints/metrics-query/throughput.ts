import type { Product } from '@cribl-exporter/api/products';
import { activeWindows } from '../../core/dataflow.js';
import type { DataflowModel, FlowItem } from '../../core/dataflow.js';
import { activeAt } from '../../core/schedule.js';
import type { DataflowBehaviour } from '../status/faults.js';
import type { ThroughputBehaviour, ThroughputWindow } from './faults.js';
import { seededRandom } from '../../core/random.js';

/**
 * The data in motion behind POST /system/metrics/query (docs/ARCHITECTURE.md, step 4): a flow model consistent with the
 * destinations and sources the status lists show (the same ids and types; disabled ones carry nothing), evaluated
 * in buckets of BUCKET_MS on the simulator's clock, so that any window has one exact truth.
 *
 * - Each source receives `eps` events per second (seeded per source; a throughput window changes it, 0 silences it),
 *   a seeded size per event; a syslog source reports as `syslog:id:udp` and `syslog:id:tcp`, as real leaders do.
 *   Cribl's internal source (`cribl:CriblMetrics`) reports too. A group without connected worker processes moves
 *   nothing.
 * - Each destination is offered its seeded share of the group's sources (or a window's `eps`). Blocked (a window's
 *   `blocked`, or red processes in a dataflow window), it sends nothing: with a persistent queue the events queue
 *   (`pq.queue_size` grows), without one they are dropped; unblocked, the queue drains at the offered rate on top of
 *   it. Blocked implies backpressure. Edge fleets report no `blocked.outputs`.
 * - A Stream group's totals are reported per worker node (`__worker_node`: the group's connected nodes share its
 *   events), with the node's memory, load and heartbeat lag; Edge fleets report totals per fleet only.
 */

/** The store's resolution: a bucket counts in a window when its start does (the same rule for every query). */
export const BUCKET_MS = 10_000;

/** A connector of the model. */
interface Connector {
  readonly id: string;
  readonly type: string;
  readonly pq: boolean;
  /** Sources: events per second; destinations: the share of the group's events offered. */
  readonly rate: number;
  readonly bytesPerEvent: number;
}

/** What the model knows of a group. */
export interface FlowGroup {
  readonly id: string;
  readonly product: Product;
  /** Worker processes of its connected nodes (no process: nothing flows). */
  readonly processes: number;
  /** Connected Stream nodes: id and memory (Edge: none, the store has no per-node splits for them). */
  readonly nodes: readonly { readonly id: string; readonly totalmem: number }[];
}

export interface SourceFigures {
  readonly type: string;
  readonly events: number;
  readonly bytes: number;
  /** Only with a persistent queue. */
  readonly pqBytes?: number;
}

export interface DestinationFigures {
  readonly type: string;
  readonly events: number;
  readonly bytes: number;
  readonly dropped: number;
  /** Absent for Edge (no blocked.outputs). */
  readonly blocked?: 0 | 1;
  readonly backpressure: 0 | 1;
  readonly pqBytes?: number;
}

export interface NodeFigures {
  readonly freeMem: number;
  readonly load: number;
  /** Seconds. */
  readonly heartbeatLag: number;
  readonly inEvents: number;
  readonly inBytes: number;
  readonly outEvents: number;
  readonly outBytes: number;
}

/** One bucket of a group. */
export interface Bucket {
  readonly sources: ReadonlyMap<string, SourceFigures>;
  readonly destinations: ReadonlyMap<string, DestinationFigures>;
  /** Cribl's internal source (counted in the totals, exported by no one). */
  readonly internal: SourceFigures;
  readonly inEvents: number;
  readonly inBytes: number;
  readonly outEvents: number;
  readonly outBytes: number;
  readonly dropped: number;
  readonly nodes: ReadonlyMap<string, NodeFigures>;
}

/** FNV-1a of a string mixed with a seed. */
function hash(seed: number, key: string): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const INTERNAL: Connector = {
  id: 'CriblMetrics',
  type: 'cribl',
  pq: false,
  rate: 2,
  bytesPerEvent: 300,
};

const split = (events: number, share: number): number => Math.round(events * share);

/** The time parameters the model needs besides the group: the simulator's start and the faults in force. */
export interface FlowInputs {
  readonly startedAt: number;
  readonly throughput: ThroughputBehaviour;
  readonly dataflow: DataflowBehaviour;
}

/** The flow model: connectors per group (from the data-flow model), buckets computed on demand. */
export class ThroughputModel {
  readonly #seed: number;
  readonly #dataflow: DataflowModel;
  readonly #connectors = new Map<string, { sources: Connector[]; destinations: Connector[] }>();
  /** Queue sizes (events) at the end of each bucket from the origin, per group and destination; per faults. */
  #queues = new Map<string, number[]>();
  #queuesOf: FlowInputs['throughput'] | undefined;
  #queuesDataflow: FlowInputs['dataflow'] | undefined;

  constructor(seed: number, dataflow: DataflowModel) {
    this.#seed = seed;
    this.#dataflow = dataflow;
  }

  /** A group's connectors (disabled items carry nothing and are not in the store). */
  connectors(group: string, product: Product): { sources: Connector[]; destinations: Connector[] } {
    let c = this.#connectors.get(group);
    if (c) return c;
    const flow = this.#dataflow.group(group, product);
    const r = seededRandom(hash(this.#seed, `throughput:${group}`));
    const make = (item: FlowItem, source: boolean): Connector => ({
      id: item.id,
      type: item.type,
      pq: item.pq,
      rate: source ? 5 + Math.floor(r() * 46) : item.id === 'devnull' ? 1 : 1 + Math.floor(r() * 9),
      bytesPerEvent: 100 + Math.floor(r() * 900),
    });
    const sources = flow.inputs.filter((i) => !i.disabled).map((i) => make(i, true));
    const raw = flow.outputs.filter((i) => !i.disabled).map((i) => make(i, false));
    const total = raw.reduce((n, d) => n + d.rate, 0) || 1;
    const destinations = raw.map((d) => ({ ...d, rate: d.rate / total }));
    c = { sources, destinations };
    this.#connectors.set(group, c);
    return c;
  }

  /** The windows of a kind for an item in force at `t` (ms since start), merged (later keys win). */
  static #window(
    windows: readonly ThroughputWindow[],
    t: number,
    match: (w: ThroughputWindow) => boolean,
  ): ThroughputWindow | undefined {
    let out: ThroughputWindow | undefined;
    for (const w of windows) if (match(w) && activeAt(w, t)) out = { ...out, ...w };
    return out;
  }

  /** A source's events in a bucket (t: ms since start). */
  #sourceEvents(g: FlowGroup, s: Connector, t: number, windows: readonly ThroughputWindow[]): number {
    if (g.processes <= 0) return 0;
    const w = ThroughputModel.#window(windows, t, (x) => x.group === g.id && x.source === s.id);
    return Math.round((w?.eps ?? s.rate) * (BUCKET_MS / 1000));
  }

  /** What a destination is offered in a bucket, and whether it is blocked then. */
  #offer(
    g: FlowGroup,
    d: Connector,
    t: number,
    inputs: FlowInputs,
    fromSources: number,
  ): { offered: number; blocked: boolean; backpressure: boolean } {
    const w = ThroughputModel.#window(inputs.throughput.windows, t, (x) => x.group === g.id && x.destination === d.id);
    const flowing = g.processes > 0;
    const offered = !flowing ? 0 : w?.eps === undefined ? split(fromSources, d.rate) : Math.round(w.eps * 10);
    const red = activeWindows(inputs.dataflow.windows, 'output', g.id, t).get(d.id)?.red;
    const blocked = w?.blocked === true || (red !== undefined && red !== 0);
    return { offered, blocked, backpressure: blocked || w?.backpressure === true };
  }

  /** Events offered by the group's sources to its destinations in a bucket (the internal source's are not). */
  #fromSources(g: FlowGroup, t: number, windows: readonly ThroughputWindow[]): number {
    return this.connectors(g.id, g.product).sources.reduce((n, s) => n + this.#sourceEvents(g, s, t, windows), 0);
  }

  /** The bucket of a group that starts at `b` (a multiple of BUCKET_MS). */
  bucket(g: FlowGroup, b: number, inputs: FlowInputs): Bucket {
    const t = b - inputs.startedAt;
    const { sources, destinations } = this.connectors(g.id, g.product);
    const windows = inputs.throughput.windows;
    const srcs = new Map<string, SourceFigures>();
    let inEvents = 0;
    let inBytes = 0;
    for (const s of sources) {
      const events = this.#sourceEvents(g, s, t, windows);
      const bytes = events * s.bytesPerEvent;
      srcs.set(s.id, { type: s.type, events, bytes, ...(s.pq ? { pqBytes: 0 } : {}) });
      inEvents += events;
      inBytes += bytes;
    }
    const fromSources = inEvents;
    const internalEvents = g.processes > 0 ? INTERNAL.rate * (BUCKET_MS / 1000) : 0;
    const internal = { type: INTERNAL.type, events: internalEvents, bytes: internalEvents * INTERNAL.bytesPerEvent };
    inEvents += internal.events;
    inBytes += internal.bytes;
    const dsts = new Map<string, DestinationFigures>();
    let outEvents = 0;
    let outBytes = 0;
    let dropped = 0;
    for (const d of destinations) {
      const o = this.#offer(g, d, t, inputs, fromSources);
      const before = d.pq ? this.#queueBefore(g, d, b, inputs) : 0;
      const step = stepQueue(before, o.offered, o.blocked, d.pq);
      const bytes = step.events * d.bytesPerEvent;
      dsts.set(d.id, {
        type: d.type,
        events: step.events,
        bytes,
        dropped: step.dropped,
        ...(g.product === 'edge' ? {} : { blocked: o.blocked ? 1 : 0 }),
        backpressure: o.backpressure ? 1 : 0,
        ...(d.pq ? { pqBytes: step.queue * d.bytesPerEvent } : {}),
      });
      outEvents += step.events;
      outBytes += bytes;
      dropped += step.dropped;
    }
    return {
      sources: srcs,
      destinations: dsts,
      internal,
      inEvents,
      inBytes,
      outEvents,
      outBytes,
      dropped,
      nodes: this.#nodes(g, t, windows, { inEvents, inBytes, outEvents, outBytes }),
    };
  }

  /** The group's totals shared by its connected nodes (the first ones get the remainders), and their resources. */
  #nodes(
    g: FlowGroup,
    t: number,
    windows: readonly ThroughputWindow[],
    totals: { inEvents: number; inBytes: number; outEvents: number; outBytes: number },
  ): Map<string, NodeFigures> {
    const out = new Map<string, NodeFigures>();
    const n = g.nodes.length;
    const share = (total: number, i: number): number => Math.floor(total / n) + (i < total % n ? 1 : 0);
    g.nodes.forEach((node, i) => {
      const w = ThroughputModel.#window(
        windows,
        t,
        (x) => x.node === node.id || (x.nodes !== undefined && x.group === g.id && i < x.nodes),
      );
      const h = hash(this.#seed, node.id);
      out.set(node.id, {
        freeMem: Math.round(node.totalmem * (w?.freeMemory ?? 0.3 + (h % 40) / 100)),
        load: w?.load ?? 0.25 + (h % 16) / 4,
        heartbeatLag: (w?.heartbeatLag ?? 200 + (h % 4) * 100) / 1000,
        inEvents: share(totals.inEvents, i),
        inBytes: share(totals.inBytes, i),
        outEvents: share(totals.outEvents, i),
        outBytes: share(totals.outBytes, i),
      });
    });
    return out;
  }

  /** A destination's queue (events) when bucket `b` begins: stepped from the simulator's start, memoized. */
  #queueBefore(g: FlowGroup, d: Connector, b: number, inputs: FlowInputs): number {
    if (this.#queuesOf !== inputs.throughput || this.#queuesDataflow !== inputs.dataflow) {
      this.#queues = new Map();
      this.#queuesOf = inputs.throughput;
      this.#queuesDataflow = inputs.dataflow;
    }
    const origin = Math.floor(inputs.startedAt / BUCKET_MS) * BUCKET_MS;
    const k = Math.floor((b - origin) / BUCKET_MS);
    if (k <= 0) return 0;
    const key = `${g.id}\u0000${d.id}`;
    const memo = this.#queues.get(key) ?? [];
    this.#queues.set(key, memo);
    while (memo.length < k) {
      const at = origin + memo.length * BUCKET_MS;
      const t = at - inputs.startedAt;
      const o = this.#offer(g, d, t, inputs, this.#fromSources(g, t, inputs.throughput.windows));
      memo.push(stepQueue(memo[memo.length - 1] ?? 0, o.offered, o.blocked, true).queue);
    }
    return memo[k - 1] ?? 0;
  }
}

/**
 * One bucket of a destination: blocked, it sends nothing and queues (with a persistent queue) or drops what it is
 * offered; otherwise it sends what it is offered and drains its queue at the same rate on top.
 */
export function stepQueue(
  queue: number,
  offered: number,
  blocked: boolean,
  pq: boolean,
): { events: number; dropped: number; queue: number } {
  if (blocked) return pq ? { events: 0, dropped: 0, queue: queue + offered } : { events: 0, dropped: offered, queue };
  const drain = Math.min(queue, offered);
  return { events: offered + drain, dropped: 0, queue: queue - drain };
}

/** Bucket starts in `[earliestMs, latestMs)`. */
export function bucketsIn(earliestMs: number, latestMs: number): number[] {
  const out: number[] = [];
  for (let b = Math.ceil(earliestMs / BUCKET_MS) * BUCKET_MS; b < latestMs; b += BUCKET_MS) out.push(b);
  return out;
}
