import { z } from 'zod';
import type { EdgeMetadata, HealthServerStatus } from '../api/shapes.js';

const healthSchema = z.object({
  status: z.enum(['healthy', 'shutting down', 'standby']),
  startTime: z.number().finite().optional(),
  role: z.enum(['primary', 'standby']).optional().catch(undefined),
});

/** Decodes a node's /health answer (200 or 420); a 200 must say healthy, a 420 must not. */
export function decodeHealth(json: unknown, status: number): HealthServerStatus {
  const h = healthSchema.parse(json);
  if ((status === 200) !== (h.status === 'healthy')) throw new Error(`status ${status} with health "${h.status}"`);
  return h as HealthServerStatus;
}

const str = z.string().optional().catch(undefined);
const metadataSchema = z.object({
  count: z.number().optional(),
  items: z
    .array(
      z.object({
        timestamp: z.number().finite(),
        cribl: z.object({ mode: str, version: str, config_version: str, group: str }).optional().catch(undefined),
        os: z.object({ os_name: str, os_version: str }).optional().catch(undefined),
        kube: z
          .object({
            namespace: str,
            // Only the pod's name is exported; its labels and annotations would be kept per node otherwise.
            pod: z
              .union([z.string(), z.object({ name: str })])
              .optional()
              .catch(undefined),
          })
          .optional()
          .catch(undefined),
      }),
    )
    .min(1),
});

/** Decodes /w/{nodeId}/edge/metadata, keeping only the fields we export. */
export function decodeMetadata(json: unknown): EdgeMetadata {
  return metadataSchema.parse(json).items[0] as EdgeMetadata;
}
