/**
 * Response shapes of the Cribl control-plane API, as real leaders send them
 * (shared/research/api-shapes.md: spec 4.19, 4.15.1-full, official SDKs).
 * Shared by the exporter's decoders and by the simulated leader. Only the fields we
 * read or serve are typed; real leaders may send more.
 */

export type Product = 'stream' | 'edge';
export const PRODUCTS: readonly Product[] = ['stream', 'edge'];

/** `info.cribl` (HBCriblInfo). `version` is optional on real leaders. */
export interface HBCriblInfo {
  version?: string;
  config: { version?: string };
  distMode: 'edge' | 'managed-edge' | 'master' | 'outpost' | 'search-supervisor' | 'single' | 'worker';
  group: string;
  guid: string;
  startTime: number; // epoch ms
}

/** `info` (NodeProvidedInfo). There is no `freemem` on real leaders. */
export interface NodeProvidedInfo {
  hostname: string;
  cpus: number;
  totalmem: number; // bytes
  architecture: string;
  platform: string;
  release: string;
  node: string; // Node.js version of the node, e.g. v22.17.1
  /** Always sent by real leaders; optional here because the exporter drops it after decoding (memory). */
  env?: Record<string, string>;
  cribl: HBCriblInfo;
  freeDiskSpace?: number; // bytes
  totalDiskSpace?: number; // bytes
}

/** Edge only: `nodeUpgradeStatus`. */
export interface NodeUpgradeStatus {
  state: 0 | 1 | 2 | 3; // 0 Active, 1 Current, 2 Failed, 3 Skipped
  timestamp: number; // epoch ms
}

/** One item of GET /products/{product}/workers (MasterWorkerEntry). */
export interface WorkerEntry {
  id: string;
  group: string;
  firstMsgTime: number; // epoch ms
  lastMsgTime: number; // epoch ms
  workerProcesses: number;
  info: NodeProvidedInfo;
  status?: string; // "healthy" or another string; no enum
  disconnected?: boolean;
  deployable?: boolean;
  nodeUpgradeStatus?: NodeUpgradeStatus;
}

/**
 * The part of a WorkerEntry the exporter keeps: what it exports, plus distMode (the product of a node on
 * /master/workers). Decoders drop the rest, which matters with 50,000 entries held between discoveries.
 */
export type ListedWorker = Pick<WorkerEntry, 'id' | 'group' | 'firstMsgTime' | 'lastMsgTime' | 'workerProcesses' | 'disconnected' | 'deployable'> & {
  info: Pick<NodeProvidedInfo, 'hostname' | 'cpus' | 'totalmem' | 'architecture' | 'platform' | 'freeDiskSpace' | 'totalDiskSpace'> & {
    cribl: Pick<HBCriblInfo, 'version' | 'distMode' | 'startTime'> & { config: { version?: string } };
  };
};

/** Envelope of paginated lists (4.17+); `/master/workers` sends only `{count, items}`. */
export interface Paginated<T> {
  items: T[];
  count: number;
  offset?: number;
  limit?: number;
  totalCount?: number;
}

/** One item of GET /products/{product}/groups (ConfigGroup); only `id` is required. */
export interface ConfigGroup {
  id: string;
  name?: string;
  description?: string;
  type?: 'edge' | 'lake_access' | 'local_search' | 'outpost' | 'search' | 'stream';
  configVersion?: string;
  workerCount?: number;
  incompatibleWorkerCount?: number;
  deployingWorkerCount?: number;
  onPrem?: boolean;
  isFleet?: boolean;
  inherits?: string;
  provisioned?: boolean;
  workerRemoteAccess?: boolean;
  lookupDeployments?: { context: string; lookups: { file: string; version?: string; deployedVersion?: string }[] }[];
  git?: { commit?: string; localChanges?: number; log?: { date: string; hash: string; message: string; short: string }[] };
}

/** GET /health and GET /w/{nodeId}/health (HealthServerStatus); 200 or 420 with this body. */
export type HealthStatus = 'healthy' | 'shutting down' | 'standby';
export interface HealthServerStatus {
  status: HealthStatus;
  startTime: number; // epoch ms
  role?: 'primary' | 'standby';
  isCaptain?: boolean;
  overlay?: { state: 'active' | 'inactive' };
}

/** GET /w/{nodeId}/edge/metadata → `{count, items:[Metadata]}`; snake_case inside `cribl` and `os`. */
export interface EdgeMetadata {
  timestamp: number;
  cribl?: { mode: string; version: string; config_version?: string; group?: string; install_type?: string; tags?: string[] };
  os?: {
    arch: string;
    cpu_count: number;
    hostname: string;
    memory: number;
    os_id: string;
    os_name: string;
    os_version: string;
    os_version_id: string;
    platform: string;
    release: string;
    [key: string]: unknown;
  };
  hostOs?: EdgeMetadata['os'];
  env?: Record<string, unknown>;
  kube?: { namespace: string; source: string; pod?: Record<string, unknown>; [key: string]: unknown };
  aws?: { version: number; [key: string]: unknown };
}

/** GET /m/{group}/version items (GitLogResult). */
export interface GitLogResult {
  hash?: string;
  date?: string;
  message?: string;
  body?: string;
  refs?: string;
  author_name?: string;
  author_email?: string;
}

/** POST /auth/login → 200. */
export interface AuthToken {
  token: string;
  forcePasswordChange: boolean;
}

/** OAuth client-credentials token endpoint → 200. */
export interface OAuthToken {
  access_token: string;
  token_type: string;
  expires_in?: number;
}

/** Management plane: GET /v1/organizations/{organizationId}/workspaces items. */
export interface Workspace {
  workspaceId: string;
  region: string;
  leaderFQDN: string;
  state: 'Provisioning' | 'Active' | 'Inactive' | 'Failed' | 'Deprovisioning';
  alias?: string;
  description?: string;
  tags?: string[];
}

/** Control-plane error bodies: 4.17+ `{status:"error", message}`, earlier `{message}`. Mgmt plane: `{statusCode, message}`. */
export interface ErrorBody {
  status?: 'error';
  message: string;
  details?: unknown;
}
