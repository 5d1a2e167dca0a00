/**
 * What the status page reads of the throughput collector's facts: per group, the last hour of its windows (for the
 * sparkline), the destinations that reported blocked in the last window, and the persistent queues. The collector
 * keeps these in its group facts; `throughputView` is the one reader outside this folder.
 */
import type { GroupItem } from '../collector.js';

/** One answered window of a group (the collector's own windows, not the leader's buckets). */
export interface ThroughputPoint {
  /** The window's end (epoch ms, exclusive): `now − lag` when it was queried. */
  readonly endMs: number;
  /** The window's length (ms); a rate is a sum divided by it. */
  readonly spanMs: number;
  readonly inEvents: number;
  readonly outEvents: number;
  readonly droppedEvents: number;
}

/** A connector's queue as of the last window. */
export interface QueueView {
  readonly kind: 'destination' | 'source';
  readonly id: string;
  readonly type: string;
  /** The largest pq.queue_size reported in the last window (bytes per worker process). */
  readonly bytes: number;
  /** True when it grew over the last windows kept (the newest larger than the oldest, and never shrinking). */
  readonly growing: boolean;
}

/** What the status page shows of a group's data in motion. */
export interface GroupThroughputView {
  /** Oldest first; at most 60 points (the last hour at the default 60 s interval). */
  readonly history: readonly ThroughputPoint[];
  /** Destinations any worker process reported blocked in the last window. */
  readonly blocked: readonly { readonly destination: string; readonly type: string }[];
  /** Destinations and sources with a persistent queue that reported a size in the last window. */
  readonly queues: readonly QueueView[];
}

/** The collector's name: its `collect[]` value, `collector` label and the key of its facts. */
export const NAME = 'throughput';

/**
 * A group's view, kept by the collector under `view` in its group facts (recomputed at each answered window);
 * undefined before the first window or while the collector is off.
 */
export const throughputView = (g: GroupItem | undefined): GroupThroughputView | undefined =>
  (g?.facts[NAME] as { readonly view?: GroupThroughputView } | undefined)?.view;
