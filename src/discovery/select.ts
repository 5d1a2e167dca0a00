import type { ListedFleetNode } from './discovery.js';
import { shardOf } from './shard.js';

/** This process's share of the nodes: shard `index` of `total` (jump hash of node_id). */
export interface ShardConfig {
  index: number;
  total: number;
}

/** The share of a listing this process exports. */
export interface Selection {
  nodes: Map<string, ListedFleetNode>;
  /** Nodes of this shard not exported because of --max-nodes. */
  overLimit: number;
  /** Nodes owned by other shards. */
  otherShards: number;
}

/**
 * Keeps this shard's nodes (jump hash of node_id), then at most `maxNodes` of them (0 = no limit),
 * chosen by node id so that replicas given the same listing export the same nodes.
 */
export function selectNodes(
  all: ReadonlyMap<string, ListedFleetNode>,
  shard: ShardConfig,
  maxNodes: number,
): Selection {
  let mine: [string, ListedFleetNode][] = [];
  for (const entry of all) if (shardOf(entry[0], shard.total) === shard.index) mine.push(entry);
  const otherShards = all.size - mine.length;
  let overLimit = 0;
  if (maxNodes > 0 && mine.length > maxNodes) {
    mine.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    overLimit = mine.length - maxNodes;
    mine = mine.slice(0, maxNodes);
  }
  return { nodes: new Map(mine), overLimit, otherShards };
}
