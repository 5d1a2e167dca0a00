/**
 * The snapshot store of one leader, and the only owner of its node, group and leader state. Discovery and
 * polling write. Group and leader writes are rendered to text at once with the renderers the store was given
 * (kube-state-metrics style) and compared, so they bump the generation only when the text changed. Nodes are kept
 * as state only, in columns (node-table.ts): the body renders them when it is built (src/exposition/assemble.ts),
 * at most once per scrape interval rather than on every poll. Every node write bumps the generation (polls and
 * listings always bring a new timestamp). A build reads the states of its start through a view (`nodeView()`):
 * while a view is open, a write or delete first saves the node's state as it was for that view, so a body is one
 * moment's data while polling goes on.
 *
 * A node's state carries facts of its group (its deployed config version): the store keeps which nodes belong to
 * which group, and a group change that matters to its nodes (a deploy) re-writes exactly that group's nodes.
 */

import { groupKey, type GroupState, type LeaderState, type NodeState } from '../collectors/state.js';
import type { HealthFacts } from '../collectors/node-health.js';
import type { MetadataFacts } from '../collectors/node-metadata.js';
import { labelPairs } from '../format/escape.js';
import { timeSlicer } from '../util/yield.js';
import {
  NodeTable,
  packFingerprint,
  packTransferList,
  readRow,
  type NodeColumns,
  type PackedNodes,
} from './node-table.js';
import { contentRuns } from '../util/content-runs.js';

/** How the store turns group and leader state into text (one string per family, in body order) and keeps nodes. */
export interface SnapshotRenderers {
  groups(groups: readonly GroupState[], targetPairs: string): readonly string[];
  leader(leader: LeaderState | undefined, targetPairs: string): readonly string[];
  /** The node's state as kept: the written state with the facts the store derives (group facts, restarts). */
  nodeWithFacts(prev: NodeState | undefined, next: NodeState, group: GroupState | undefined): NodeState;
  /** The same facts from the previous start time and restarts alone (a listing's apply: `setListing`). */
  listingFacts(
    prevStartTime: number | undefined,
    prevRestarts: number | undefined,
    startTime: number | undefined,
    group: GroupState | undefined,
  ): { restarts: number; deployedConfigVersion: string | undefined };
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
  /**
   * What a listing says of a node: as `setNode({ ...getNode(key), product, group, worker })` (a new node gets
   * `worker.id` as its id), without reading the whole state: health and metadata stay as they are.
   */
  setListing(key: string, product: NodeState['product'], group: string, worker: NodeState['worker']): void;
  deleteNode(key: string): void;
  /** The node's state: a new object made from the columns (writing to it changes nothing held). */
  getNode(key: string): NodeState | undefined;
  hasNode(key: string): boolean;
  /** The node's id, what its polls are addressed with. */
  nodeId(key: string): string | undefined;
  /** The node's health facts (undefined before its first poll or when the node is unknown). */
  nodeHealth(key: string): HealthFacts | undefined;
  /** Replaces the node's health facts (a poll's outcome); nothing for an unknown node. */
  setNodeHealth(key: string, health: HealthFacts): void;
  nodeMetadata(key: string): MetadataFacts | undefined;
  /** Replaces the node's metadata facts; nothing for an unknown node. */
  setNodeMetadata(key: string, metadata: MetadataFacts): void;
  nodeKeys(): IterableIterator<string>;
  /** Every node's state as of now, in first-write order (the body's order), each made when reached. */
  nodes(): IterableIterator<NodeState>;
  /**
   * The nodes as of now, in first-write order, read in slices while writes go on: the states stay those of this
   * call until `close()` (a build's input). Close it when done: an open view makes every write save a copy.
   */
  nodeView(): NodeView;
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

/** A moment's nodes (LeaderSnapshot.nodeView). */
export interface NodeView {
  readonly length: number;
  /** The states at positions [start, end), made now; none once the view is closed. */
  slice(start: number, end: number): NodeState[];
  /** The same states as columns (for another thread: `unpackNodes` reads them there). None once closed. */
  pack(start: number, end: number): { data: PackedNodes; transfer: ArrayBuffer[] };
  /** packFingerprint of the same states (a build on this thread reuses what did not change but volatile values). */
  fingerprint(start: number, end: number): string | undefined;
  /** The ends of runs of about `nodes` nodes, cut by their ids (util/content-runs.ts); none once closed. */
  runEnds(nodes: number): readonly number[];
  close(): void;
}

let nextId = 1;

class View implements NodeView {
  readonly #slots: Int32Array;
  /** Per slot: 1 while the view still reads it from the table (not yet saved, not yet deleted). */
  readonly #live: Uint8Array;
  /** The columns of slots changed since the view was made, as they were then. */
  readonly #saved = new Map<number, NodeColumns>();
  readonly #table: NodeTable;
  readonly #onClose: (v: View) => void;
  #closed = false;

  constructor(slots: Int32Array, capacity: number, table: NodeTable, onClose: (v: View) => void) {
    this.#slots = slots;
    this.#live = new Uint8Array(capacity);
    for (const slot of slots) this.#live[slot] = 1;
    this.#table = table;
    this.#onClose = onClose;
  }

  get length(): number {
    return this.#slots.length;
  }

  /** Called before the table's slot changes: keeps the columns this view must see. */
  preserve(slot: number): void {
    if (this.#live[slot] !== 1) return;
    this.#live[slot] = 0;
    this.#saved.set(slot, this.#table.copyRow(slot));
  }

  /** The view's slots at positions [start, end); none once closed (it no longer knows what it held). */
  #range(start: number, end: number): number[] {
    const slots: number[] = [];
    if (this.#closed) return slots;
    const stop = Math.min(end, this.#slots.length);
    for (let i = Math.max(0, start); i < stop; i++) slots.push(this.#slots[i] as number);
    return slots;
  }

  slice(start: number, end: number): NodeState[] {
    return this.#range(start, end).map((slot) => {
      const row = this.#saved.get(slot);
      return row ? readRow(row, 0) : this.#table.read(slot);
    });
  }

  pack(start: number, end: number): { data: PackedNodes; transfer: ArrayBuffer[] } {
    const data = this.#table.pack(this.#range(start, end), this.#saved);
    return { data, transfer: packTransferList(data) };
  }

  runEnds(nodes: number): readonly number[] {
    if (this.#closed) return [];
    const slots = this.#slots;
    return contentRuns(
      slots.length,
      (i) => {
        const slot = slots[i] as number;
        const row = this.#saved.get(slot);
        return row ? NodeTable.savedNodeId(row) : this.#table.nodeId(slot);
      },
      nodes,
    );
  }

  fingerprint(start: number, end: number): string | undefined {
    return this.#closed ? undefined : packFingerprint(this.#table.pack(this.#range(start, end), this.#saved));
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#saved.clear();
    this.#onClose(this);
  }
}

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
  /** Node slots by key, in first-write order. */
  readonly #nodes = new Map<string, number>();
  readonly #table = new NodeTable();
  readonly #views = new Set<View>();
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
    let slot = this.#nodes.get(key);
    const prev = slot === undefined ? undefined : this.#table.read(slot);
    const group = groupKey(state.product, state.group);
    const full = this.#render.nodeWithFacts(prev, state, this.#groups.get(group));
    if (slot === undefined) {
      slot = this.#table.alloc();
      this.#nodes.set(key, slot);
    } else this.#preserve(slot);
    this.#table.write(slot, full);
    this.#moveMember(key, prev && groupKey(prev.product, prev.group), group);
    this.#changed();
  }

  setListing(key: string, product: NodeState['product'], group: string, worker: NodeState['worker']): void {
    const slot = this.#nodes.get(key);
    if (slot === undefined) {
      this.setNode(key, { product, group, nodeId: worker.id, worker });
      return;
    }
    const t = this.#table;
    const before = groupKey(t.product(slot), t.group(slot));
    const after = groupKey(product, group);
    const facts = this.#render.listingFacts(
      t.startTime(slot),
      t.restarts(slot),
      worker.info.cribl.startTime,
      this.#groups.get(after),
    );
    this.#preserve(slot);
    t.writeListing(slot, {
      product,
      group,
      worker,
      ...(facts.restarts > 0 ? { restarts: facts.restarts } : {}),
      ...(facts.deployedConfigVersion === undefined ? {} : { deployedConfigVersion: facts.deployedConfigVersion }),
    });
    this.#moveMember(key, before, after);
    this.#changed();
  }

  /** Moves a node's key from the members of group `before` (none for a new node) to those of `after`. */
  #moveMember(key: string, before: string | undefined, after: string): void {
    if (before === after) return;
    if (before !== undefined) {
      const members = this.#members.get(before);
      members?.delete(key);
      if (members?.size === 0) this.#members.delete(before);
    }
    let members = this.#members.get(after);
    if (!members) this.#members.set(after, (members = new Set()));
    members.add(key);
  }

  deleteNode(key: string): void {
    const slot = this.#nodes.get(key);
    if (slot === undefined) return;
    this.#preserve(slot);
    const group = groupKey(this.#table.product(slot), this.#table.group(slot));
    this.#nodes.delete(key);
    this.#table.free(slot);
    const members = this.#members.get(group);
    members?.delete(key);
    if (members?.size === 0) this.#members.delete(group);
    this.#changed();
  }

  getNode(key: string): NodeState | undefined {
    const slot = this.#nodes.get(key);
    return slot === undefined ? undefined : this.#table.read(slot);
  }

  hasNode(key: string): boolean {
    return this.#nodes.has(key);
  }

  nodeId(key: string): string | undefined {
    const slot = this.#nodes.get(key);
    return slot === undefined ? undefined : this.#table.nodeId(slot);
  }

  nodeHealth(key: string): HealthFacts | undefined {
    const slot = this.#nodes.get(key);
    return slot === undefined ? undefined : this.#table.health(slot);
  }

  setNodeHealth(key: string, health: HealthFacts): void {
    const slot = this.#nodes.get(key);
    if (slot === undefined) return;
    this.#preserve(slot);
    this.#table.writeHealth(slot, health);
    this.#changed();
  }

  nodeMetadata(key: string): MetadataFacts | undefined {
    const slot = this.#nodes.get(key);
    return slot === undefined ? undefined : this.#table.metadata(slot);
  }

  setNodeMetadata(key: string, metadata: MetadataFacts): void {
    const slot = this.#nodes.get(key);
    if (slot === undefined) return;
    this.#preserve(slot);
    this.#table.writeMetadata(slot, metadata);
    this.#changed();
  }

  nodeKeys(): IterableIterator<string> {
    return this.#nodes.keys();
  }

  *nodes(): IterableIterator<NodeState> {
    for (const slot of this.#nodes.values()) yield this.#table.read(slot);
  }

  nodeView(): NodeView {
    // A loop into a sized array: Int32Array.from over the map's iterator took 8 ms at 50,000 nodes.
    const slots = new Int32Array(this.#nodes.size);
    let i = 0;
    for (const slot of this.#nodes.values()) slots[i++] = slot;
    const view = new View(slots, this.#table.slotCount, this.#table, (v) => this.#views.delete(v));
    this.#views.add(view);
    return view;
  }

  /** Before a slot changes: every open view keeps the state it must see. */
  #preserve(slot: number): void {
    if (this.#views.size === 0) return;
    for (const view of this.#views) view.preserve(slot);
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
        const state = this.getNode(key);
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
