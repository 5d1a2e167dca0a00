/**
 * The registry of snapshot families: which collectors' families make up each scope, in body order, and how one
 * item of a scope is rendered to text. Leader and group texts are rendered once per change (the store is given
 * those renderers); nodes are rendered when a body is built (at most once per scrape interval), never per scrape.
 *
 * Rendered by hand rather than through a prom-client registry: prom-client renders every series at every scrape,
 * and `registry.metrics()` for the same series blocked the event loop 6.1 s per call at 50,000 nodes (68 ms at
 * 1,000; BENCHMARKS.md, "prom-client"). The exporter's own metrics do use prom-client (src/telemetry/).
 */
import { openLabels, type Family } from '../format/family.js';
import { GIT_FAMILIES } from './git-settings.js';
import { VERSION_FAMILIES } from './group-version.js';
import { LISTED_GROUP_FAMILIES } from './groups.js';
import { LEADER_HEALTH_FAMILIES } from './leader-health.js';
import { DISCOVERY_FAMILIES, LISTING_FAMILIES } from './listing.js';
import { HEALTH_FAMILIES, POLL_FAILURE_FAMILY } from './node-health.js';
import { METADATA_FAMILIES } from './node-metadata.js';
import { PACKS_FAMILIES } from './packs.js';
import { q } from './sample.js';
import { SEARCH_FAMILIES } from './search.js';
import type { GroupState, LeaderState, ManagementState, NodeState } from './state.js';
import { MANAGEMENT_FAMILIES } from './workspaces.js';

export { MANAGEMENT_FAMILIES };

/** Leader families, in body order. */
export const LEADER_FAMILIES: readonly Family<LeaderState>[] = [
  ...DISCOVERY_FAMILIES,
  ...LEADER_HEALTH_FAMILIES,
  ...GIT_FAMILIES,
  ...SEARCH_FAMILIES,
];

/** Group / fleet families, in body order. */
export const GROUP_FAMILIES: readonly Family<GroupState>[] = [
  ...LISTED_GROUP_FAMILIES,
  ...VERSION_FAMILIES,
  ...PACKS_FAMILIES,
];

/** Per-node families, in body order; a node's rendered text is one string per entry. */
export const NODE_FAMILIES: readonly Family<NodeState>[] = [
  ...LISTING_FAMILIES,
  ...HEALTH_FAMILIES,
  POLL_FAILURE_FAMILY,
  ...METADATA_FAMILIES,
];

/** Position of each per-node family in a node's rendered texts. */
export const NODE_FAMILY_INDEX: Readonly<Record<string, number>> = Object.fromEntries(
  NODE_FAMILIES.map((f, i) => [f.name, i]),
);

/** Labels of the scopes themselves: every node series has all three, every group series the first two. */
const SCOPE_LABELS = ['product', 'group', 'node_id'];

/**
 * Every label name the leader, group and node families put on their series (a target label must not reuse one).
 * The management families carry no target labels, so their `workspace` stays free for the leaders of discovered
 * workspaces.
 */
export const FAMILY_LABELS: ReadonlySet<string> = new Set([
  ...SCOPE_LABELS,
  ...[...LEADER_FAMILIES, ...GROUP_FAMILIES, ...NODE_FAMILIES].flatMap((f) => f.labels),
]);

/** One string per per-node family (NODE_FAMILIES order); empty where the node has no series. */
export type NodeTexts = readonly string[];

/**
 * Renders one node's series, one string per per-node family. `targetPairs` are the leader's target labels
 * already rendered (`workspace="a"`), or empty.
 */
export function renderNode(state: NodeState, targetPairs: string): NodeTexts {
  const base = nodeBase(state, targetPairs);
  return NODE_FAMILIES.map((f) => f.sample(state, base));
}

/** The opening of a node's label set, the `base` of its families: `{target pairs,product=…,group=…,node_id=…`. */
export function nodeBase(state: NodeState, targetPairs: string): string {
  return openLabels(targetPairs, `product=${q(state.product)},group=${q(state.group)},node_id=${q(state.nodeId)}`);
}

/** How the body renders a node at build time (src/exposition/assemble.ts). */
export const NODE_RENDERING = { families: NODE_FAMILIES, base: nodeBase } as const;

/** Renders the group families (GROUP_FAMILIES order), each group once. */
export function renderGroups(groups: readonly GroupState[], targetPairs: string): string[] {
  const out = GROUP_FAMILIES.map(() => '');
  const seen = new Set<string>();
  for (const g of groups) {
    const key = `${g.product}\u0000${g.group.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const base = openLabels(targetPairs, `product=${q(g.product)},group=${q(g.group.id)}`);
    GROUP_FAMILIES.forEach((f, i) => (out[i] += f.sample(g, base)));
  }
  return out;
}

/** Renders the leader families (LEADER_FAMILIES order); nothing before the first discovery result. */
export function renderLeader(leader: LeaderState | undefined, targetPairs: string): string[] {
  if (!leader) return LEADER_FAMILIES.map(() => '');
  const base = openLabels(targetPairs, '');
  return LEADER_FAMILIES.map((f) => f.sample(leader, base));
}

/** Renders the management families (MANAGEMENT_FAMILIES order); nothing before the first workspace listing. */
export function renderManagement(state: ManagementState | undefined): string[] {
  return MANAGEMENT_FAMILIES.map((f) => (state ? f.sample(state, '') : ''));
}

/** Whether a group's change matters to its nodes' texts (what their families compare with). */
export function sameNodeGroupFacts(a: GroupState | undefined, b: GroupState | undefined): boolean {
  return a?.group.configVersion === b?.group.configVersion;
}

/**
 * The facts the store derives for a node from its listing: its restarts, counted from its previous start time (a
 * change of the listing's start time; the first sighting is not a restart), and its group's deployed config
 * version (what cribl_node_config_outdated compares with).
 */
export function listingFacts(
  prevStartTime: number | undefined,
  prevRestarts: number | undefined,
  startTime: number | undefined,
  group: GroupState | undefined,
): { restarts: number; deployedConfigVersion: string | undefined } {
  const restarted = prevStartTime !== undefined && startTime !== undefined && prevStartTime !== startTime;
  return { restarts: (prevRestarts ?? 0) + (restarted ? 1 : 0), deployedConfigVersion: group?.group.configVersion };
}

/** A node's state as the store keeps it: the writer's state with the facts of listingFacts. */
export function nodeWithFacts(prev: NodeState | undefined, next: NodeState, group: GroupState | undefined): NodeState {
  const before = prev?.worker.info.cribl.startTime;
  const { restarts, deployedConfigVersion: deployed } = listingFacts(
    before,
    prev?.restarts,
    next.worker.info.cribl.startTime,
    group,
  );
  // The written object is kept as it is whenever it already says the same (the usual case: no copy). Fleet-wide
  // strings are shared by the store's columns (src/store/node-table.ts), not here.
  if ((next.restarts ?? 0) === restarts && next.deployedConfigVersion === deployed) return next;
  const { deployedConfigVersion: _d, restarts: _r, ...rest } = next;
  return {
    ...rest,
    ...(restarts > 0 ? { restarts } : {}),
    ...(deployed === undefined ? {} : { deployedConfigVersion: deployed }),
  };
}

/** The renderers the store is given (src/store/snapshot.ts). */
export const SNAPSHOT_RENDERERS = {
  groups: renderGroups,
  leader: renderLeader,
  nodeWithFacts,
  listingFacts,
  sameNodeGroupFacts,
} as const;
