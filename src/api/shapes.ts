/**
 * Response shapes of the Cribl control-plane and management-plane API, as real leaders send them
 * (shared/research/api-shapes.md: spec 4.19, 4.15.1-full, official SDKs), as zod schemas with the types
 * inferred from them. Shared by the exporter's collectors (which decode with narrowed picks of these) and by
 * the simulated leader (which builds its answers with these types). Only the fields we read or serve are
 * described; real leaders may send more, and zod drops what is not described.
 */
import * as z from 'zod';

const finite = z.number().finite();

/** `info.cribl` (HBCriblInfo). `version` is optional on real leaders. */
export const criblInfoSchema = z.object({
  version: z.string().optional(),
  config: z.object({ version: z.string().optional() }),
  distMode: z.enum(['edge', 'managed-edge', 'master', 'outpost', 'search-supervisor', 'single', 'worker']),
  group: z.string(),
  guid: z.string(),
  startTime: finite, // epoch ms
});
export type HBCriblInfo = z.infer<typeof criblInfoSchema>;

/** `info` (NodeProvidedInfo). There is no `freemem` on real leaders. */
export const nodeInfoSchema = z.object({
  hostname: z.string(),
  cpus: finite,
  totalmem: finite, // bytes
  architecture: z.string(),
  platform: z.string(),
  release: z.string(),
  node: z.string(), // Node.js version of the node, e.g. v22.17.1
  /** Always sent by real leaders; optional here because the exporter drops it after decoding (memory). */
  env: z.record(z.string(), z.string()).optional(),
  cribl: criblInfoSchema,
  freeDiskSpace: finite.optional(), // bytes
  totalDiskSpace: finite.optional(), // bytes
});
export type NodeProvidedInfo = z.infer<typeof nodeInfoSchema>;

/** Edge only: `nodeUpgradeStatus` (§1.5): state 0 Active, 1 Current, 2 Failed, 3 Skipped, with reason codes. */
export const nodeUpgradeStatusSchema = z.object({
  state: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]),
  timestamp: finite, // epoch ms
  /** 0 Pending, 1 Queued, 2 Upgrading (state 0). */
  active: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
  /** 0 UpgradeErrorOnNode, 1 UpgradeInstallationRollback (state 2). */
  failed: z.union([z.literal(0), z.literal(1)]).optional(),
  /** 0 DownloadError, 1 InstallType, 2 MissingPackage, 3 TooOld (state 3). */
  skipped: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]).optional(),
});
export type NodeUpgradeStatus = z.infer<typeof nodeUpgradeStatusSchema>;

/** One item of GET /products/{product}/workers (MasterWorkerEntry). */
export const workerEntrySchema = z.object({
  id: z.string().min(1),
  group: z.string(),
  firstMsgTime: finite, // epoch ms
  lastMsgTime: finite, // epoch ms
  workerProcesses: finite,
  info: nodeInfoSchema,
  status: z.string().optional(), // "healthy" or another string; no enum
  disconnected: z.boolean().optional(),
  deployable: z.boolean().optional(),
  nodeUpgradeStatus: nodeUpgradeStatusSchema.optional(),
});
export type WorkerEntry = z.infer<typeof workerEntrySchema>;

/** Envelope of paginated lists (4.17+); `/master/workers` sends only `{count, items}`. */
export const pageSchema = z.object({
  items: z.array(z.unknown()),
  count: z.number().optional(),
  offset: z.number().optional(),
  limit: z.number().optional(),
  totalCount: z.number().optional(),
});
export interface Paginated<T> {
  items: T[];
  count: number;
  offset?: number;
  limit?: number;
  totalCount?: number;
}

export const GROUP_TYPES = ['edge', 'lake_access', 'local_search', 'outpost', 'search', 'stream'] as const;

/** One item of GET /products/{product}/groups (ConfigGroup); only `id` is required. */
export const configGroupSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  description: z.string().optional(),
  type: z.enum(GROUP_TYPES).optional(),
  configVersion: z.string().optional(),
  workerCount: finite.optional(),
  incompatibleWorkerCount: finite.optional(),
  deployingWorkerCount: finite.optional(),
  onPrem: z.boolean().optional(),
  isFleet: z.boolean().optional(),
  inherits: z.string().optional(),
  provisioned: z.boolean().optional(),
  workerRemoteAccess: z.boolean().optional(),
  lookupDeployments: z
    .array(
      z.object({
        context: z.string(),
        lookups: z.array(
          z.object({ file: z.string(), version: z.string().optional(), deployedVersion: z.string().optional() }),
        ),
      }),
    )
    .optional(),
  git: z
    .object({
      commit: z.string().optional(),
      localChanges: z.number().optional(),
      log: z.array(z.object({ date: z.string(), hash: z.string(), message: z.string(), short: z.string() })).optional(),
    })
    .optional(),
});
export type ConfigGroup = z.infer<typeof configGroupSchema>;

/** GET /health and GET /w/{nodeId}/health (HealthServerStatus); 200 or 420 with this body. */
export const HEALTH_STATUSES = ['healthy', 'shutting down', 'standby'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];
export const healthSchema = z.object({
  status: z.enum(HEALTH_STATUSES),
  startTime: finite, // epoch ms
  role: z.enum(['primary', 'standby']).optional(),
  isCaptain: z.boolean().optional(),
  /** Required from spec 4.18.2 on (§20); `inactive` = the plain binary. */
  overlay: z.object({ state: z.enum(['active', 'inactive']) }).optional(),
});

/** `overlay` of HealthServerStatus. */
export type HealthOverlay = NonNullable<HealthServerStatus['overlay']>;
export type HealthServerStatus = z.infer<typeof healthSchema>;

const edgeOsSchema = z.looseObject({
  arch: z.string(),
  cpu_count: finite,
  hostname: z.string(),
  memory: finite,
  os_id: z.string(),
  os_name: z.string(),
  os_version: z.string(),
  os_version_id: z.string(),
  platform: z.string(),
  release: z.string(),
});

/** One item of GET /w/{nodeId}/edge/metadata → `{count, items:[Metadata]}`; snake_case inside `cribl` and `os`. */
export const edgeMetadataSchema = z.object({
  timestamp: finite,
  cribl: z
    .object({
      mode: z.string(),
      version: z.string(),
      config_version: z.string().optional(),
      group: z.string().optional(),
      install_type: z.string().optional(),
      tags: z.array(z.string()).optional(),
    })
    .optional(),
  os: edgeOsSchema.optional(),
  hostOs: edgeOsSchema.optional(),
  env: z.record(z.string(), z.unknown()).optional(),
  kube: z
    .looseObject({ namespace: z.string(), source: z.string(), pod: z.record(z.string(), z.unknown()).optional() })
    .optional(),
  aws: z.looseObject({ version: z.number() }).optional(),
});
export type EdgeMetadata = z.infer<typeof edgeMetadataSchema>;

/** GET /m/{group}/version items (GitLogResult). */
export const gitLogResultSchema = z.object({
  hash: z.string().optional(),
  date: z.string().optional(),
  message: z.string().optional(),
  body: z.string().optional(),
  refs: z.string().optional(),
  author_name: z.string().optional(),
  author_email: z.string().optional(),
});
export type GitLogResult = z.infer<typeof gitLogResultSchema>;

/** POST /auth/login → 200. 4.14 leaders send only `token`. */
export const authTokenSchema = z.object({
  token: z.string().min(1),
  forcePasswordChange: z.boolean().optional().catch(undefined),
});
export type AuthToken = { token: string; forcePasswordChange: boolean };

/** OAuth client-credentials token endpoint → 200 (`expires_in` is sometimes a numeric string). */
export const oauthTokenSchema = z.object({
  access_token: z.string(),
  token_type: z.string().optional(),
  expires_in: z.union([z.number(), z.string()]).optional(),
});
export type OAuthToken = { access_token: string; token_type: string; expires_in?: number };

export const WORKSPACE_STATES = ['Provisioning', 'Active', 'Inactive', 'Failed', 'Deprovisioning'] as const;

/** Management plane: GET /v1/organizations/{organizationId}/workspaces items. */
export const workspaceSchema = z.object({
  workspaceId: z.string().min(1),
  region: z.string(),
  leaderFQDN: z.string(),
  state: z.enum(WORKSPACE_STATES),
  alias: z.string().optional(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
});
export type Workspace = z.infer<typeof workspaceSchema>;

/**
 * Control-plane error bodies: 4.17+ `{status:"error", message}`, earlier `{message}`. Mgmt plane: `{statusCode,
 * message}`.
 */
export interface ErrorBody {
  status?: 'error';
  message: string;
  details?: unknown;
}

// ---- Data flow, licences, leader vitals and bulletins (api-shapes.md §25; dataflow-schemas.json) ----

/** The four health states of Sources, Destinations and their persistent queues (§25.2). */
export const HEALTH_COLORS = ['Green', 'Yellow', 'Red', 'Unknown'] as const;
export type HealthColor = (typeof HEALTH_COLORS)[number];

/**
 * A health state. The SDK declares it an open enum (`x-speakeasy-unknown-values: allow`): a value outside the four
 * reads as `Unknown` rather than failing the whole list.
 */
export const healthColorSchema = z.enum(HEALTH_COLORS).catch('Unknown');

/**
 * `healthCounts` (HealthCountType): Worker Processes per state, summed over the group. No key is required from 4.17
 * on ("includes only statuses with non-zero counts"), though the spec's examples send all four: a missing key is 0.
 */
export const healthCountsSchema = z.object({
  Green: finite.optional(),
  Yellow: finite.optional(),
  Red: finite.optional(),
  Unknown: finite.optional(),
});
export type HealthCounts = z.infer<typeof healthCountsSchema>;

/** `status.error` and `status.pq.error` (StatusError). */
export const statusErrorSchema = z.object({
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type StatusError = z.infer<typeof statusErrorSchema>;

/** `status.pq` (AggregatedPQStatus): present only where the persistent queue is enabled. */
export const pqStatusSchema = z.object({
  health: healthColorSchema,
  healthCounts: healthCountsSchema,
  timestamp: finite, // epoch ms
  error: statusErrorSchema.optional(),
});
export type AggregatedPQStatus = z.infer<typeof pqStatusSchema>;

/** `status` of a Source or Destination (AggregatedInputOutputStatusBody), aggregated across all Worker Processes. */
export const ioStatusSchema = z.object({
  health: healthColorSchema,
  healthCounts: healthCountsSchema,
  timestamp: finite, // epoch ms
  error: statusErrorSchema.optional(),
  pq: pqStatusSchema.optional(),
  /** Only with `metrics=true`; group-level answers carry `{}` (§25.2.4). */
  metrics: z.record(z.string(), z.unknown()).optional(),
});
export type AggregatedInputOutputStatus = z.infer<typeof ioStatusSchema>;

/**
 * One item of GET /m/{group}/system/status/outputs or …/inputs (OutputStatus / InputStatus). `type` is absent
 * before 4.17 and may be absent later; with `type=true` the id is prefixed with the type.
 */
export const ioStatusItemSchema = z.object({
  id: z.string().min(1),
  type: z.string().optional(),
  status: ioStatusSchema,
});
export type InputOutputStatus = z.infer<typeof ioStatusItemSchema>;

/**
 * GET /m/{group}/system/status/outputs and …/inputs (PaginatedOutputStatus / PaginatedInputStatus): `{count, items}`,
 * plus `offset`, `limit`, `totalCount` when the request pages (4.18+).
 */
export const ioStatusListSchema = z.object({
  count: finite.optional(),
  items: z.array(ioStatusItemSchema),
  offset: finite.optional(),
  limit: finite.optional(),
  totalCount: finite.optional(),
});
export type InputOutputStatusList = z.infer<typeof ioStatusListSchema>;

/** Licence classes (`cls`). */
export const LICENSE_CLASSES = ['prod', 'trial', 'free'] as const;
export type LicenseClass = (typeof LICENSE_CLASSES)[number];

/**
 * Licence limits (`limits`, LicenseLimits): numbers keyed by resource as the leader names them (`worker_groups`,
 * `worker_procs`, `edge_procs`, `rbac`, `remote_git`, … 24 keys in 4.15.1, none required in `License`).
 */
export const licenseLimitsSchema = z.record(z.string(), finite);
export type LicenseLimits = z.infer<typeof licenseLimitsSchema>;

/**
 * One item of GET /system/licenses (License, 4.15.1 in-product spec). `iat` and `exp` are Unix SECONDS; `quota` is
 * GB per day (whether 10⁹ or 2³⁰ bytes is not documented); `f_ph`, `f_phg` are undocumented.
 */
export const licenseSchema = z.object({
  id: z.string(),
  cls: z.enum(LICENSE_CLASSES),
  title: z.string(),
  guid: z.string(),
  email: z.string(),
  iss: z.string(),
  sub: z.string().optional(),
  iat: finite, // Unix seconds
  exp: finite, // Unix seconds
  quota: finite, // GB per day
  license: z.string(),
  f_ph: finite,
  f_phg: finite,
  limits: licenseLimitsSchema.optional(),
});
export type License = z.infer<typeof licenseSchema>;

/** GET /system/licenses: `{count, items}` (neither required by 4.15.1; every client reads `items`). */
export const licenseListSchema = z.object({ count: finite.optional(), items: z.array(licenseSchema) });
export type LicenseList = z.infer<typeof licenseListSchema>;

/** `edge` part of a usage day (EdgeUsageMetrics). */
export const edgeUsageSchema = z.object({
  inBytes: finite,
  inEvents: finite,
  outBytes: finite,
  outEvents: finite,
  exemptedLicenseInBytes: finite,
  droppedBytes: finite.optional(),
  inMetricsEvents: finite.optional(),
});
export type EdgeUsage = z.infer<typeof edgeUsageSchema>;

/**
 * One day of GET /system/licenses/usage (UsageMetricsExtended). `startTime`/`endTime` are epoch ms; billed ingest is
 * `inBytes − exemptedLicenseInBytes`. The order of the days is not specified.
 */
export const licenseUsageSchema = z.object({
  startTime: finite, // epoch ms
  endTime: finite, // epoch ms
  inBytes: finite,
  inEvents: finite,
  outBytes: finite,
  outEvents: finite,
  exemptedLicenseInBytes: finite,
  droppedBytes: finite.optional(),
  inMetricsEvents: finite.optional(),
  edge: edgeUsageSchema.optional(),
  guard: z.object({ inBytes: finite, inEvents: finite }).optional(),
});
export type LicenseUsage = z.infer<typeof licenseUsageSchema>;

/** GET /system/licenses/usage: one item per day, up to the last 90 days. */
export const licenseUsageListSchema = z.object({ count: finite.optional(), items: z.array(licenseUsageSchema) });
export type LicenseUsageList = z.infer<typeof licenseUsageListSchema>;

/** Bulletin severities. */
export const MESSAGE_SEVERITIES = ['info', 'warn', 'error', 'fatal'] as const;
export type MessageSeverity = (typeof MESSAGE_SEVERITIES)[number];

/** One item of GET /system/messages (BulletinMessage): only `id` and `text` are required; `time` is epoch ms. */
export const bulletinMessageSchema = z.object({
  id: z.string(),
  text: z.string(),
  severity: z.enum(MESSAGE_SEVERITIES).optional(),
  title: z.string().optional(),
  time: finite.optional(), // epoch ms
  group: z.string().optional(),
  metadata: z.array(z.record(z.string(), z.unknown())).optional(),
});
export type BulletinMessage = z.infer<typeof bulletinMessageSchema>;

/** GET /system/messages. */
export const bulletinMessageListSchema = z.object({
  count: finite.optional(),
  items: z.array(bulletinMessageSchema),
});
export type BulletinMessageList = z.infer<typeof bulletinMessageListSchema>;

/**
 * One item of GET /system/info (SystemInfo, 4.15.1 in-product spec): the answering node (the leader in the global
 * context). `memory` and `diskUsage` in bytes, `uptime` in seconds; `license.limits` names the same resources as
 * a License's `limits`.
 */
export const systemInfoSchema = z.object({
  version: z.string(),
  BUILD: z.record(z.string(), z.unknown()), // observed: VERSION, BRANCH, TIMESTAMP
  distMode: z.enum(['edge', 'worker', 'single', 'master', 'managed-edge', 'outpost', 'search-supervisor']),
  guid: z.string(),
  hostname: z.string(),
  apiPort: finite,
  configPath: z.string(),
  installPath: z.string(),
  uptime: finite, // seconds
  loadavg: z.array(finite),
  memory: z.object({ free: finite, total: finite }), // bytes
  diskUsage: z.object({
    bytesAvailable: finite,
    bytesUsed: finite,
    diskPath: z.string(),
    totalDiskSize: finite,
  }),
  cpus: z.array(z.object({ model: z.string(), speed: finite, times: z.record(z.string(), z.unknown()) })),
  os: z.object({
    arch: z.string(),
    endianness: z.string(),
    platform: z.string(),
    release: z.string(),
    type: z.string(),
  }),
  conf: z.object({
    inputs: finite,
    outputs: finite,
    pipelines: finite,
    routes: finite,
    rules: finite,
    confVersion: z.string().optional(),
    name: z.string().optional(),
  }),
  license: z.object({
    type: z.enum(LICENSE_CLASSES),
    isRegistered: z.boolean(),
    limits: licenseLimitsSchema,
    email: z.string().optional(),
    isSplunkApp: z.boolean().optional(),
  }),
  limits: z.object({ samples: z.object({ maxSize: z.string() }) }),
  messages: z.array(bulletinMessageSchema),
  workerProcesses: finite,
  systemConf: z.object({ installType: z.string(), restart: z.string(), upgrade: z.string() }),
  env: z.record(z.string(), z.unknown()),
  net: z.record(z.string(), z.unknown()),
  openssl: z.object({ version: z.string(), fipsProviderVersion: z.string() }).optional(),
  isFipsEnabled: z.boolean().optional(),
  isFedRampEnabled: z.boolean().optional(),
  isCriblSandbox: z.boolean().optional(),
  hasCloudWorkspace: z.boolean().optional(),
  /** Not in the 4.15.1 schema; observed by a third party (epoch ms). */
  startTime: finite.optional(),
});
export type SystemInfo = z.infer<typeof systemInfoSchema>;

/** GET /system/info: `{count, items:[SystemInfo]}`, one item. */
export const systemInfoListSchema = z.object({ count: finite.optional(), items: z.array(systemInfoSchema) });
export type SystemInfoList = z.infer<typeof systemInfoListSchema>;
