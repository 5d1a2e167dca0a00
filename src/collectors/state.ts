/**
 * What the exporter knows about each item of a scope (a node, a group, a leader, the management plane): the
 * input of its rendered metric text. Each part comes from one collector; the stores (src/store/) are its only
 * owners at run time.
 */
import type { Product } from '../api/products.js';
import type { FailureReason } from '../http/failure.js';
import type { GitFacts } from './git-settings.js';
import type { VersionFacts } from './group-version.js';
import type { ListedGroup } from './groups.js';
import type { LeaderHealthFacts } from './leader-health.js';
import type { ListedWorker } from './listing.js';
import type { HealthFacts } from './node-health.js';
import type { MetadataFacts } from './node-metadata.js';
import type { PacksFacts } from './packs.js';
import type { SearchFacts } from './search.js';
import type { ListedWorkspace } from './workspaces.js';

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
  /**
   * The configVersion the node's group has deployed, as the node was last rendered (what its config version is
   * compared with). Set by the store from its group state, never by a writer.
   */
  deployedConfigVersion?: string;
  /** Changes of the listing's start time seen since the node was first listed. Counted by the store. */
  restarts?: number;
}

/** One group / fleet, from /products/{product}/groups, with what per-group requests add. */
export interface GroupState {
  product: Product;
  group: ListedGroup;
  /** From GET /m/{group}/version, once per discovery. */
  versions?: VersionFacts;
  /** From the packs collector (`--collector.packs`). */
  packs?: PacksFacts;
}

/** The identity of a group across scopes: product and id. */
export function groupKey(product: Product, group: string): string {
  return `${product}\u0000${group}`;
}

/** The leader itself. Written piecewise: discovery, the leader's /health, git settings and the search probe. */
export interface LeaderState {
  /** 1 if the last discovery succeeded; absent before the first discovery result. */
  up?: boolean;
  /** Epoch ms of the last successful discovery. */
  lastDiscoveryMs?: number;
  /**
   * Why the last discovery failed (absent while it works): a reason, the HTTP status if any, one line. Its label
   * (cribl_leader_discovery_failure_info{reason}) is requestFailureReason of it.
   */
  failure?: { reason: FailureReason; status?: number; message: string };
  /** GET /health of the leader (global context). */
  health?: LeaderHealthFacts;
  /** GET /system/settings/git-settings. */
  git?: GitFacts;
  /** The last search probe. */
  search?: SearchFacts;
}

/** The Cribl.Cloud management plane: the organization's workspaces. */
export interface ManagementState {
  /** 1 if the last workspace listing worked. */
  up: boolean;
  /** Every workspace of the last successful listing, whatever its state. */
  workspaces: readonly ListedWorkspace[];
}
