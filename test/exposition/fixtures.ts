import type { WorkerEntry } from '@cribl-exporter/api/shapes';
import type { NodeItem } from '../../src/collectors/collector.js';
import { decodeWorker } from '../../src/collectors/listing/index.js';
import type { HealthFacts } from '../../src/collectors/node-health/index.js';
import type { MetadataFacts } from '../../src/collectors/node-metadata/index.js';

/** A realistic stream worker entry as the leader lists it (no disk, no deployable). */
export function worker(id = 'w1', overrides: Partial<WorkerEntry> = {}): WorkerEntry {
  return {
    id,
    group: 'default',
    firstMsgTime: 1717200000000,
    lastMsgTime: 1717200060500,
    workerProcesses: 4,
    info: {
      hostname: `host-${id}`,
      cpus: 8,
      totalmem: 16777216000,
      architecture: 'x64',
      platform: 'linux',
      release: '6.8.0',
      node: 'v22.17.1',
      env: {},
      cribl: {
        version: '4.15.1-1b453caa',
        config: { version: 'abc1234' },
        distMode: 'worker',
        group: 'default',
        guid: id,
        startTime: 1717199000000,
      },
    },
    ...overrides,
  };
}

/** What a test node is made of: its listing entry, health and metadata facts, identity. */
export interface NodeParts {
  product?: 'stream' | 'edge';
  group?: string;
  worker?: WorkerEntry;
  health?: HealthFacts;
  metadata?: MetadataFacts;
  /** Restarts the listing counted. */
  restarts?: number;
}

/** A node as the store holds it: listed (decoded as the exporter decodes it), and polled when `health` is given. */
export function node(id = 'w1', parts: NodeParts = {}): NodeItem {
  const listed = decodeWorker(parts.worker ?? worker(id));
  if (!listed) throw new Error(`a test node whose listing entry does not decode: ${id}`);
  const withCount = parts.restarts ? { ...listed, restarts: parts.restarts } : listed;
  return {
    key: id,
    ident: { product: parts.product ?? 'stream', group: parts.group ?? 'default', nodeId: id },
    facts: {
      listing: withCount,
      ...(parts.health ? { node_health: parts.health } : {}),
      ...(parts.metadata ? { node_metadata: parts.metadata } : {}),
    },
  };
}
