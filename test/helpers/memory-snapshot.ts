/** A real store, with reads that tests of the writers (the poller, the discovery step) find handy. */
import type { Collector } from '../../src/collectors/collector.js';
import { listedNode, type ListedNode } from '../../src/collectors/listing/index.js';
import { healthFacts, nodeHealth, type HealthFacts } from '../../src/collectors/node-health/index.js';
import { metadataFacts, nodeMetadata, type MetadataFacts } from '../../src/collectors/node-metadata/index.js';
import type { DiscoveredNode } from '../../src/polling/poller.js';
import { NodePoll, nodeCollectors } from '../../src/polling/node-poll.js';
import { Poller, type PollerOptions } from '../../src/polling/poller.js';
import type { LeaderClient } from '../../src/leader/types.js';
import { LeaderSnapshot } from '../../src/store/snapshot.js';
import type { Clock } from '@cribl-exporter/api/clock';
import type { Logger } from 'pino';
import { decodeWorker } from '../../src/collectors/listing/index.js';
import { workerEntry } from './workers.js';

/** A node as these tests read it. */
export interface NodeView {
  listing?: ListedNode;
  health?: HealthFacts;
  metadata?: MetadataFacts;
}

export class MemorySnapshot extends LeaderSnapshot {
  /** The nodes held, by key, in first-write order. */
  get held(): Map<string, NodeView> {
    return new Map(
      this.moment().nodes.map((n) => [
        n.key,
        { listing: listedNode.of(n), health: healthFacts.of(n), metadata: metadataFacts.of(n) },
      ]),
    );
  }
}

/** A listing of `ids` (stream nodes of group default), as a discovery hands it to the poller. */
export function fleet(ids: readonly string[], startTime = 1717200000000): Map<string, DiscoveredNode> {
  return new Map(
    ids.map((id) => {
      const w = workerEntry(id);
      w.info.cribl.startTime = startTime;
      const listed = decodeWorker(w)!;
      return [id, { ident: { product: 'stream', group: listed.group, nodeId: id }, facts: listed, startTime }];
    }),
  );
}

/** A poller over the registry's node collectors (health, metadata) at the intervals given. */
export function testPoller(
  o: Omit<PollerOptions, 'poll' | 'snapshot' | 'listing'> & {
    client: LeaderClient;
    snapshot: LeaderSnapshot;
    clock: Clock;
    logger: Logger;
    healthIntervalMs?: number;
    metadataIntervalMs?: number;
  },
): Poller {
  const { client, healthIntervalMs = 30_000, metadataIntervalMs = 600_000, ...rest } = o;
  const settings = (c: Collector): unknown =>
    c === nodeHealth ? { intervalMs: healthIntervalMs } : c === nodeMetadata ? { intervalMs: metadataIntervalMs } : {};
  const poll = new NodePoll({
    client,
    store: o.snapshot,
    clock: o.clock,
    logger: o.logger,
    ...nodeCollectors([nodeHealth, nodeMetadata], settings, () => true),
  });
  return new Poller({ ...rest, poll, listing: 'listing' });
}
