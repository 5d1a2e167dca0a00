/**
 * The leader's bulletins (GET /system/messages), as real leaders send
 * them (the published API spec's JSON Schemas), as zod schemas with their types: the simulated leader builds its
 * answers with these, and test/simulator/dataflow-schemas.test.ts checks them against the JSON Schemas. The
 * collectors read only what they export, with lenient decoders of their own (src/collectors/).
 */
import * as z from 'zod';
import { MESSAGE_SEVERITIES } from '@cribl-exporter/api/shapes';

const finite = z.number().finite();

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
