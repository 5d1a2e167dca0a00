/**
 * The per-group counts of the fleet collector: what every node detail level exports of a group's nodes, counted from
 * the store's nodes at a discovery (their listing entry and their last health poll). Pure: table-tested.
 */
import { groupKey, type GroupItem, type NodeItem } from '../collector.js';
import { HEARTBEAT_MS, SILENT_HEARTBEATS } from '../detail.js';
import { groupsFacts } from '../groups/index.js';
import { configOutdated, listedNode, listingGroupFacts, UPGRADE_STATES } from '../listing/index.js';
import { HEALTH_LABELS, healthFacts } from '../node-health/index.js';

/** The listing's states of a node. */
export const NODE_STATES = ['connected', 'disconnected'] as const;

/**
 * A node's health by its last poll: the answered status, `unreachable` when the last poll failed, `unknown` before
 * any poll ended.
 */
export const FLEET_HEALTH = ['healthy', 'shutting_down', 'standby', 'unreachable', 'unknown'] as const;
export type FleetHealth = (typeof FLEET_HEALTH)[number];

/**
 * Distinct Cribl versions counted per group; the nodes of any further version are counted under `other` (a
 * fleet runs a few versions; the bound keeps the label's values bounded whatever the leader reports).
 */
export const MAX_VERSIONS = 50;
export const OTHER_VERSION = 'other';

/** What the fleet collector keeps of a group: its nodes counted at the last discovery. */
export interface GroupFleet {
  /** By NODE_STATES. */
  readonly state: readonly number[];
  /** By FLEET_HEALTH. */
  readonly health: readonly number[];
  /** Nodes by Cribl version ('' when unreported), in version order. */
  readonly versions: readonly (readonly [version: string, nodes: number])[];
  readonly configOutdated: number;
  readonly silent: number;
  /** Restarts seen across the group's nodes since the exporter started, those of nodes gone included. */
  readonly restarts: number;
  /** By UPGRADE_STATES (nodes that report an upgrade state). */
  readonly upgrade: readonly number[];
}

/** A node's health as FLEET_HEALTH counts it. */
export function fleetHealth(n: NodeItem): FleetHealth {
  const h = healthFacts.of(n);
  if (!h) return 'unknown';
  if (!h.up) return 'unreachable';
  return h.status === undefined ? 'unknown' : (HEALTH_LABELS[h.status] as FleetHealth);
}

/** Whether a connected node's last heartbeat is older than SILENT_HEARTBEATS of its product's periods. */
export function silent(n: NodeItem, nowMs: number): boolean {
  const l = listedNode.of(n);
  return (
    l !== undefined &&
    l.disconnected !== true &&
    nowMs - l.lastMsgTime > SILENT_HEARTBEATS * HEARTBEAT_MS[n.ident.product]
  );
}

interface Counting {
  state: number[];
  health: number[];
  versions: Map<string, number>;
  configOutdated: number;
  silent: number;
  restarts: number;
  upgrade: number[];
}

const counting = (group: GroupItem | undefined): Counting => ({
  state: NODE_STATES.map(() => 0),
  health: FLEET_HEALTH.map(() => 0),
  versions: new Map(),
  configOutdated: 0,
  silent: 0,
  restarts: listingGroupFacts.of(group)?.restartsGone ?? 0,
  upgrade: UPGRADE_STATES.map(() => 0),
});

function add(c: Counting, n: NodeItem, group: GroupItem | undefined, nowMs: number): void {
  const l = listedNode.of(n);
  if (!l) return;
  c.state[l.disconnected === true ? 1 : 0]!++;
  c.health[FLEET_HEALTH.indexOf(fleetHealth(n))]!++;
  let version = l.version ?? '';
  if (!c.versions.has(version) && c.versions.size >= MAX_VERSIONS) version = OTHER_VERSION;
  c.versions.set(version, (c.versions.get(version) ?? 0) + 1);
  if (configOutdated(n, groupsFacts.of(group)?.configVersion) === true) c.configOutdated++;
  if (silent(n, nowMs)) c.silent++;
  c.restarts += l.restarts;
  if (l.upgradeState !== undefined) c.upgrade[l.upgradeState]!++;
}

/**
 * Every group's counts (by groupKey): the groups given (those without nodes count zeros), from the nodes `add`ed (a
 * node of a group not given is not counted: its group is not exported).
 */
export class FleetCounter {
  readonly #byKey = new Map<string, { group: GroupItem; c: Counting }>();
  readonly #nowMs: number;

  constructor(groups: readonly GroupItem[], nowMs: number) {
    this.#nowMs = nowMs;
    for (const g of groups) this.#byKey.set(groupKey(g.product, g.id), { group: g, c: counting(g) });
  }

  add(n: NodeItem): void {
    const at = this.#byKey.get(groupKey(n.ident.product, n.ident.group));
    if (at) add(at.c, n, at.group, this.#nowMs);
  }

  result(): Map<string, GroupFleet> {
    const out = new Map<string, GroupFleet>();
    for (const [key, { c }] of this.#byKey) {
      const versions = [...c.versions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      out.set(key, { ...c, versions });
    }
    return out;
  }
}

/** FleetCounter over `nodes` at once. */
export function aggregate(
  nodes: readonly NodeItem[],
  groups: readonly GroupItem[],
  nowMs: number,
): Map<string, GroupFleet> {
  const counter = new FleetCounter(groups, nowMs);
  for (const n of nodes) counter.add(n);
  return counter.result();
}
