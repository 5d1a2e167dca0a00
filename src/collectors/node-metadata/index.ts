/**
 * GET /w/{nodeId}/edge/metadata through the leader: OS, Cribl mode and Kubernetes placement of each node, riding on
 * the health poll: after a health answer, when the last fetch is --metadata.interval old, after a restart, and for a
 * new fleet spread over each node's first polls. The decoder keeps only the exported fields (a pod's labels and
 * annotations would otherwise be kept per node).
 */
import * as z from 'zod';
import { ENDPOINTS, segment } from '@cribl-exporter/api/routes';
import type { LeaderRequest } from '../../leader/types.js';
import { intervalRow } from '../../settings/table.js';
import { hashBucket } from '../../util/hash.js';
import { collector, factsKey, polledFreshness, type NodeFamily, type RideContext } from '../collector.js';
import { get, nextRead, type Read } from '../read.js';
import { asRecord, gaugeOf, line, q } from '../sample.js';

export const NAME = 'node_metadata';

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
  const req = get(ENDPOINTS.nodeMetadata, `/w/${segment(nodeId)}/edge/metadata`, decodeMetadata, deadline, signal);
  return { ...req, nodeScoped: true };
}

/** What the exporter knows of a node's metadata: the last answer is kept through later failures. */
export type MetadataFacts = Read<NodeMetadata>;

export const metadataFacts = factsKey<MetadataFacts>(NAME);

/**
 * Most polls over which a new fleet's first metadata fetch is spread: at most 1/4 more requests per interval, and
 * every node's metadata within its first five polls. (Exported for the benchmarks, whose steady window starts once
 * that first round is done.)
 */
export const FIRST_METADATA_SPREAD = 4;

/**
 * Whether a node's metadata is to be fetched after its health answer: after a restart; when the last fetch is a
 * metadata interval old; for a node never fetched, at its bucket's poll (its 2nd to 5th, never its first, which
 * belongs to health alone; again `spread` polls later when that one fails).
 */
export function metadataDue(intervalMs: number, p: RideContext): boolean {
  if (p.restarted) return true;
  if (p.lastPollMs === undefined) {
    const spread = Math.max(1, Math.min(FIRST_METADATA_SPREAD, Math.round(intervalMs / p.primaryIntervalMs)));
    return p.polls > 1 && (p.polls - 2) % spread === hashBucket(p.key, spread);
  }
  return p.nowMs - p.lastPollMs >= intervalMs - p.primaryIntervalMs / 2;
}

/** The pod name, whether the leader sends a string or an object with a `name`. */
function podName(pod: unknown): unknown {
  return typeof pod === 'string' ? pod : asRecord(pod)?.name;
}

const FAMILIES: readonly NodeFamily[] = [
  {
    name: 'cribl_node_metadata_info',
    what:
      'Node metadata (value 1): OS name and version, Cribl mode, Kubernetes namespace and pod; empty values where ' +
      'absent.',
    labels: ['os_name', 'os_version', 'cribl_mode', 'kube_namespace', 'kube_pod'],
    sample: (n, base) => {
      const item = metadataFacts.of(n)?.value;
      if (!item) return '';
      const os = item.os ?? {};
      const kube = item.kube ?? {};
      const extra =
        `os_name=${q(os.os_name)},os_version=${q(os.os_version)},cribl_mode=${q(item.cribl?.mode)},` +
        `kube_namespace=${q(kube.namespace)},kube_pod=${q(podName(kube.pod))}`;
      return line('cribl_node_metadata_info', base, extra);
    },
  },
  gaugeOf(
    'cribl_node_metadata_last_success_timestamp_seconds',
    'Time of the last answered metadata poll.',
    (n) => metadataFacts.of(n)?.lastSuccessMs,
    1000,
  ),
];

export const nodeMetadata = collector({
  name: NAME,
  settings: {
    intervalMs: intervalRow('metadata.interval', '10m', 'Polling', 'How often the metadata of every node is polled.'),
  },
  freshness: (s) => polledFreshness(s.intervalMs),
  families: { node: FAMILIES },
  schedule: {
    kind: 'node',
    intervalMs: (s) => s.intervalMs,
    request: metadataRequest,
    next: nextRead,
    due: (s, p) => metadataDue(s.intervalMs, p),
  },
});
