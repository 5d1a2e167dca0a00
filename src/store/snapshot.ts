/**
 * The snapshot store of one leader, and the only owner of its node, group and leader state. Discovery and
 * polling write. Group and leader writes are rendered to text at once with the renderers the store was given
 * (kube-state-metrics style) and compared, so they bump the generation only when the text changed. Nodes are kept
 * as state only: the body renders them when it is built (src/exposition/assemble.ts), at most once per scrape
 * interval rather than on every poll. Every node write bumps the generation (polls and listings always bring a new
 * timestamp). Node states are never changed in place: a write replaces the object, so a build can hold the states
 * of its start while polling goes on.
 *
 * A node's state carries facts of its group (its deployed config version): the store keeps which nodes belong to
 * which group, and a group change that matters to its nodes (a deploy) re-writes exactly that group's nodes.
 */

import { groupKey, type GroupState, type LeaderState, type NodeState } from '../collectors/state.js';
import { labelPairs } from '../format/escape.js';
import { timeSlicer } from '../util/yield.js';

/** How the store turns group and leader state into text (one string per family, in body order) and keeps nodes. */
export interface SnapshotRenderers {
  groups(groups: readonly GroupState[], targetPairs: string): readonly string[];
  leader(leader: LeaderState | undefined, targetPairs: string): readonly string[];
  /** The node's state as kept: the written state with the facts the store derives (group facts, restarts). */
  nodeWithFacts(prev: NodeState | undefined, next: NodeState, group: GroupState | undefined): NodeState;
  /** Whether a change of a group leaves its nodes' texts as they are. */
  sameNodeGroupFacts(a: GroupState | undefined, b: GroupState | undefined): boolean;
}

/** Longest stretch of re-writing a group's nodes between two yields to the event loop. */
const RERENDER_SLICE_MS = 4;

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
  /** The target labels rendered (`workspace="a"`), or empty: the opening of every series of this leader. */
  readonly targetPairs: string;
  setNode(key: string, state: NodeState): void;
  deleteNode(key: string): void;
  getNode(key: string): NodeState | undefined;
  nodeKeys(): IterableIterator<string>;
  /** Every node's state, in first-write order (the body's order; never write through them). */
  nodes(): IterableIterator<NodeState>;
  /**
   * Replaces the groups (discovery). Their texts change at once; the nodes of groups whose change matters to them
   * (a deploy) are re-written before the promise resolves, yielding to the event loop in between. A group's
   * `packs` are carried over from its previous state when `groups` brings none (another job reads them).
   */
  setGroups(groups: readonly GroupState[]): Promise<void>;
  /** A group's state, by product and id. */
  getGroup(product: GroupState['product'], id: string): GroupState | undefined;
  /** Every group's state, in listing order. */
  groups(): GroupState[];
  /** Sets the packs of the groups (`--collector.packs`); a group absent from `packs` keeps what it had. */
  setGroupPacks(packs: ReadonlyMap<string, NonNullable<GroupState['packs']>>): void;
  /** Updates the leader's state: the fields given replace those held (an `undefined` value clears one). */
  setLeader(state: Partial<LeaderState>): void;
  /** The leader's state as held (undefined before anything was written). */
  leader(): LeaderState | undefined;
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
  readonly targetPairs: string;
  readonly #render: SnapshotRenderers;
  #generation = 0;
  readonly #nodes = new Map<string, NodeState>();
  /** Groups by groupKey, in listing order. */
  #groups = new Map<string, GroupState>();
  /** Node keys per groupKey. */
  readonly #members = new Map<string, Set<string>>();
  #leader: LeaderState | undefined;
  #groupTexts: readonly string[];
  #leaderTexts: readonly string[];
  readonly #listeners = new Set<() => void>();

  constructor(labels: Readonly<Record<string, string>>, render: SnapshotRenderers) {
    this.labels = Object.freeze({ ...labels });
    this.targetPairs = labelPairs(this.labels);
    this.#render = render;
    this.#groupTexts = render.groups([], this.targetPairs);
    this.#leaderTexts = render.leader(undefined, this.targetPairs);
  }

  get generation(): number {
    return this.#generation;
  }

  get size(): number {
    return this.#nodes.size;
  }

  setNode(key: string, state: NodeState): void {
    const prev = this.#nodes.get(key);
    const group = groupKey(state.product, state.group);
    const full = this.#render.nodeWithFacts(prev, state, this.#groups.get(group));
    this.#nodes.set(key, full);
    const before = prev && groupKey(prev.product, prev.group);
    if (before !== group) {
      if (before !== undefined) this.#members.get(before)?.delete(key);
      let members = this.#members.get(group);
      if (!members) this.#members.set(group, (members = new Set()));
      members.add(key);
    }
    this.#changed();
  }

  deleteNode(key: string): void {
    const prev = this.#nodes.get(key);
    if (!prev) return;
    this.#nodes.delete(key);
    const group = groupKey(prev.product, prev.group);
    const members = this.#members.get(group);
    members?.delete(key);
    if (members?.size === 0) this.#members.delete(group);
    this.#changed();
  }

  getNode(key: string): NodeState | undefined {
    return this.#nodes.get(key);
  }

  nodeKeys(): IterableIterator<string> {
    return this.#nodes.keys();
  }

  async setGroups(groups: readonly GroupState[]): Promise<void> {
    const before = this.#groups;
    const after = new Map<string, GroupState>();
    for (const g of groups) {
      const key = groupKey(g.product, g.group.id);
      if (after.has(key)) continue;
      const packs = g.packs ?? before.get(key)?.packs;
      after.set(key, packs && !g.packs ? { ...g, packs } : g);
    }
    this.#groups = after;
    this.#renderGroups();
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter(
      (k) => !this.#render.sameNodeGroupFacts(before.get(k), after.get(k)),
    );
    // A deploy re-writes that group's nodes (their deployed config version; 50,000 at once would block: sliced).
    const slice = timeSlicer(RERENDER_SLICE_MS);
    for (const group of changed) {
      for (const key of [...(this.#members.get(group) ?? [])]) {
        const pause = slice();
        if (pause) await pause;
        const state = this.#nodes.get(key);
        if (state && groupKey(state.product, state.group) === group) this.setNode(key, state);
      }
    }
  }

  getGroup(product: GroupState['product'], id: string): GroupState | undefined {
    return this.#groups.get(groupKey(product, id));
  }

  groups(): GroupState[] {
    return [...this.#groups.values()];
  }

  setGroupPacks(packs: ReadonlyMap<string, NonNullable<GroupState['packs']>>): void {
    for (const [key, facts] of packs) {
      const g = this.#groups.get(key);
      if (g) this.#groups.set(key, { ...g, packs: facts });
    }
    this.#renderGroups();
  }

  setLeader(state: Partial<LeaderState>): void {
    this.#leader = { ...this.#leader, ...state };
    const texts = this.#render.leader(this.#leader, this.targetPairs);
    if (sameTexts(texts, this.#leaderTexts)) return;
    this.#leaderTexts = texts;
    this.#changed();
  }

  leader(): LeaderState | undefined {
    return this.#leader;
  }

  nodes(): IterableIterator<NodeState> {
    return this.#nodes.values();
  }

  #renderGroups(): void {
    const texts = this.#render.groups([...this.#groups.values()], this.targetPairs);
    if (sameTexts(texts, this.#groupTexts)) return;
    this.#groupTexts = texts;
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
