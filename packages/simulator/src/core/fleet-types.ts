import type { NodeUpgradeStatus } from '@cribl-exporter/api/shapes';
import type { Product } from '@cribl-exporter/api/products';
import type { ConfigGroup, GitLogResult, WorkerEntry } from '@cribl-exporter/api/shapes';
import type { Clock, Random } from '@cribl-exporter/api/clock';

/** A node's own behaviour when the leader proxies a request to it. */
export type NodeHealthMode = 'healthy' | 'shutting down' | 'standby' | 'unreachable' | 'slow';

/** Every node health mode. */
export const NODE_HEALTH_MODES: readonly NodeHealthMode[] = [
  'healthy',
  'shutting down',
  'standby',
  'unreachable',
  'slow',
];

/** How config versions look: 7-character short commit hashes, or `1.0.N` (the spec's own example style). */
export type ConfigVersionStyle = 'hash' | 'semver';

/** The leader's own state: anything but 'healthy' makes the whole control plane answer 420. */
export type SimLeaderState = 'healthy' | 'standby' | 'shutting down';

/** Nodes heartbeat this often; a connected node's lastMsgTime is its latest heartbeat tick. */
export const HEARTBEAT_PERIOD_MS = 10_000;

/** Names of the Edge upgrade states (`nodeUpgradeStatus.state` 0…3). */
export const UPGRADE_STATES = ['active', 'current', 'failed', 'skipped'] as const;

/** One Edge upgrade state by name. */
export type UpgradeStateName = (typeof UPGRADE_STATES)[number];

/**
 * Ids that break naive code: path separators, percent signs, dot segments, quotes, backslashes, control
 * characters, non-ASCII. The same string is used as the node's hostname, to exercise label escaping.
 */
export const HOSTILE_IDS: readonly string[] = [
  'slash/inside',
  '100%-percent',
  '%2F-looks-encoded',
  '..',
  '.',
  'dots/../up',
  'quote"double',
  "quote'single",
  'back\\slash',
  'new\nline',
  'tab\tand space',
  'ünïcödé-节点-🚀',
  '?query=1&x#frag',
  '{braces}=[brackets];semi',
];

/** One simulated node, as tests and the admin endpoint see it. */
export interface SimNode {
  readonly id: string;
  readonly product: Product;
  readonly group: string;
  /** The node's own health behaviour (what /w/{id}/health answers). */
  readonly health: NodeHealthMode;
  /** The listing's `status` field (follows `health` unless set with setListingStatus). */
  readonly listingStatus: string;
  readonly disconnected: boolean;
  /** Config bundle version the node runs (info.cribl.config.version): a 7-character short hash, or `1.0.N`. */
  readonly configVersion: string;
  /** info.cribl.startTime (epoch ms); also the `startTime` of its /health. */
  readonly startTime: number;
  /** info.hostname. */
  readonly hostname: string;
  /** True for nodes added with a hostile id. */
  readonly hostile: boolean;
  /** Edge nodes only: `nodeUpgradeStatus`. */
  readonly upgrade: NodeUpgradeStatus | undefined;
  /** info.cribl.version: the Cribl version the node runs. */
  readonly criblVersion: string;
  /** The listing's `lastMsgTime` now (epoch ms). */
  readonly lastMsgTime: number;
  /** Connected but not heard from: its lastMsgTime is frozen (setSilent) while `disconnected` stays false. */
  readonly silent: boolean;
  /** The entry the workers listing would serve right now (parsed from the exact wire JSON). */
  readonly entry: WorkerEntry;
}

/** Options of Fleet.addNode; everything else is generated from the fleet's seed. */
export interface AddNodeOptions {
  product?: Product;
  /** Group / fleet id; created when it does not exist yet. */
  group?: string;
  id?: string;
  hostname?: string;
  health?: NodeHealthMode;
  disconnected?: boolean;
}

/** Options of Fleet.deployGroup. */
export interface DeployOptions {
  /** Message of the new commit. */
  message?: string;
  /** false: nodes keep their version until the next churn tick (they count as deploying). @default true */
  rollout?: boolean;
  /** false: deploy the newest existing commit (the undeployed ones) instead of committing a new one. @default true */
  commit?: boolean;
}

/** An Edge upgrade state to set: by number or name, with an optional reason code and timestamp. */
export interface UpgradeStatusInput {
  state: 0 | 1 | 2 | 3 | UpgradeStateName;
  /** Reason code: `active` for state 0, `failed` for 2, `skipped` for 3 (see NodeUpgradeStatus). */
  reason?: number;
  /** @default now */
  timestamp?: number;
}

/** The simulated fleet: the truth behind every answer, and the controls that change it. */
export interface Fleet {
  /** Every node, in listing order. */
  nodes(): readonly SimNode[];
  /** One node, or undefined. */
  node(id: string): SimNode | undefined;
  /** Number of nodes, of one product or all. */
  size(product?: Product): number;
  /** Adds a node (a "join"); throws when the id exists or the group belongs to the other product. */
  addNode(opts?: AddNodeOptions): SimNode;
  /** Adds one node per HOSTILE_IDS entry not yet present (group `default`, or the edge default fleet). */
  addHostileNodes(product?: Product): SimNode[];
  /** Removes a node (a "leave"); false when unknown. */
  removeNode(id: string): boolean;
  /** Sets what the node answers to proxied requests; the listing's `status` follows. Throws on unknown ids. */
  setHealth(id: string, mode: NodeHealthMode): void;
  /** Overrides the listing's `status` (any string, e.g. "degraded"); null follows the health mode again. */
  setListingStatus(id: string, status: string | null): void;
  /** Disconnects (lastMsgTime freezes, proxied requests get 502) or reconnects a node. */
  setDisconnected(id: string, disconnected: boolean): void;
  /** Restarts a node: startTime (listing and /health) and firstMsgTime become now, and it reconnects. */
  restart(id: string): void;
  /** Sets the config version the node runs. */
  setConfigVersion(id: string, version: string): void;
  /** Sets the Cribl version the node runs (info.cribl.version, and `cribl.version` of its metadata). */
  setCriblVersion(id: string, version: string): void;
  /**
   * Silences a node: its lastMsgTime freezes at `lastMsgTime` (epoch ms) while the leader still lists it connected
   * (heartbeats lost, the connection not yet given up); null makes it heartbeat again. Reconnecting or restarting
   * it ends the silence too.
   */
  setSilent(id: string, lastMsgTime: number | null): void;
  /**
   * Config drift: the node runs the short hash of the commit `behind` commits older than its group's deployed one
   * (default 1). Returns that version; throws when the group's history is not that long.
   */
  drift(id: string, behind?: number): string;
  /** Edge nodes: sets `nodeUpgradeStatus` (null removes it). Throws for Stream nodes. */
  setUpgradeStatus(id: string, status: UpgradeStatusInput | null): void;
  /** Groups / fleets of a product, as GET /products/{product}/groups serves them (without `git`). */
  groups(product: Product): readonly ConfigGroup[];
  /** Sets a group's `incompatibleWorkerCount`. */
  setIncompatibleWorkerCount(groupId: string, count: number): void;
  /** Commits a new config version without deploying it (an undeployed commit); returns its full hash. */
  commitGroup(groupId: string, opts?: { message?: string }): string;
  /** Deploys: by default commits a new version and deploys it; returns the deployed short hash (configVersion). */
  deployGroup(groupId: string, opts?: DeployOptions): string;
  /** Commits newer than the deployed configVersion; undefined for unknown groups. */
  undeployedCommits(groupId: string): number | undefined;
  /** Commit history of a group, newest first (full hashes); undefined for unknown groups. */
  commits(groupId: string): readonly GitLogResult[] | undefined;
  /** The config version of a group's commit at `index` (0 = newest; see ConfigVersionStyle); undefined if none. */
  versionAt(groupId: string, index: number): string | undefined;
  /** Switches every group and node between short-hash and `1.0.N` config versions (nodes keep their commit). */
  setConfigVersionStyle(style: ConfigVersionStyle): void;
  configVersionStyle(): ConfigVersionStyle;
  /** Sets a group's `git.localChanges` (uncommitted changes; scenario windows come on top). */
  setLocalChanges(groupId: string, count: number): void;
  localChanges(groupId: string): number | undefined;
  /** Makes the whole control plane answer 420 ('standby' / 'shutting down') or brings it back ('healthy'). */
  setLeaderState(state: SimLeaderState): void;
  /** The state set with setLeaderState (scenario windows aside). */
  leaderState(): SimLeaderState;
}

/** Settings of a fleet. */
export interface FleetOptions {
  nodes: number;
  leaderVersion: string;
  clock: Clock;
  random: Random;
  /** Worker groups: `default`, `prod-east`, `prod-west`, then `group-4`, … @default 3 */
  streamGroups?: number;
  /** Edge fleets: `default_fleet`, `retail-stores`, `factories`, then `fleet-4`, … @default 3 */
  edgeFleets?: number;
  /** @default 'hash' */
  configVersions?: ConfigVersionStyle;
  /** Share of the generated nodes that are Edge nodes (the first two nodes are one of each). @default 0.35 */
  edgeShare?: number;
  /**
   * How nodes spread over the groups of a product beyond its three default ones: `even`, or `varied` (the i-th group
   * weighs 1/i, so a few large fleets and a long tail of small ones). @default 'even'
   */
  groupSizes?: GroupSizes;
}

/** How nodes spread over the groups of a product (FleetOptions.groupSizes). */
export type GroupSizes = 'even' | 'varied';
