/**
 * The answering node's system info (GET /system/info), as real leaders send
 * them (the published API spec's JSON Schemas), as zod schemas with their types: the simulated leader builds its
 * answers with these, and test/simulator/dataflow-schemas.test.ts checks them against the JSON Schemas. The
 * collectors read only what they export, with lenient decoders of their own (src/collectors/).
 */
import * as z from 'zod';
import { LICENSE_CLASSES, licenseLimitsSchema } from '../licenses/shapes.js';
import { bulletinMessageSchema } from '../messages/shapes.js';

const finite = z.number().finite();

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
