import type { FailureReason } from '../http/failure.js';
import type { ConfigGroup, EdgeMetadata, HealthStatus, Product, ListedWorker } from '../api/shapes.js';

/** What the pollers know about one node: the input of that node's rendered metric text. */
export interface NodeState {
  product: Product;
  /** Group / fleet id, from the listing. */
  group: string;
  nodeId: string;
  /** The node's entry from the latest listing. */
  worker: ListedWorker;
  /** Latest /w/{nodeId}/health outcome; absent until the first poll finished. */
  health?: {
    /** True when the poll got an answer (200 or 420). */
    up: boolean;
    /** Status from the answer, when there was one. */
    status?: HealthStatus;
    /** Epoch ms of the last answered poll. */
    lastSuccessMs?: number;
    /** Reason of the last failed poll, when the last poll failed. */
    failure?: FailureReason;
  };
  /** Latest /w/{nodeId}/edge/metadata answer. */
  metadata?: {
    item?: EdgeMetadata;
    lastSuccessMs?: number;
    failure?: FailureReason;
  };
}

/** Group / fleet facts from /products/{product}/groups. */
export interface GroupState {
  product: Product;
  group: ConfigGroup;
}

/** Leader-level facts. */
export interface LeaderState {
  /** 1 if the last discovery succeeded. */
  up: boolean;
  /** Epoch ms of the last successful discovery. */
  lastDiscoveryMs?: number;
}

/**
 * The snapshot store of one leader: the pollers write, exposition reads.
 * Writing a node re-renders that node's text only; exposition assembles the body lazily after a change.
 */
export interface LeaderSnapshot {
  /** Labels added to every series of this leader (e.g. workspace). */
  readonly labels: Readonly<Record<string, string>>;
  setNode(key: string, state: NodeState): void;
  deleteNode(key: string): void;
  getNode(key: string): NodeState | undefined;
  nodeKeys(): IterableIterator<string>;
  setGroups(groups: readonly GroupState[]): void;
  setLeader(state: LeaderState): void;
}
