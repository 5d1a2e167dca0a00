/**
 * The status of destinations and sources (GET /m/{group}/system/status/outputs, …/inputs), as real leaders send
 * them (the published API spec's JSON Schemas), as zod schemas with their types: the simulated leader builds its
 * answers with these, and test/simulator/dataflow-schemas.test.ts checks them against the JSON Schemas. The
 * collectors read only what they export, with lenient decoders of their own (src/collectors/).
 */
import * as z from 'zod';
import { healthColorSchema, healthCountsSchema, pageSchema } from '@cribl-exporter/api/shapes';

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
  /** Only with `metrics=true`; group-level answers carry `{}`. */
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
