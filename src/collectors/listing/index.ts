/**
 * GET /products/{product}/workers (4.17+, paged) and GET /master/workers (earlier leaders): the node listing, read by
 * every discovery (src/discovery/ pages it and falls back to /master/workers). Each node's entry is kept as one flat
 * object of the exported fields (facts of this collector), and the leader's facts say whether the listing worked.
 */
import * as z from 'zod';
import type { Product } from '@cribl-exporter/api/products';
import { ENDPOINTS, segment } from '@cribl-exporter/api/routes';
import {
  criblInfoSchema,
  nodeInfoSchema,
  nodeUpgradeStatusSchema,
  pageSchema,
  workerEntrySchema,
} from '@cribl-exporter/api/shapes';
import type { FailureReason } from '../../http/failure.js';
import type { LeaderRequest } from '../../leader/types.js';
import { timeSlicer } from '../../util/yield.js';
import {
  collector,
  discoveryFreshness,
  factsKey,
  groupKey,
  type GroupFamily,
  type NodeFamily,
  type NodeItem,
  type ScopeFamily,
} from '../collector.js';
import { REQUEST_FAILURE_REASONS, requestFailureReason } from '../failure-reason.js';
import { groupsFacts } from '../groups/index.js';
import { isCommitHash, sameCommit } from '../group-version/index.js';
import { metadataFacts } from '../node-metadata/index.js';
import { bit, failureInfo, gauge, gaugeOf, line, q, stateSet } from '../sample.js';
import { formatDuration } from '@cribl-exporter/api/duration';

export const NAME = 'listing';

// The fields exported, and distMode (the product of a node on /master/workers). Everything else is dropped.
const listedWorkerSchema = workerEntrySchema
  .pick({
    id: true,
    group: true,
    firstMsgTime: true,
    lastMsgTime: true,
    workerProcesses: true,
    disconnected: true,
    deployable: true,
  })
  .extend({
    // A value this exporter does not understand is treated as unreported, never as a reason to drop the node.
    status: z.string().optional().catch(undefined),
    nodeUpgradeStatus: nodeUpgradeStatusSchema.pick({ state: true, timestamp: true }).optional().catch(undefined),
    info: nodeInfoSchema
      .pick({
        hostname: true,
        cpus: true,
        totalmem: true,
        architecture: true,
        platform: true,
        freeDiskSpace: true,
        totalDiskSpace: true,
      })
      .extend({
        cribl: criblInfoSchema
          .pick({ version: true, distMode: true, startTime: true })
          .extend({ config: z.object({ version: z.string().optional() }).optional().default({}) }),
      }),
  });

/** `nodeUpgradeStatus.state` 0–3, by name. */
export const UPGRADE_STATES = ['active', 'current', 'failed', 'skipped'] as const;

/**
 * What the exporter keeps of a node's listing entry: one flat object with every key present (undefined where the
 * leader did not say).
 */
export interface ListedNode {
  readonly id: string;
  readonly group: string;
  readonly hostname: string | undefined;
  readonly version: string | undefined;
  readonly platform: string | undefined;
  readonly arch: string | undefined;
  /** info.cribl.distMode: the product of a node on /master/workers. */
  readonly distMode: string | undefined;
  readonly configVersion: string | undefined;
  readonly status: string | undefined;
  readonly firstMsgTime: number;
  readonly lastMsgTime: number;
  readonly startTime: number;
  readonly workerProcesses: number | undefined;
  readonly cpus: number;
  readonly totalmem: number;
  readonly freeDiskSpace: number | undefined;
  readonly totalDiskSpace: number | undefined;
  readonly disconnected: boolean | undefined;
  readonly deployable: boolean | undefined;
  /** nodeUpgradeStatus.state, 0–3 (UPGRADE_STATES), when reported and valid. */
  readonly upgradeState: number | undefined;
  readonly upgradeTimestamp: number | undefined;
  /** Changes of the start time seen since the node was first listed (the first sighting is not one). */
  readonly restarts: number;
}

export const listedNode = factsKey<ListedNode>(NAME);

/** One listing page as the client hands it over: the envelope checked, the entries not yet. */
export interface WorkerEnvelope {
  raw: unknown[];
  /** Entries the page held (valid or not), for paging. */
  received: number;
  totalCount?: number;
}

/** Checks a workers page's envelope; throws when it is wrong (a decode failure). */
export function decodeWorkerEnvelope(json: unknown): WorkerEnvelope {
  const page = pageSchema.parse(json);
  return {
    raw: page.items,
    received: page.items.length,
    ...(page.totalCount === undefined ? {} : { totalCount: page.totalCount }),
  };
}

/** Longest stretch of entry validation between two yields to the event loop. */
const DECODE_SLICE_MS = 4;

/** A listing entry as kept, or undefined when it is malformed (restarts are counted by `withRestarts`). */
export function decodeWorker(entry: unknown): ListedNode | undefined {
  const w = listedWorkerSchema.safeParse(entry).data;
  if (!w) return undefined;
  const { info } = w;
  const { cribl } = info;
  const state = w.nodeUpgradeStatus?.state;
  const upgradeState =
    state !== undefined && Number.isInteger(state) && state >= 0 && state < UPGRADE_STATES.length ? state : undefined;
  return {
    id: w.id,
    group: w.group,
    hostname: info.hostname,
    version: cribl.version,
    platform: info.platform,
    arch: info.architecture,
    distMode: cribl.distMode,
    configVersion: cribl.config.version,
    status: w.status,
    firstMsgTime: w.firstMsgTime,
    lastMsgTime: w.lastMsgTime,
    startTime: cribl.startTime,
    workerProcesses: w.workerProcesses,
    cpus: info.cpus,
    totalmem: info.totalmem,
    freeDiskSpace: info.freeDiskSpace,
    totalDiskSpace: info.totalDiskSpace,
    disconnected: w.disconnected,
    deployable: w.deployable,
    upgradeState,
    upgradeTimestamp: upgradeState === undefined ? undefined : w.nodeUpgradeStatus?.timestamp,
    restarts: 0,
  };
}

/**
 * Validates a page's entries, yielding to the event loop every few milliseconds: zod takes 10–20 µs per entry, so a
 * page of 1,000 in one go blocked the loop (and every scrape waiting on it) for 10–30 ms. Each entry is dropped from
 * `raw` once decoded, so that a page's parsed JSON does not outlive its decoding: kept across the yields, whole pages
 * were promoted to the old generation and the heap's peak grew with the listing's JSON (250,000 Edge entries of 4.8 KB:
 * a peak RSS of 1,446 MB in a second discovery, 782 MB when dropped; bench/memory-per-node.mjs --pad 4000).
 */
export async function decodeWorkers(raw: unknown[]): Promise<{ items: ListedNode[]; malformed: number }> {
  const items: ListedNode[] = [];
  let malformed = 0;
  const slice = timeSlicer(DECODE_SLICE_MS);
  for (let i = 0; i < raw.length; i++) {
    const pause = slice();
    if (pause) await pause;
    const n = decodeWorker(raw[i]);
    raw[i] = undefined;
    if (n) items.push(n);
    else malformed++;
  }
  return { items, malformed };
}

/** The entry as kept after `prev`: its restarts counted from a change of the start time. */
export function withRestarts(prev: ListedNode | undefined, next: ListedNode): ListedNode {
  const restarts = (prev?.restarts ?? 0) + (prev !== undefined && prev.startTime !== next.startTime ? 1 : 0);
  return restarts === next.restarts ? next : { ...next, restarts };
}

/** One page of GET /products/{product}/workers. */
export function workersPage(
  product: Product,
  limit: number,
  offset: number,
): Omit<LeaderRequest<WorkerEnvelope>, 'decode'> {
  return { endpoint: ENDPOINTS.workers, path: `/products/${segment(product)}/workers`, query: { limit, offset } };
}

/** One page of GET /master/workers (leaders before 4.17: every product at once). */
export function masterWorkersPage(limit: number, offset: number): Omit<LeaderRequest<WorkerEnvelope>, 'decode'> {
  return { endpoint: ENDPOINTS.masterWorkers, path: '/master/workers', query: { limit, offset } };
}

/** The product of a node by its distMode, when the leader only has the product-less /master/workers. */
const LEGACY_PRODUCTS = new Map<string | undefined, Product>([
  ['edge', 'edge'],
  ['managed-edge', 'edge'],
  ['worker', 'stream'],
]);
export const productOfLegacy = (n: ListedNode): Product | undefined => LEGACY_PRODUCTS.get(n.distMode);

/** The config version a node runs: from the listing, else from its metadata. */
export function runningConfigVersion(n: NodeItem): string | undefined {
  return listedNode.of(n)?.configVersion ?? metadataFacts.of(n)?.value?.cribl?.config_version;
}

/**
 * Whether a listed node runs another config than its group deployed (`deployed`, the group's configVersion);
 * undefined when either version is unknown or is not a commit hash (versions like 1.0.0 cannot be compared by
 * prefix; discovery logs them).
 */
export function configOutdated(n: NodeItem, deployed: string | undefined): boolean | undefined {
  const running = L(n) && runningConfigVersion(n);
  if (!running || !deployed || !isCommitHash(running) || !isCommitHash(deployed)) return undefined;
  return !sameCommit(running, deployed);
}

/** Whether the leader lists the node as disconnected. */
export function disconnected(n: NodeItem): boolean {
  return listedNode.of(n)?.disconnected === true;
}

/** What the exporter knows of the discoveries: whether the last one worked, when one last did, why it failed. */
export interface DiscoveryFacts {
  /** 1 if the last discovery succeeded. */
  up: boolean;
  /** Epoch ms of the last successful discovery. */
  lastDiscoveryMs?: number;
  /** Why the last discovery failed (absent while it works): a reason, the HTTP status if any, one line. */
  failure?: { reason: FailureReason; status?: number; message: string };
}

export const discoveryFacts = factsKey<DiscoveryFacts>(NAME);

const L = (n: NodeItem): ListedNode | undefined => listedNode.of(n);
/** A node gauge of one value of its listing entry; none while the node has no entry. */
function listedGauge(name: string, what: string, read: (l: ListedNode) => unknown, divisor = 1): NodeFamily {
  const value = (n: NodeItem): unknown => {
    const l = L(n);
    return l && read(l);
  };
  return gaugeOf(name, what, value, divisor);
}

const NODE_FAMILIES: readonly NodeFamily[] = [
  {
    name: 'cribl_node_info',
    detail: 'basic',
    what: 'Node facts (value 1): hostname, Cribl version, platform and CPU architecture.',
    labels: ['hostname', 'version', 'platform', 'arch'],
    sample: (n, base) => {
      const l = L(n);
      if (!l) return '';
      const extra = `hostname=${q(l.hostname)},version=${q(l.version)},platform=${q(l.platform)},arch=${q(l.arch)}`;
      return line('cribl_node_info', base, extra);
    },
  },
  {
    ...listedGauge('cribl_node_connected', '0 when the leader reports the node disconnected, else 1.', (l) =>
      bit(l.disconnected !== true),
    ),
    detail: 'basic',
  },
  listedGauge(
    'cribl_node_deployable',
    '1 when the node can receive config deployments; only where the leader reports it.',
    (l) => bit(l.deployable),
  ),
  {
    name: 'cribl_node_config_info',
    what:
      'Config bundle version the node runs (value 1; empty when unreported). Its label changes on every deploy: ' +
      'alert on cribl_node_config_outdated instead.',
    labels: ['config_version'],
    reads: [metadataFacts.collector],
    sample: (n, base) =>
      L(n) ? line('cribl_node_config_info', base, `config_version=${q(runningConfigVersion(n))}`) : '',
  },
  listedGauge(
    'cribl_node_first_heartbeat_timestamp_seconds',
    "Time of the node's first heartbeat to the leader.",
    (l) => l.firstMsgTime,
    1000,
  ),
  {
    ...listedGauge(
      'cribl_node_last_heartbeat_timestamp_seconds',
      "Time of the node's latest heartbeat to the leader.",
      (l) => l.lastMsgTime,
      1000,
    ),
    detail: 'basic',
  },
  listedGauge('cribl_node_start_timestamp_seconds', 'Start time of Cribl on the node.', (l) => l.startTime, 1000),
  listedGauge('cribl_node_worker_processes', 'Worker processes the node runs.', (l) => l.workerProcesses),
  listedGauge('cribl_node_cpus', 'CPUs of the node.', (l) => l.cpus),
  listedGauge('cribl_node_memory_bytes', 'Total memory of the node.', (l) => l.totalmem),
  listedGauge(
    'cribl_node_disk_free_bytes',
    'Free disk space of the node; only where the leader reports disk.',
    (l) => l.freeDiskSpace,
  ),
  listedGauge(
    'cribl_node_disk_total_bytes',
    'Disk size of the node; only where the leader reports disk.',
    (l) => l.totalDiskSpace,
  ),
  {
    name: 'cribl_node_config_outdated',
    what:
      "1 when the node's config version differs from the configVersion its group has deployed, 0 when they name " +
      'the same commit (short and full hashes compared by prefix); absent when either is unknown or is not a ' +
      'commit hash (hex, 7–40 characters).',
    labels: [],
    reads: [metadataFacts.collector, groupsFacts.collector],
    sample: (n, base, { group }) => {
      const outdated = configOutdated(n, groupsFacts.of(group)?.configVersion);
      return outdated === undefined ? '' : gauge('cribl_node_config_outdated', base, outdated ? 1 : 0);
    },
  },
  listedGauge(
    'cribl_node_reported_healthy',
    "1 when the leader's listing reports the node healthy (status), 0 for any other status; absent when unreported.",
    (l) => bit(l.status === undefined ? undefined : l.status === 'healthy'),
  ),
  {
    name: 'cribl_node_restarts_total',
    type: 'counter',
    what:
      'Restarts of the node seen since the exporter started: changes of its start time between listings (the first ' +
      'sighting is not one).',
    labels: [],
    sample: (n, base) => {
      const l = L(n);
      return l ? gauge('cribl_node_restarts_total', base, l.restarts) : '';
    },
  },
  {
    name: 'cribl_node_upgrade_status',
    what:
      'Edge upgrade state set (nodeUpgradeStatus): state is active, current, failed or skipped, the reported one 1 ' +
      'and the others 0; only on nodes that report it.',
    labels: ['state'],
    sample: (n, base) => {
      const state = L(n)?.upgradeState;
      return stateSet('cribl_node_upgrade_status', base, 'state', UPGRADE_STATES, UPGRADE_STATES[state ?? -1]);
    },
  },
  listedGauge(
    'cribl_node_upgrade_status_timestamp_seconds',
    "Time of the node's last upgrade state change (nodeUpgradeStatus); only on nodes that report it.",
    (l) => l.upgradeTimestamp,
    1000,
  ),
];

const LEADER_FAMILIES: readonly ScopeFamily[] = [
  // 0 from the start until a discovery has answered: a leader never reached reads as down, not as absent.
  gaugeOf(
    'cribl_leader_up',
    '1 if the last discovery (node listing) succeeded, else 0 (also before the first discovery has ended).',
    (l) => bit(discoveryFacts.of(l)?.up === true),
  ),
  gaugeOf(
    'cribl_leader_last_discovery_timestamp_seconds',
    'Time of the last successful discovery.',
    (l) => discoveryFacts.of(l)?.lastDiscoveryMs,
    1000,
  ),
  failureInfo(
    'cribl_leader_discovery_failure_info',
    `1 while the last discovery failed, with the reason (${REQUEST_FAILURE_REASONS.join(', ')}): ` +
      'unauthorized and forbidden are credentials, the others the leader or the way to it.',
    (l) => {
      const d = discoveryFacts.of(l);
      return d?.up === false && d.failure ? requestFailureReason(d.failure) : undefined;
    },
  ),
];

/**
 * What the listing keeps of a group, since the exporter started: nodes it dropped while they were disconnected, and
 * the restarts seen of the nodes this process no longer keeps (cribl_group_node_restarts_total stays monotonic when
 * nodes leave).
 */
export interface ListingGroupFacts {
  readonly removed: number;
  readonly restartsGone?: number;
}

export const listingGroupFacts = factsKey<ListingGroupFacts>(NAME);

/**
 * Adds to `counts` (by groupKey) the nodes known before a listing that are gone from it (not merely moved to another
 * shard or past --max-nodes: gone from the whole listing) and were disconnected when last listed: the leader aged
 * them out (maxWorkerAge) rather than a clean scale-down. Returns the groups that changed.
 */
export function countRemoved(
  counts: Map<string, number>,
  before: Iterable<NodeItem>,
  listed: { has(key: string): boolean },
): Set<string> {
  const changed = new Set<string>();
  for (const n of before) {
    if (listed.has(n.key) || !disconnected(n)) continue;
    const key = groupKey(n.ident.product, n.ident.group);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    changed.add(key);
  }
  return changed;
}

/**
 * Adds to `counts` (by groupKey) the restarts seen (ListedNode.restarts) of the nodes known before a discovery that it
 * no longer keeps in their group: gone from the listing, gone to another shard or past --max-nodes, or moved to
 * another group (whose count then has them too: each group's count only grows).
 */
export function countRestartsGone(
  counts: Map<string, number>,
  before: Iterable<NodeItem>,
  kept: ReadonlyMap<string, { readonly listed: { readonly group: string } }>,
): void {
  for (const n of before) {
    const restarts = listedNode.of(n)?.restarts ?? 0;
    if (restarts === 0 || kept.get(n.key)?.listed.group === n.ident.group) continue;
    const key = groupKey(n.ident.product, n.ident.group);
    counts.set(key, (counts.get(key) ?? 0) + restarts);
  }
}

const GROUP_FAMILIES: readonly GroupFamily[] = [
  {
    name: 'cribl_group_nodes_removed_total',
    type: 'counter',
    what:
      "Nodes that left the leader's listing while it listed them disconnected (aged out after maxWorkerAge), since " +
      'the exporter started; their own series go with them.',
    labels: [],
    sample: (g, base) => gauge('cribl_group_nodes_removed_total', base, listingGroupFacts.of(g)?.removed ?? 0),
  },
];

export const listing = collector({
  name: NAME,
  freshness: (_s, intervals, scope) =>
    scope === 'leader'
      ? discoveryFreshness(intervals)
      : `From the leader's node listing, refreshed every ${formatDuration(intervals.discoveryMs)}; cached in between.`,
  families: { leader: LEADER_FAMILIES, group: GROUP_FAMILIES, node: NODE_FAMILIES },
  schedule: { kind: 'listing' },
});
