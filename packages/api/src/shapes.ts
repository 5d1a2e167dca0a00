/**
 * Response shapes of the Cribl control-plane and management-plane API, as real leaders send them
 * (the API spec 4.19 and 4.15.1, Cribl's official SDKs), as zod schemas with the types
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

/** Edge only: `nodeUpgradeStatus`: state 0 Active, 1 Current, 2 Failed, 3 Skipped, with reason codes. */
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
  /** Required from spec 4.18.2 on; `inactive` = the plain binary. */
  overlay: z.object({ state: z.enum(['active', 'inactive']) }).optional(),
});

/**
 * The leader's own GET /health (200 or 420), as the exporter keeps it: status, and startTime and role where given
 * (a wrong one is dropped rather than failing the answer). A leader's and each of its HA hosts'.
 */
export const leaderHealthSchema = healthSchema.pick({ status: true }).extend({
  startTime: z.number().finite().optional().catch(undefined),
  role: z.enum(['primary', 'standby']).optional().catch(undefined),
});

/** The leader's /health answer, as kept. */
export type LeaderHealth = z.infer<typeof leaderHealthSchema>;

/** GET /m/{group}/version items (GitLogResult): every field is optional. */
export type GitLogResult = Partial<
  Record<'hash' | 'date' | 'message' | 'body' | 'refs' | 'author_name' | 'author_email', string>
>;

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

// ---- Data flow and bulletins: the states the collectors read. The full answers (licences,
// system info, bulletins, status lists) are the simulator's: src/simulator/signal-shapes.ts. ----

/** The four health states of Sources, Destinations and their persistent queues. */
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

/** Bulletin severities (GET /system/messages). */
export const MESSAGE_SEVERITIES = ['info', 'warn', 'error', 'fatal'] as const;
export type MessageSeverity = (typeof MESSAGE_SEVERITIES)[number];
