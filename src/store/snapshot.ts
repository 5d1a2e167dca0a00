/**
 * The snapshot store of one leader. Pollers write node, group and leader state; every write
 * renders that piece to text at once (kube-state-metrics style). A node's text goes as UTF-8 bytes into
 * the batch the body builder takes next (the text is not kept here: the builder holds it, in a worker
 * thread). Every node write bumps the generation (polls and listings always bring a new timestamp);
 * group and leader texts are compared, so they bump it only when they changed.
 */

import { labelPairs } from '../format/escape.js';
import { NodeBatchWriter, type NodeBatch } from '../exposition/node-texts.js';
import { renderGroups, renderLeader, renderNode, validateTargetLabels } from '../collectors/render.js';
import type { SnapshotSource } from '../exposition/body.js';
import type { GroupState, LeaderSnapshot, LeaderState, NodeState } from './types.js';

/** Options of createLeaderSnapshot. */
export interface LeaderSnapshotOptions {
  /** Target labels added first to every series of this leader (e.g. `{ workspace: 'prod' }`). */
  labels?: Readonly<Record<string, string>>;
}

/** A leader's snapshot: written by discovery and polling, read by exposition. */
export interface RenderedLeaderSnapshot extends LeaderSnapshot, SnapshotSource {
  /** Number of nodes held. */
  readonly size: number;
  /** The groups last written. */
  groups(): readonly GroupState[];
  /** The leader state last written. */
  leader(): LeaderState | undefined;
}


let nextId = 1;

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

class Snapshot implements RenderedLeaderSnapshot {
  readonly id = nextId++;
  readonly labels: Readonly<Record<string, string>>;
  readonly targetPairs: string;
  #generation = 0;
  readonly #nodes = new Map<string, NodeState>();
  #groups: readonly GroupState[] = [];
  #groupTexts: readonly string[];
  #leader: LeaderState | undefined;
  #leaderTexts: readonly string[];
  readonly #listeners = new Set<() => void>();
  #batch = new NodeBatchWriter();

  constructor(labels: Readonly<Record<string, string>>) {
    validateTargetLabels(labels);
    this.labels = Object.freeze({ ...labels });
    this.targetPairs = labelPairs(this.labels);
    this.#groupTexts = renderGroups([], this.targetPairs);
    this.#leaderTexts = renderLeader(undefined, this.targetPairs);
  }

  get generation(): number {
    return this.#generation;
  }

  get size(): number {
    return this.#nodes.size;
  }

  setNode(key: string, state: NodeState): void {
    this.#batch.put(key, renderNode(state, this.targetPairs));
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
    this.#batch = new NodeBatchWriter();
    for (const [key, state] of this.#nodes) this.#batch.put(key, renderNode(state, this.targetPairs));
  }

  getNode(key: string): NodeState | undefined {
    return this.#nodes.get(key);
  }

  nodeKeys(): IterableIterator<string> {
    return this.#nodes.keys();
  }

  setGroups(groups: readonly GroupState[]): void {
    this.#groups = [...groups];
    const texts = renderGroups(this.#groups, this.targetPairs);
    if (sameTexts(texts, this.#groupTexts)) return;
    this.#groupTexts = texts;
    this.#changed();
  }

  setLeader(state: LeaderState): void {
    this.#leader = { ...state };
    const texts = renderLeader(this.#leader, this.targetPairs);
    if (sameTexts(texts, this.#leaderTexts)) return;
    this.#leaderTexts = texts;
    this.#changed();
  }

  groups(): readonly GroupState[] {
    return this.#groups;
  }

  leader(): LeaderState | undefined {
    return this.#leader;
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

/** Creates the snapshot store of one leader; throws one line when a target label is invalid. */
export function createLeaderSnapshot(options: LeaderSnapshotOptions = {}): RenderedLeaderSnapshot {
  return new Snapshot(options.labels ?? {});
}
