/**
 * One leader's nodes summed up for the status page: how many are in each state, and the worst few with their
 * reasons. One pass over the snapshot's node states, time-sliced so that scrapes keep being served, with a bounded
 * selection of the worst: O(N) time and O(limit) memory whatever the fleet's size.
 */
import type { GroupItem, NodeItem } from '../../collectors/collector.js';
import { groupsFacts } from '../../collectors/groups/index.js';
import { configOutdated, listedNode } from '../../collectors/listing/index.js';
import { healthFacts } from '../../collectors/node-health/index.js';
import { timeSlicer } from '../../util/yield.js';
import { NODE_CONDITIONS, type NodeCondition } from './conditions.js';

/** A node among the worst. */
export interface WorstNode {
  node: NodeItem;
  /** The worst of its states. */
  condition: NodeCondition;
  /** Every state it is in but healthy, with why. */
  reasons: string[];
  /** Epoch ms of its last answered health poll (older is worse); -Infinity when it never answered. */
  lastAnswerMs: number;
}

/** One group's (or fleet's) nodes. */
export interface GroupNodes {
  product: string;
  group: string;
  /** The group as the leader lists it; absent for a group only a node names. */
  item?: GroupItem;
  total: number;
  /** Nodes in a state worse than healthy. */
  notHealthy: number;
  /** Nodes that run another config than the group deployed. */
  drifted: number;
  /** Edge nodes whose upgrade failed. */
  upgradeFailed: number;
}

/** One leader's nodes. */
export interface NodeSummary {
  total: number;
  /** Nodes per state, in NODE_CONDITIONS order. */
  counts: number[];
  /** The worst nodes, worst first, at most `limit`. */
  worst: WorstNode[];
  /** Per group: every listed one (with or without nodes), then those only a node names, in the order first met. */
  groups: GroupNodes[];
}

/** The upgrade state `failed` (nodeUpgradeStatus.state). */
const UPGRADE_FAILED = 2;

const NO_NODES = { total: 0, notHealthy: 0, drifted: 0, upgradeFailed: 0 } as const;

/** Longest stretch of the pass between two yields to the event loop. */
const SLICE_MS = 4;

/** Worst first: higher severity, then the longer silence, then the node id (a stable order). */
export function compareWorst(a: WorstNode, b: WorstNode): number {
  return (
    b.condition.severity - a.condition.severity ||
    a.lastAnswerMs - b.lastAnswerMs ||
    (a.node.ident.nodeId < b.node.ident.nodeId ? -1 : a.node.ident.nodeId > b.node.ident.nodeId ? 1 : 0)
  );
}

/** Inserts into a sorted list capped at `limit` (binary search: a full list costs log(limit) per candidate). */
export function insertBounded(list: WorstNode[], item: WorstNode, limit: number): void {
  if (limit <= 0) return;
  if (list.length === limit && compareWorst(item, list[limit - 1]!) >= 0) return;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareWorst(list[mid]!, item) <= 0) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, item);
  if (list.length > limit) list.pop();
}

/** Sums up `nodes` at `nowMs`, keeping the `limit` worst; `listed`: the groups the leader lists (for drift). */
export async function summarizeNodes(
  nodes: Iterable<NodeItem>,
  nowMs: number,
  limit: number,
  listed: readonly GroupItem[] = [],
): Promise<NodeSummary> {
  const counts = NODE_CONDITIONS.map(() => 0);
  const worst: WorstNode[] = [];
  const groups = new Map<string, GroupNodes>(
    listed.map((item) => [`${item.product}/${item.id}`, { product: item.product, group: item.id, item, ...NO_NODES }]),
  );
  const slice = timeSlicer(SLICE_MS);
  let total = 0;
  for (const node of nodes) {
    const pause = slice();
    if (pause) await pause;
    total++;
    let top: NodeCondition | undefined;
    for (let i = 0; i < NODE_CONDITIONS.length; i++) {
      const c = NODE_CONDITIONS[i]!;
      if (c.reason(node, nowMs) === undefined) continue;
      counts[i]!++;
      if (top === undefined || c.severity > top.severity) top = c;
    }
    const { product, group } = node.ident;
    const key = `${product}/${group}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { product, group, ...NO_NODES }));
    g.total++;
    if (top === undefined || top.severity > 0) g.notHealthy++;
    if (configOutdated(node, groupsFacts.of(g.item)?.configVersion) === true) g.drifted++;
    if (listedNode.of(node)?.upgradeState === UPGRADE_FAILED) g.upgradeFailed++;
    if (top === undefined || top.severity === 0) continue;
    const candidate: WorstNode = {
      node,
      condition: top,
      reasons: [],
      lastAnswerMs: healthFacts.of(node)?.lastSuccessMs ?? -Infinity,
    };
    if (worst.length === limit && compareWorst(candidate, worst[limit - 1]!) >= 0) continue;
    // Reasons only for the few that make the list: building strings for every node would cost more than ranking.
    candidate.reasons = NODE_CONDITIONS.filter((c) => c.severity > 0)
      .map((c) => c.reason(node, nowMs))
      .filter((r): r is string => r !== undefined);
    insertBounded(worst, candidate, limit);
  }
  return { total, counts, worst, groups: [...groups.values()] };
}
