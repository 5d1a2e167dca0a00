/**
 * What the exporter knows about each item of a scope (a node, a group, a leader): the input of its rendered
 * metric text. Each part comes from one collector; the store (src/store/) is its only owner at run time.
 */
import type { Product } from '../api/products.js';
import type { FailureReason } from '../http/failure.js';
import type { ListedGroup } from './groups.js';
import type { ListedWorker } from './listing.js';
import type { HealthFacts } from './node-health.js';
import type { MetadataFacts } from './node-metadata.js';

/** One node. */
export interface NodeState {
  product: Product;
  /** Group / fleet id, from the listing. */
  group: string;
  nodeId: string;
  /** The node's entry from the latest listing. */
  worker: ListedWorker;
  /** Latest /w/{nodeId}/health outcome; absent until the first poll finished. */
  health?: HealthFacts;
  /** Latest /w/{nodeId}/edge/metadata outcome; absent until the first poll finished. */
  metadata?: MetadataFacts;
}

/** One group / fleet, from /products/{product}/groups. */
export interface GroupState {
  product: Product;
  group: ListedGroup;
}

/** The leader itself. */
export interface LeaderState {
  /** 1 if the last discovery succeeded. */
  up: boolean;
  /** Epoch ms of the last successful discovery. */
  lastDiscoveryMs?: number;
  /** Why the last discovery failed (absent while it works): a reason, the HTTP status if any, one line. */
  failure?: { reason: FailureReason; status?: number; message: string };
}
