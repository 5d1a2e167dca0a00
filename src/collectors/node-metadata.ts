/**
 * GET /w/{nodeId}/edge/metadata through the leader: OS, Cribl mode and Kubernetes placement of each node. The
 * decoder keeps only the exported fields (a pod's labels and annotations would otherwise be kept per node).
 */
import * as z from 'zod';
import { ENDPOINTS, segment } from '../api/routes.js';
import { series, volatile, type Family } from '../format/family.js';
import type { FailureReason } from '../http/failure.js';
import type { LeaderRequest, LeaderResult } from '../leader/types.js';
import { asRecord, q, gaugeFamily } from './sample.js';
import type { NodeState } from './state.js';

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

/** The part of a node's metadata the exporter keeps. */
export type NodeMetadata = z.infer<typeof metadataSchema>['items'][number];

/** Decodes /w/{nodeId}/edge/metadata, keeping only the fields we export. */
export function decodeMetadata(json: unknown): NodeMetadata {
  return metadataSchema.parse(json).items[0] as NodeMetadata;
}

/** The metadata poll of one node (host context). */
export function metadataRequest(nodeId: string, deadline: number, signal?: AbortSignal): LeaderRequest<NodeMetadata> {
  return {
    endpoint: ENDPOINTS.nodeMetadata,
    path: `/w/${segment(nodeId)}/edge/metadata`,
    nodeScoped: true,
    deadline,
    decode: decodeMetadata,
    ...(signal ? { signal } : {}),
  };
}

/** What the exporter knows of a node's metadata: the last answer is kept through later failures. */
export interface MetadataFacts {
  item?: NodeMetadata;
  lastSuccessMs?: number;
  failure?: FailureReason;
}

/** The metadata facts after a poll's result. */
export function nextMetadata(
  prev: MetadataFacts | undefined,
  res: LeaderResult<NodeMetadata>,
  nowMs: number,
): MetadataFacts {
  if (res.ok) return { item: res.body, lastSuccessMs: nowMs };
  return {
    ...(prev?.item ? { item: prev.item } : {}),
    ...(prev?.lastSuccessMs === undefined ? {} : { lastSuccessMs: prev.lastSuccessMs }),
    failure: res.reason,
  };
}

/** The pod name, whether the leader sends a string or an object with a `name`. */
function podName(pod: unknown): unknown {
  return typeof pod === 'string' ? pod : asRecord(pod)?.name;
}

/** Per-node metadata families, in body order. */
export const METADATA_FAMILIES: readonly Family<NodeState>[] = [
  {
    name: 'cribl_node_metadata_info',
    source: 'metadata',
    what:
      'Node metadata (value 1): OS name and version, Cribl mode, Kubernetes namespace and pod; empty values where ' +
      'absent.',
    labels: ['os_name', 'os_version', 'cribl_mode', 'kube_namespace', 'kube_pod'],
    sample: (s, base) => {
      const item = s.metadata?.item;
      if (!item) return '';
      const os = asRecord(item.os) ?? {};
      const kube = asRecord(item.kube) ?? {};
      const extra =
        `os_name=${q(os.os_name)},os_version=${q(os.os_version)},cribl_mode=${q(asRecord(item.cribl)?.mode)},` +
        `kube_namespace=${q(kube.namespace)},kube_pod=${q(podName(kube.pod))}`;
      return `${series('cribl_node_metadata_info', base, extra)} 1\n`;
    },
  },
  volatile(
    gaugeFamily(
      'cribl_node_metadata_last_success_timestamp_seconds',
      'metadata',
      'Time of the last answered metadata poll.',
      (s) => s.metadata?.lastSuccessMs,
      1000,
    ),
  ),
];
