/**
 * The licences and their daily usage (GET /system/licenses, /system/licenses/usage), as real leaders send
 * them (the published API spec's JSON Schemas), as zod schemas with their types: the simulated leader builds its
 * answers with these, and test/simulator/dataflow-schemas.test.ts checks them against the JSON Schemas. The
 * collectors read only what they export, with lenient decoders of their own (src/collectors/).
 */
import * as z from 'zod';

const finite = z.number().finite();

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
