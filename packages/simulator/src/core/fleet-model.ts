import type { NodeUpgradeStatus } from '@cribl-exporter/api/shapes';
import type { Product } from '@cribl-exporter/api/products';
import type { ConfigGroup, GitLogResult, WorkerEntry } from '@cribl-exporter/api/shapes';
import type { Random } from '@cribl-exporter/api/clock';
import { HOSTILE_IDS, UPGRADE_STATES } from './fleet-types.js';
import type { AddNodeOptions, NodeHealthMode, SimNode, UpgradeStatusInput } from './fleet-types.js';
import { pick, randomGuid, randomHex, randomInt } from './random.js';

/** Internal state of one node (the fleet and the server's hot paths read it directly). */
export interface NodeRec {
  id: string;
  product: Product;
  group: string;
  hostile: boolean;
  health: NodeHealthMode;
  /** Listing `status` set by hand; undefined follows `health`. */
  statusOverride?: string;
  disconnected: boolean;
  firstMsgTime: number;
  startTime: number;
  /** lastMsgTime frozen at disconnection, or while silent. */
  lastSeen: number;
  /** Connected, but its heartbeats stopped at `lastSeen` (Fleet.setSilent). */
  silent?: boolean;
  workerProcesses: number;
  hostname: string;
  platform: 'linux' | 'win32';
  architecture: 'x64' | 'arm64';
  release: string;
  cpus: number;
  totalmem: number;
  nodeVersion: string;
  env: Record<string, string>;
  criblVersion: string;
  configVersion: string;
  distMode: 'worker' | 'managed-edge';
  freeDiskSpace: number;
  totalDiskSpace: number;
  upgrade?: NodeUpgradeStatus;
  os: OsInfo;
  kube?: { namespace: string; pod: string };
  /** Cached JSON of the listing entry, split around the lastMsgTime value. */
  json?: [string, string];
}

interface OsInfo {
  id: string;
  name: string;
  version: string;
  versionId: string;
}

/** Internal state of one group / fleet. */
export interface GroupRec {
  id: string;
  product: Product;
  description?: string;
  /** Newest first; full 40-hex hashes. */
  commits: GitLogResult[];
  /** How many of the newest commits are not deployed: commits[undeployed] is the deployed one. */
  undeployed: number;
  incompatible: number;
  nodes: number;
  /** A deploy whose rollout to the nodes waits for the next churn tick. */
  pendingRollout: boolean;
  /** Sum of the workerProcesses of the group's connected nodes (the data-flow healthCounts total). */
  processes: number;
  /** `git.localChanges`: local configuration changes not committed. */
  localChanges: number;
  /** Config versions are `1.0.N` (N = the commit's position in the history) instead of short commit hashes. */
  semver: boolean;
}

export const STREAM_GROUPS = ['default', 'prod-east', 'prod-west'] as const;
export const STREAM_WEIGHTS = [5, 3, 2];
export const EDGE_FLEETS = ['default_fleet', 'retail-stores', 'factories'] as const;
export const EDGE_WEIGHTS = [4, 4, 2];
const GIB = 1024 ** 3;
// Shared by every node (never changed in place): two objects instead of one per node.
const NO_ENV: Record<string, string> = Object.freeze({});
const UTC_ENV: Record<string, string> = Object.freeze({ TZ: 'UTC', LANG: 'en_US.UTF-8' });
export const COMMIT_MESSAGES = [
  'Updated syslog pipeline configuration',
  'Added new HTTP Source',
  'Route firewall logs to S3',
  'Tune batching on Splunk destination',
  'Add lookup for asset owners',
  'Drop debug events at the edge',
];
const LINUX_OS: readonly OsInfo[] = [
  { id: 'ubuntu', name: 'Ubuntu', version: '22.04.4 LTS (Jammy Jellyfish)', versionId: '22.04' },
  { id: 'rhel', name: 'Red Hat Enterprise Linux', version: '9.4 (Plow)', versionId: '9.4' },
  { id: 'amzn', name: 'Amazon Linux', version: '2023', versionId: '2023' },
];
const LINUX_RELEASES = ['6.8.0-1013-aws', '5.15.0-1051-azure', '5.14.0-427.13.1.el9_4.x86_64'];
const WINDOWS_OS: OsInfo = {
  id: 'windows',
  name: 'Windows Server 2022 Datacenter',
  version: '10.0.20348',
  versionId: '2022',
};

/** Listing `status` for a health mode: what the node last reported to the leader. */
export function listingStatus(mode: NodeHealthMode): string {
  switch (mode) {
    case 'healthy':
    case 'slow':
      return 'healthy';
    case 'unreachable':
      return 'unhealthy';
    default:
      return mode;
  }
}

/** "4.19" → [4, 19, 0]. */
export function parseVersion(v: string): [number, number, number] {
  const [a = 0, b = 0, c = 0] = v.split('.').map((x) => Number.parseInt(x, 10) || 0);
  return [a, b, c];
}

/** True when version `v` is at least `min` (both as [major, minor, patch]). */
export function versionAtLeast(v: readonly number[], min: readonly number[]): boolean {
  for (let i = 0; i < 3; i++) {
    const a = v[i] ?? 0;
    const b = min[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

/** The `date` format of GitLogResult in the official example: `2024-01-15 10:30:00 +0000`. */
export function gitDate(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' +0000');
}

/** A commit at `ms` (the caller fixes `refs`). */
export function newCommit(random: Random, ms: number, message: string): GitLogResult {
  return {
    hash: randomHex(random, 40),
    date: gitDate(ms),
    message,
    body: '',
    refs: 'HEAD -> master',
    author_name: 'Admin User',
    author_email: 'admin@example.com',
  };
}

/**
 * The config version of the group's commit at `index` (0 = newest): its 7-character short hash, or `1.0.N` (N = 0
 * for the oldest commit) for a leader that reports versions that way.
 */
export function versionAt(g: GroupRec, index: number): string | undefined {
  const c = g.commits[index];
  if (!c) return undefined;
  return g.semver ? `1.0.${g.commits.length - 1 - index}` : (c.hash ?? '0000000').slice(0, 7);
}

/** The group's deployed config version (see versionAt). */
export function deployedVersion(g: GroupRec): string {
  return versionAt(g, g.undeployed) ?? '0000000';
}

/** Generates a node of a known group; draws from `r` in a fixed order (fleets repeat from their seed). */
export function generateNode(
  r: Random,
  g: GroupRec,
  seq: number,
  leaderVersion: readonly [number, number, number],
  opts: AddNodeOptions,
  firstMsgTime: number,
): NodeRec {
  const product = g.product;
  const group = g.id;
  const edge = product === 'edge';
  const platform = edge && r() < 0.15 ? 'win32' : 'linux';
  const cpus = pick(r, edge ? [2, 4, 8] : [4, 8, 16, 32]);
  const kube = !edge && platform === 'linux' && r() < 0.3;
  const hostname =
    opts.hostname ??
    (kube
      ? `cribl-worker-${group}-${randomHex(r, 5)}`
      : `${edge ? 'edge' : 'stream'}-${group}-${String(seq).padStart(3, '0')}`);
  const totalDiskSpace = pick(r, [50, 100, 200, 500]) * GIB;
  const [maj, min, patch] = leaderVersion;
  const current = `${maj}.${min}.${patch}`;
  const older = patch > 0 ? `${maj}.${min}.${patch - 1}` : `${maj}.${Math.max(0, min - 1)}.2`;
  const id = opts.id ?? randomGuid(r);
  const rec: NodeRec = {
    id,
    product,
    group,
    hostile: opts.id !== undefined && HOSTILE_IDS.includes(opts.id),
    health: opts.health ?? 'healthy',
    disconnected: false,
    firstMsgTime,
    startTime: firstMsgTime - randomInt(r, 500, 5_000),
    lastSeen: firstMsgTime,
    workerProcesses: edge ? 1 : Math.max(1, cpus - 2),
    hostname,
    platform,
    architecture: platform === 'linux' && r() < 0.2 ? 'arm64' : 'x64',
    release: platform === 'win32' ? '10.0.20348' : pick(r, LINUX_RELEASES),
    cpus,
    totalmem: cpus * 4 * GIB,
    nodeVersion: min >= 17 ? 'v22.17.1' : 'v20.18.1',
    env: r() < 0.5 ? NO_ENV : UTC_ENV,
    criblVersion: r() < 0.9 ? current : older,
    configVersion: deployedVersion(g),
    distMode: edge ? 'managed-edge' : 'worker',
    freeDiskSpace: Math.round(totalDiskSpace * (0.1 + 0.8 * r())),
    totalDiskSpace,
    os: platform === 'win32' ? WINDOWS_OS : pick(r, LINUX_OS),
  };
  if (edge) rec.upgrade = { state: r() < 0.05 ? 2 : 1, timestamp: firstMsgTime };
  if (kube) rec.kube = { namespace: 'cribl', pod: hostname };
  if (opts.disconnected) rec.disconnected = true;
  return rec;
}

/**
 * Listing entry JSON split around the lastMsgTime value (which changes with every heartbeat). Leaders before 4.17
 * also send `info.cribl.tags` (required by the 4.15.1 spec).
 */
export function renderEntry(rec: NodeRec, legacy: boolean): [string, string] {
  const head = JSON.stringify({ id: rec.id, group: rec.group, firstMsgTime: rec.firstMsgTime });
  const rest: Omit<WorkerEntry, 'id' | 'group' | 'firstMsgTime' | 'lastMsgTime'> = {
    workerProcesses: rec.workerProcesses,
    status: rec.statusOverride ?? listingStatus(rec.health),
    disconnected: rec.disconnected,
    deployable: !rec.disconnected,
    info: {
      hostname: rec.hostname,
      platform: rec.platform,
      architecture: rec.architecture,
      release: rec.release,
      cpus: rec.cpus,
      totalmem: rec.totalmem,
      node: rec.nodeVersion,
      env: rec.env,
      cribl: {
        version: rec.criblVersion,
        config: { version: rec.configVersion },
        distMode: rec.distMode,
        group: rec.group,
        guid: rec.id,
        startTime: rec.startTime,
        ...(legacy ? { tags: [] } : {}),
      },
      freeDiskSpace: rec.freeDiskSpace,
      totalDiskSpace: rec.totalDiskSpace,
    },
  };
  if (rec.upgrade) rest.nodeUpgradeStatus = rec.upgrade;
  return [`${head.slice(0, -1)},"lastMsgTime":`, `,${JSON.stringify(rest).slice(1)}`];
}

/** GET /w/{id}/edge/metadata item JSON after its `timestamp` (snake_case). */
export function renderMetadataTail(rec: NodeRec): string {
  const win = rec.platform === 'win32';
  const meta: Record<string, unknown> = {
    cribl: {
      mode: rec.distMode,
      version: rec.criblVersion,
      config_version: rec.configVersion,
      group: rec.group,
      install_type: rec.kube ? 'kubernetes' : 'standalone',
      tags: [],
    },
    os: {
      arch: rec.architecture,
      cpu_count: rec.cpus,
      cpu_speed_mhz: 2400,
      cpu_type: rec.architecture === 'arm64' ? 'Neoverse-N1' : 'Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz',
      gid: win ? -1 : 0,
      homedir: win ? 'C:\\Users\\cribl' : '/opt/cribl',
      hostname: rec.hostname,
      interfaces: {},
      machine_id: rec.id
        .replace(/[^0-9a-f]/g, '')
        .padEnd(32, '0')
        .slice(0, 32),
      memory: rec.totalmem,
      os_id: rec.os.id,
      os_name: rec.os.name,
      os_version: rec.os.version,
      os_version_id: rec.os.versionId,
      platform: rec.platform,
      release: rec.release,
      timezone: 'UTC',
      timezone_offset: '+00:00',
      uid: win ? -1 : 0,
      username: win ? 'cribl' : 'root',
    },
    env: {},
  };
  if (rec.kube) meta.kube = { namespace: rec.kube.namespace, source: 'kubernetes', pod: { name: rec.kube.pod } };
  return JSON.stringify(meta).slice(1);
}

/** The ConfigGroup entry of a group (field order as real leaders send it). */
export function groupEntry(g: GroupRec, deploying: number): ConfigGroup {
  const entry: ConfigGroup = { id: g.id, name: g.id };
  if (g.description) entry.description = g.description;
  entry.type = g.product;
  entry.configVersion = deployedVersion(g);
  entry.workerCount = g.nodes;
  entry.incompatibleWorkerCount = g.incompatible;
  entry.deployingWorkerCount = deploying;
  entry.onPrem = true;
  entry.workerRemoteAccess = true;
  if (g.product === 'edge') {
    entry.isFleet = true;
    if (g.id !== 'default_fleet') entry.inherits = 'default_fleet';
  }
  entry.lookupDeployments = [];
  return entry;
}

/** The read-only view of a node that tests and the admin endpoint get. */
export class NodeView implements SimNode {
  readonly #rec: NodeRec;
  readonly #json: (rec: NodeRec) => string;
  readonly #lastMsgTime: (rec: NodeRec) => number;
  constructor(rec: NodeRec, json: (rec: NodeRec) => string, lastMsgTime: (rec: NodeRec) => number) {
    this.#rec = rec;
    this.#json = json;
    this.#lastMsgTime = lastMsgTime;
  }
  get id(): string {
    return this.#rec.id;
  }
  get product(): Product {
    return this.#rec.product;
  }
  get group(): string {
    return this.#rec.group;
  }
  get health(): NodeHealthMode {
    return this.#rec.health;
  }
  get listingStatus(): string {
    return this.#rec.statusOverride ?? listingStatus(this.#rec.health);
  }
  get disconnected(): boolean {
    return this.#rec.disconnected;
  }
  get configVersion(): string {
    return this.#rec.configVersion;
  }
  get startTime(): number {
    return this.#rec.startTime;
  }
  get hostname(): string {
    return this.#rec.hostname;
  }
  get hostile(): boolean {
    return this.#rec.hostile;
  }
  get upgrade(): NodeUpgradeStatus | undefined {
    return this.#rec.upgrade && { ...this.#rec.upgrade };
  }
  get criblVersion(): string {
    return this.#rec.criblVersion;
  }
  get lastMsgTime(): number {
    return this.#lastMsgTime(this.#rec);
  }
  get silent(): boolean {
    return this.#rec.silent === true && !this.#rec.disconnected;
  }
  get entry(): WorkerEntry {
    return JSON.parse(this.#json(this.#rec)) as WorkerEntry;
  }
}

/**
 * The `git` object of a group for `?fields=git.commit,git.localChanges,git.log`; `localChanges` undefined leaves
 * that key out (a leader that omits it when the tree is clean).
 */
export function gitFields(
  commits: readonly GitLogResult[],
  fields: ReadonlySet<string>,
  localChanges: number | undefined,
): NonNullable<ConfigGroup['git']> {
  const head = commits[0];
  const git: NonNullable<ConfigGroup['git']> = {};
  if (fields.has('git.commit') && head?.hash) git.commit = head.hash;
  if (fields.has('git.localChanges') && localChanges !== undefined) git.localChanges = localChanges;
  if (fields.has('git.log')) {
    git.log = commits.map((c) => ({
      date: c.date ?? '',
      hash: c.hash ?? '',
      message: c.message ?? '',
      short: (c.hash ?? '').slice(0, 7),
      author_email: c.author_email,
      author_name: c.author_name,
    }));
  }
  return git;
}

/** A `nodeUpgradeStatus` from a control's input (state by number or name, reason code checked against the state). */
export function upgradeStatus(input: UpgradeStatusInput, now: number): NodeUpgradeStatus {
  const state = typeof input.state === 'number' ? input.state : (UPGRADE_STATES.indexOf(input.state) as 0 | 1 | 2 | 3);
  if (![0, 1, 2, 3].includes(state)) throw new Error(`upgrade state must be 0..3 or ${UPGRADE_STATES.join('|')}`);
  const out: NodeUpgradeStatus = { state, timestamp: input.timestamp ?? now };
  const reason = input.reason;
  if (reason === undefined || state === 1) return out;
  const max = state === 0 ? 2 : state === 2 ? 1 : 3;
  if (!Number.isInteger(reason) || reason < 0 || reason > max) {
    throw new Error(`upgrade reason for state ${state} must be 0..${max}`);
  }
  if (state === 0) out.active = reason as 0 | 1 | 2;
  else if (state === 2) out.failed = reason as 0 | 1;
  else out.skipped = reason as 0 | 1 | 2 | 3;
  return out;
}
