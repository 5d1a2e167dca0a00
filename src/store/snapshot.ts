/**
 * The snapshot store of one leader, and the only owner of its node, group and leader state. Discovery and
 * polling write; every write renders that piece to text at once with the renderers it was given
 * (kube-state-metrics style). A node's text goes as UTF-8 bytes into the batch the body builder takes next (the
 * text is not kept here: the builder holds it, in a worker thread). Every node write bumps the generation (polls
 * and listings always bring a new timestamp); group and leader texts are compared, so they bump it only when they
 * changed.
 */

import type { GroupState, LeaderState, NodeState } from '../collectors/state.js';
import { labelPairs } from '../format/escape.js';
import { NodeBatchWriter, type NodeBatch } from './node-batch.js';

/** How the store turns state into text: one string per family of the scope, in body order. */
export interface SnapshotRenderers {
  node(state: NodeState, targetPairs: string): readonly string[];
  groups(groups: readonly GroupState[], targetPairs: string): readonly string[];
  leader(leader: LeaderState | undefined, targetPairs: string): readonly string[];
  /** Number of per-node families (the length of every `node` result). */
  readonly nodeFamilies: number;
}

/** Options of createLeaderSnapshot. */
export interface LeaderSnapshotOptions {
  /** Target labels added first to every series of this leader (e.g. `{ workspace: 'prod' }`); validated by config. */
  labels?: Readonly<Record<string, string>>;
  render: SnapshotRenderers;
}

/** A leader's snapshot: written by discovery and polling, read by exposition (as its SnapshotSource). */
export interface LeaderSnapshot {
  /** Unique in the process. */
  readonly id: number;
  /** Labels added to every series of this leader (e.g. workspace). */
  readonly labels: Readonly<Record<string, string>>;
  /** Grows on every visible change. */
  readonly generation: number;
  /** Number of nodes held. */
  readonly size: number;
  setNode(key: string, state: NodeState): void;
  deleteNode(key: string): void;
  getNode(key: string): NodeState | undefined;
  nodeKeys(): IterableIterator<string>;
  /** Every node's state (the status page reads them; never write through them). */
  nodes(): IterableIterator<NodeState>;
  /** The leader's state as last set (undefined before the first discovery ended). */
  leader(): LeaderState | undefined;
  setGroups(groups: readonly GroupState[]): void;
  setLeader(state: LeaderState): void;
  /** Node texts written since the last call (undefined when none); the caller owns the batch. */
  takeNodeBatch(): NodeBatch | undefined;
  /** Bytes of node text waiting for the next `takeNodeBatch`. */
  readonly pendingNodeBytes: number;
  /** Drops the waiting batch and queues every node's text again (for a builder that has none of them). */
  requeueNodes(): void;
  /** Group family texts, in body order. */
  groupTexts(): readonly string[];
  /** Leader family texts, in body order. */
  leaderTexts(): readonly string[];
  /** Calls `listener` after each change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

let nextId = 1;

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

class Snapshot implements LeaderSnapshot {
  readonly id = nextId++;
  readonly labels: Readonly<Record<string, string>>;
  readonly #targetPairs: string;
  readonly #render: SnapshotRenderers;
  #generation = 0;
  readonly #nodes = new Map<string, NodeState>();
  #groupTexts: readonly string[];
  #leaderTexts: readonly string[];
  #leader: LeaderState | undefined;
  readonly #listeners = new Set<() => void>();
  #batch: NodeBatchWriter;

  constructor(labels: Readonly<Record<string, string>>, render: SnapshotRenderers) {
    this.labels = Object.freeze({ ...labels });
    this.#targetPairs = labelPairs(this.labels);
    this.#render = render;
    this.#batch = new NodeBatchWriter(render.nodeFamilies);
    this.#groupTexts = render.groups([], this.#targetPairs);
    this.#leaderTexts = render.leader(undefined, this.#targetPairs);
  }

  get generation(): number {
    return this.#generation;
  }

  get size(): number {
    return this.#nodes.size;
  }

  setNode(key: string, state: NodeState): void {
    this.#batch.put(key, this.#render.node(state, this.#targetPairs));
    this.#nodes.set(key, state);
    this.#changed();
  }

  deleteNode(key: string): void {
    if (!this.#nodes.delete(key)) return;
    this.#batch.delete(key);
    this.#changed();
  }

  get pendingNodeBytes(): number {
    return this.#batch.byteLength;
  }

  takeNodeBatch(): NodeBatch | undefined {
    return this.#batch.take();
  }

  requeueNodes(): void {
    this.#batch = new NodeBatchWriter(this.#render.nodeFamilies);
    for (const [key, state] of this.#nodes) this.#batch.put(key, this.#render.node(state, this.#targetPairs));
  }

  getNode(key: string): NodeState | undefined {
    return this.#nodes.get(key);
  }

  nodeKeys(): IterableIterator<string> {
    return this.#nodes.keys();
  }

  nodes(): IterableIterator<NodeState> {
    return this.#nodes.values();
  }

  leader(): LeaderState | undefined {
    return this.#leader;
  }

  setGroups(groups: readonly GroupState[]): void {
    const texts = this.#render.groups(groups, this.#targetPairs);
    if (sameTexts(texts, this.#groupTexts)) return;
    this.#groupTexts = texts;
    this.#changed();
  }

  setLeader(state: LeaderState): void {
    this.#leader = { ...state };
    const texts = this.#render.leader({ ...state }, this.#targetPairs);
    if (sameTexts(texts, this.#leaderTexts)) return;
    this.#leaderTexts = texts;
    this.#changed();
  }

  groupTexts(): readonly string[] {
    return this.#groupTexts;
  }

  leaderTexts(): readonly string[] {
    return this.#leaderTexts;
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    this.#generation++;
    for (const listener of this.#listeners) listener();
  }
}

/** Creates the snapshot store of one leader. */
export function createLeaderSnapshot(options: LeaderSnapshotOptions): LeaderSnapshot {
  return new Snapshot(options.labels ?? {}, options.render);
}
