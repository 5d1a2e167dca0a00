/**
 * GET /products/{product}/workers (4.17+, paged) and GET /master/workers (earlier leaders): the node listing.
 * Its decoder keeps only what the node families below export, and the leader families say whether it worked.
 * Paging and the fallback to /master/workers live in src/discovery/.
 */
import * as z from 'zod';
import type { Product } from '../api/products.js';
import { ENDPOINTS, segment } from '../api/routes.js';
import {
  criblInfoSchema,
  nodeInfoSchema,
  nodeUpgradeStatusSchema,
  pageSchema,
  workerEntrySchema,
} from '../api/shapes.js';
import { series, volatile, type Family } from '../format/family.js';
import type { LeaderRequest } from '../leader/types.js';
import { Interner, StringInterner } from '../util/intern.js';
import { timeSlicer } from '../util/yield.js';
import { REQUEST_FAILURE_REASONS, requestFailureReason } from './failure-reason.js';
import { sameCommit } from './group-version.js';
import { asRecord, finite, gauge, q, gaugeFamily } from './sample.js';
import type { LeaderState, NodeState } from './state.js';

// The fields exported, and distMode (the product of a node on /master/workers). Everything else is dropped, which
// matters with 50,000 entries held between discoveries (measured: about 5 objects and 7 strings less per node).
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

/** The part of a listing entry the exporter keeps. */
export type ListedWorker = z.infer<typeof listedWorkerSchema>;

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

/**
 * Validates a page's entries, yielding to the event loop every few milliseconds: zod takes 10–20 µs per
 * entry, so a page of 1,000 in one go blocked the loop (and every scrape waiting on it) for 10–30 ms.
 */
export async function decodeWorkers(raw: readonly unknown[]): Promise<{ items: ListedWorker[]; malformed: number }> {
  const items: ListedWorker[] = [];
  let malformed = 0;
  const slice = timeSlicer(DECODE_SLICE_MS);
  for (const entry of raw) {
    const pause = slice();
    if (pause) await pause;
    const r = listedWorkerSchema.safeParse(entry);
    if (r.success) items.push(compactWorker(r.data));
    else malformed++;
  }
  return { items, malformed };
}

/** Group, status, platform, architecture, version: a few values shared by a whole fleet. */
const listingStrings = new StringInterner();
/** `info.cribl.config` objects by version: one per deployed version, not one per node. */
const configObjects = new Interner<{ version?: string }>();

/**
 * A listing entry as the store keeps it until the next listing: the same fields, rebuilt as one object literal
 * per level (zod adds properties one by one, which leaves most of them in out-of-object property arrays: 1.8 MB
 * per 10,000 nodes), its fleet-wide strings shared and its config object shared by version. Measured with a heap
 * snapshot at 10,000 nodes: about 1 KB of the 1.3 KB each node's listing facts took.
 */
export function compactWorker(w: ListedWorker): ListedWorker {
  const { info } = w;
  const { cribl } = info;
  const upgrade = w.nodeUpgradeStatus;
  const configVersion = cribl.config.version;
  const config = configObjects.get(configVersion ?? '\u0000', () =>
    Object.freeze(configVersion === undefined ? {} : { version: configVersion }),
  );
  return {
    id: w.id,
    group: listingStrings.intern(w.group),
    firstMsgTime: w.firstMsgTime,
    lastMsgTime: w.lastMsgTime,
    workerProcesses: w.workerProcesses,
    disconnected: w.disconnected,
    deployable: w.deployable,
    status: listingStrings.intern(w.status),
    nodeUpgradeStatus: upgrade && { state: upgrade.state, timestamp: upgrade.timestamp },
    info: {
      hostname: info.hostname,
      cpus: info.cpus,
      totalmem: info.totalmem,
      architecture: listingStrings.intern(info.architecture),
      platform: listingStrings.intern(info.platform),
      freeDiskSpace: info.freeDiskSpace,
      totalDiskSpace: info.totalDiskSpace,
      cribl: {
        version: listingStrings.intern(cribl.version),
        distMode: listingStrings.intern(cribl.distMode),
        startTime: cribl.startTime,
        config,
      },
    },
  };
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

/** The product a node belongs to when the leader only has the product-less /master/workers. */
export function productOfLegacy(w: ListedWorker): Product | undefined {
  switch (w.info.cribl.distMode) {
    case 'edge':
    case 'managed-edge':
      return 'edge';
    case 'worker':
      return 'stream';
    default:
      return undefined;
  }
}

/** Reads the listing entry defensively: decoders check the shape, but the data is remote. */
function parts(s: NodeState) {
  const w = asRecord(s.worker) ?? {};
  const info = asRecord(w.info) ?? {};
  const cribl = asRecord(info.cribl) ?? {};
  return { w, info, cribl, config: asRecord(cribl.config) ?? {} };
}

/** The config version the node runs: from the listing, else from its metadata. */
export function configVersion(s: NodeState): unknown {
  return parts(s).config.version ?? s.metadata?.item?.cribl?.config_version;
}

/** `nodeUpgradeStatus.state` 0–3, by name. */
const UPGRADE_STATES = ['active', 'current', 'failed', 'skipped'] as const;

/** The reported upgrade state (0–3), or undefined. */
function upgradeState(s: NodeState): number | undefined {
  const state = finite(asRecord(parts(s).w.nodeUpgradeStatus)?.state);
  return state !== undefined && state >= 0 && state < UPGRADE_STATES.length && Number.isInteger(state)
    ? state
    : undefined;
}

type NodeFamily = Family<NodeState>;
const listed = (name: string, what: string, read: (s: NodeState) => unknown, divisor = 1): NodeFamily =>
  gaugeFamily(name, 'listing', what, read, divisor);

/** Per-node families from the listing, in body order. */
export const LISTING_FAMILIES: readonly NodeFamily[] = [
  {
    name: 'cribl_node_info',
    source: 'listing',
    what: 'Node facts (value 1): hostname, Cribl version, platform and CPU architecture.',
    labels: ['hostname', 'version', 'platform', 'arch'],
    sample: (s, base) => {
      const { info, cribl } = parts(s);
      const extra =
        `hostname=${q(info.hostname)},version=${q(cribl.version)},` +
        `platform=${q(info.platform)},arch=${q(info.architecture)}`;
      return `${series('cribl_node_info', base, extra)} 1\n`;
    },
  },
  listed('cribl_node_connected', '0 when the leader reports the node disconnected, else 1.', (s) =>
    parts(s).w.disconnected === true ? 0 : 1,
  ),
  listed(
    'cribl_node_deployable',
    '1 when the node can receive config deployments; only where the leader reports it.',
    (s) => {
      const d = parts(s).w.deployable;
      return typeof d === 'boolean' ? (d ? 1 : 0) : undefined;
    },
  ),
  {
    name: 'cribl_node_config_info',
    source: 'listing',
    what:
      'Config bundle version the node runs (value 1; empty when unreported). Its label changes on every deploy: ' +
      'alert on cribl_node_config_outdated instead.',
    labels: ['config_version'],
    sample: (s, base) => `${series('cribl_node_config_info', base, `config_version=${q(configVersion(s))}`)} 1\n`,
  },
  listed(
    'cribl_node_first_heartbeat_timestamp_seconds',
    "Time of the node's first heartbeat to the leader.",
    (s) => parts(s).w.firstMsgTime,
    1000,
  ),
  volatile(
    listed(
      'cribl_node_last_heartbeat_timestamp_seconds',
      "Time of the node's latest heartbeat to the leader.",
      (s) => parts(s).w.lastMsgTime,
      1000,
    ),
  ),
  listed(
    'cribl_node_start_timestamp_seconds',
    'Start time of Cribl on the node.',
    (s) => parts(s).cribl.startTime,
    1000,
  ),
  listed('cribl_node_worker_processes', 'Worker processes the node runs.', (s) => parts(s).w.workerProcesses),
  listed('cribl_node_cpus', 'CPUs of the node.', (s) => parts(s).info.cpus),
  listed('cribl_node_memory_bytes', 'Total memory of the node.', (s) => parts(s).info.totalmem),
  volatile(
    listed(
      'cribl_node_disk_free_bytes',
      'Free disk space of the node; only where the leader reports disk.',
      (s) => parts(s).info.freeDiskSpace,
    ),
  ),
  listed(
    'cribl_node_disk_total_bytes',
    'Disk size of the node; only where the leader reports disk.',
    (s) => parts(s).info.totalDiskSpace,
  ),
  listed(
    'cribl_node_config_outdated',
    "1 when the node's config version differs from the configVersion its group has deployed, 0 when they name " +
      'the same commit (short and full hashes compared by prefix); absent when either is unknown.',
    (s) => {
      const running = configVersion(s);
      const deployed = s.deployedConfigVersion;
      if (typeof running !== 'string' || running === '' || !deployed) return undefined;
      return sameCommit(running, deployed) ? 0 : 1;
    },
  ),
  listed(
    'cribl_node_reported_healthy',
    "1 when the leader's listing reports the node healthy (status), 0 for any other status; absent when unreported.",
    (s) => {
      const status = parts(s).w.status;
      return typeof status === 'string' ? (status === 'healthy' ? 1 : 0) : undefined;
    },
  ),
  {
    name: 'cribl_node_restarts_total',
    type: 'counter',
    source: 'listing',
    what:
      'Restarts of the node seen since the exporter started: changes of its start time between listings (the first ' +
      'sighting is not one).',
    labels: [],
    sample: (s, base) => gauge('cribl_node_restarts_total', base, s.restarts ?? 0),
  },
  {
    name: 'cribl_node_upgrade_status',
    source: 'listing',
    what:
      'Edge upgrade state set (nodeUpgradeStatus): state is active, current, failed or skipped, the reported one 1 ' +
      'and the others 0; only on nodes that report it.',
    labels: ['state'],
    sample: (s, base) => {
      const reported = upgradeState(s);
      if (reported === undefined) return '';
      let lines = '';
      for (const [i, state] of UPGRADE_STATES.entries()) {
        lines += `${series('cribl_node_upgrade_status', base, `state="${state}"`)} ${i === reported ? 1 : 0}\n`;
      }
      return lines;
    },
  },
  listed(
    'cribl_node_upgrade_status_timestamp_seconds',
    "Time of the node's last upgrade state change (nodeUpgradeStatus); only on nodes that report it.",
    (s) => (upgradeState(s) === undefined ? undefined : asRecord(parts(s).w.nodeUpgradeStatus)?.timestamp),
    1000,
  ),
];

/** Leader families (whether the listing worked), in body order; nothing before the first discovery result. */
export const DISCOVERY_FAMILIES: readonly Family<LeaderState>[] = [
  {
    name: 'cribl_leader_up',
    source: 'discovery',
    what: '1 if the last discovery (node listing) succeeded, else 0.',
    labels: [],
    sample: (l, base) => (l.up === undefined ? '' : gauge('cribl_leader_up', base, l.up ? 1 : 0)),
  },
  gaugeFamily(
    'cribl_leader_last_discovery_timestamp_seconds',
    'discovery',
    'Time of the last successful discovery.',
    (l) => l.lastDiscoveryMs,
    1000,
  ),
  {
    name: 'cribl_leader_discovery_failure_info',
    source: 'discovery',
    what:
      `1 while the last discovery failed, with the reason (${REQUEST_FAILURE_REASONS.join(', ')}): ` +
      'unauthorized and forbidden are credentials, the others the leader or the way to it.',
    labels: ['reason'],
    sample: (l, base) =>
      l.up === false && l.failure !== undefined
        ? `${series('cribl_leader_discovery_failure_info', base, `reason=${q(requestFailureReason(l.failure))}`)} 1\n`
        : '',
  },
];
