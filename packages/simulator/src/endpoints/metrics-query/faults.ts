/** The metrics store's fault key (`faults.throughput`): changes of the data in motion, and store outages. */
import * as z from 'zod';
import { duration, share } from '../../core/schema-util.js';
import { scheduled } from '../../core/schedule.js';
import type { Schedule } from '../../core/schedule.js';

/**
 * A change of the data in motion (POST /system/metrics/query), for a while: one of `destination`, `source` (with
 * `group`) or `node`. A destination's `eps` is the rate offered to it (default: its share of the group's sources),
 * a source's the rate it receives (0: silent); a blocked destination queues (with a persistent queue) or drops.
 */
export interface ThroughputWindow extends Schedule {
  group?: string;
  destination?: string;
  source?: string;
  node?: string;
  /** Instead of `node`: the first this many connected worker nodes of `group` (listing order). */
  nodes?: number;
  /** Events per second. */
  eps?: number;
  blocked?: boolean;
  backpressure?: boolean;
  /** The node's largest worker-process heartbeat lag (ms). */
  heartbeatLag?: number;
  /** The node's free memory as a share of its memory. */
  freeMemory?: number;
  load?: number;
}

/** The metrics store's flow model: the changes scheduled on it. */
export interface ThroughputBehaviour {
  windows: ThroughputWindow[];
  /** While one is in force, POST /system/metrics/query answers 500 (the store down, the rest of the leader up). */
  outages: Schedule[];
}

export interface ThroughputFaults {
  throughput: ThroughputBehaviour;
}

/** A throughput window as given: durations as ms or strings such as "5m". */
export type ThroughputWindowInput = z.input<typeof throughputWindow>;

/** One throughput window (also the body of the admin calls, which take `group` from the path). */
export const throughputWindow = scheduled({
  group: z.string().min(1).optional(),
  destination: z.string().min(1).optional(),
  source: z.string().min(1).optional(),
  node: z.string().min(1).optional(),
  nodes: z.number().int().positive().optional(),
  eps: z.number().nonnegative().max(10_000_000).optional(),
  blocked: z.boolean().optional(),
  backpressure: z.boolean().optional(),
  heartbeatLag: duration.optional(),
  freeMemory: share.optional(),
  load: z.number().nonnegative().optional(),
})
  .refine((w) => [w.destination, w.source, w.node, w.nodes].filter((x) => x !== undefined).length === 1, {
    message: 'name exactly one of `destination`, `source`, `node` and `nodes`',
  })
  .refine((w) => w.node !== undefined || w.group !== undefined, {
    message: 'a destination, source or `nodes` needs `group`',
  })
  .refine((w) => w.destination !== undefined || (w.blocked === undefined && w.backpressure === undefined), {
    message: '`blocked` and `backpressure` are for a destination',
  })
  .refine(
    (w) =>
      w.node !== undefined ||
      w.nodes !== undefined ||
      (w.heartbeatLag === undefined && w.freeMemory === undefined && w.load === undefined),
    { message: '`heartbeatLag`, `freeMemory` and `load` are for a node' },
  )
  .refine((w) => (w.node === undefined && w.nodes === undefined) || w.eps === undefined, {
    message: '`eps` is for a destination or source',
  });

export const throughputFaultsShape = {
  throughput: z.strictObject({
    windows: z.array(throughputWindow).default([]),
    outages: z.array(scheduled({})).default([]),
  }),
};

export const DEFAULT_THROUGHPUT_FAULTS: Readonly<ThroughputFaults> = Object.freeze({
  throughput: Object.freeze({ windows: [], outages: [] }),
});
