/**
 * The snapshot store of one leader, and the only owner of its node, group and leader facts: each collector's facts
 * of an item kept under the collector's name, without knowing their fields. Discovery and polling write; the body
 * and the status page read a moment (`moment()`): items are immutable (a write makes a new one), so a moment is the
 * arrays of the items as they were, whatever is written after. Every write bumps the generation and tells the
 * listeners (the body cache marks itself dirty; it builds on its own schedule).
 */
import type { Product } from '@cribl-exporter/api/products';
import {
  groupKey,
  type Facts,
  type GroupItem,
  type NodeIdent,
  type NodeItem,
  type ScopeItem,
} from '../collectors/collector.js';
import { labelPairs } from '../format/escape.js';

/** The items of a leader as they were at one moment. */
export interface Moment {
  readonly leader: ScopeItem;
  readonly groups: readonly GroupItem[];
  /** In first-listed order. */
  readonly nodes: readonly NodeItem[];
}

const EMPTY: Facts = Object.freeze({});

let nextId = 1;

/** Sets one collector's facts in a facts record (a new record; undefined removes them). */
function withFacts(facts: Facts, collector: string, value: unknown): Facts {
  if (facts[collector] === value) return facts;
  const next: Record<string, unknown> = { ...facts };
  if (value === undefined) delete next[collector];
  else next[collector] = value;
  return next;
}

/** The store of one leader (and of the management plane, which has only its scope's facts). */
export class LeaderSnapshot {
  /** Unique in the process. */
  readonly id = nextId++;
  /** Labels added first to every series of this leader (e.g. `{ workspace: 'prod' }`); validated by config. */
  readonly labels: Readonly<Record<string, string>>;
  /** The target labels rendered (`workspace="a"`), or empty: the opening of every series of this leader. */
  readonly targetPairs: string;
  #generation = 0;
  /** Nodes by key, in first-write order (a Map keeps a key's place when its value is replaced). */
  readonly #nodes = new Map<string, NodeItem>();
  /** Groups by groupKey, in listing order. */
  #groups = new Map<string, GroupItem>();
  #leader: ScopeItem = { facts: EMPTY };
  readonly #listeners = new Set<() => void>();

  constructor(labels: Readonly<Record<string, string>> = {}) {
    this.labels = Object.freeze({ ...labels });
    this.targetPairs = labelPairs(this.labels);
  }

  /** Grows on every write. */
  get generation(): number {
    return this.#generation;
  }

  /** Number of nodes held. */
  get size(): number {
    return this.#nodes.size;
  }

  /** The node, as last written. */
  node(key: string): NodeItem | undefined {
    return this.#nodes.get(key);
  }

  hasNode(key: string): boolean {
    return this.#nodes.has(key);
  }

  nodeKeys(): IterableIterator<string> {
    return this.#nodes.keys();
  }

  /** The nodes as of now, in first-write order. */
  nodes(): NodeItem[] {
    return [...this.#nodes.values()];
  }

  /**
   * A node as the listing gives it: who it is and one collector's facts of it (a new node comes with them; the
   * identity of a known one is replaced only when it changed).
   */
  putNode(key: string, ident: NodeIdent, collector: string, facts: unknown): void {
    const prev = this.#nodes.get(key);
    const same =
      prev !== undefined &&
      prev.ident.product === ident.product &&
      prev.ident.group === ident.group &&
      prev.ident.nodeId === ident.nodeId;
    this.#nodes.set(key, {
      key,
      ident: same ? prev.ident : ident,
      facts: withFacts(prev?.facts ?? EMPTY, collector, facts),
    });
    this.#changed();
  }

  /** Replaces one collector's facts of a node; nothing for an unknown node. */
  setNodeFacts(key: string, collector: string, facts: unknown): void {
    if (this.#writeNodeFacts(key, collector, facts)) this.#changed();
  }

  /** Replaces one collector's facts of the nodes named (by key), at once; unknown nodes are passed over. */
  setNodesFacts(collector: string, facts: ReadonlyMap<string, unknown>): void {
    let changed = false;
    for (const [key, value] of facts) changed = this.#writeNodeFacts(key, collector, value) || changed;
    if (changed) this.#changed();
  }

  /** Whether the node is known and its facts changed. */
  #writeNodeFacts(key: string, collector: string, facts: unknown): boolean {
    const prev = this.#nodes.get(key);
    if (!prev) return false;
    const next = withFacts(prev.facts, collector, facts);
    if (next === prev.facts) return false;
    this.#nodes.set(key, { key, ident: prev.ident, facts: next });
    return true;
  }

  deleteNode(key: string): void {
    if (this.#nodes.delete(key)) this.#changed();
  }

  /**
   * Replaces the groups (a discovery): each comes with one collector's facts (the listing's); a group that was there
   * before keeps every other collector's facts. A group of a product in `unanswered` (its listing failed) that is not
   * given stays as it was, with all its facts: a group leaves only when an answered listing no longer has it.
   */
  setGroups(
    collector: string,
    groups: readonly { product: Product; id: string; facts: unknown }[],
    unanswered: readonly Product[] = [],
  ): void {
    const before = this.#groups;
    const after = new Map<string, GroupItem>();
    for (const g of groups) {
      const key = groupKey(g.product, g.id);
      if (after.has(key)) continue;
      const facts = withFacts(before.get(key)?.facts ?? EMPTY, collector, g.facts);
      after.set(key, { product: g.product, id: g.id, facts });
    }
    for (const [key, g] of before) if (unanswered.includes(g.product) && !after.has(key)) after.set(key, g);
    this.#groups = after;
    this.#changed();
  }

  /** Replaces one collector's facts of the groups named (by groupKey); the others keep theirs. */
  setGroupFacts(collector: string, facts: ReadonlyMap<string, unknown>): void {
    for (const [key, value] of facts) {
      const g = this.#groups.get(key);
      if (g) this.#groups.set(key, { product: g.product, id: g.id, facts: withFacts(g.facts, collector, value) });
    }
    this.#changed();
  }

  /** A group, by product and id. */
  group(product: Product, id: string): GroupItem | undefined {
    return this.#groups.get(groupKey(product, id));
  }

  /** Every group, in listing order. */
  groups(): GroupItem[] {
    return [...this.#groups.values()];
  }

  /** The leader's facts. */
  leader(): ScopeItem {
    return this.#leader;
  }

  /** Replaces one collector's facts of the leader. */
  setLeaderFacts(collector: string, facts: unknown): void {
    const next = withFacts(this.#leader.facts, collector, facts);
    if (next === this.#leader.facts) return;
    this.#leader = { facts: next };
    this.#changed();
  }

  /** Every item as of now. */
  moment(): Moment {
    return { leader: this.#leader, groups: this.groups(), nodes: this.nodes() };
  }

  /** Calls `listener` after each change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    this.#generation++;
    for (const listener of this.#listeners) listener();
  }
}
