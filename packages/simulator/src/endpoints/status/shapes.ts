/**
 * The full answers of the data-flow, licence, system-info and bulletin routes (api-shapes.md §25, the JSON Schemas)
 * as real leaders send them, as zod schemas with their types: the simulated leader builds its answers with these,
 * and the tests check them against the research note's JSON Schemas. The collectors read only what they export,
 * with lenient decoders of their own (src/collectors/dataflow/, license/, leader-info/, leader-messages/).
 */
import * as z from 'zod';
import { healthColorSchema, healthCountsSchema, MESSAGE_SEVERITIES, pageSchema } from '@cribl-exporter/api/shapes';

const finite = z.number().finite();

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
export const ioStatusSchema = pqStatusSchema.extend({
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
export const ioStatusListSchema = pageSchema.extend({ items: z.array(ioStatusItemSchema) });
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
export const licenseUsageSchema = edgeUsageSchema.extend({
  startTime: finite, // epoch ms
  endTime: finite, // epoch ms
  edge: edgeUsageSchema.optional(),
  guard: z.object({ inBytes: finite, inEvents: finite }).optional(),
});
export type LicenseUsage = z.infer<typeof licenseUsageSchema>;

/** GET /system/licenses/usage: one item per day, up to the last 90 days. */
export const licenseUsageListSchema = z.object({ count: finite.optional(), items: z.array(licenseUsageSchema) });
export type LicenseUsageList = z.infer<typeof licenseUsageListSchema>;

/** Bulletin severities. */
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
