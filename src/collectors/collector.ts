/**
 * What a collector is: everything about one upstream endpoint (or a few that belong together) in one folder,
 * src/collectors/<name>/, registered with one line in registry.ts. It declares
 *   - its settings (flags), gathered by src/config/;
 *   - its schedule: per node (the health poll, or riding on it), per discovery, on its own interval; the listing
 *     and the management plane are the engine's own;
 *   - its requests, decoders and facts (what it keeps of an answer: the store keeps them under its name);
 *   - its families per scope, and how fresh they are (the HELP sentence);
 *   - the request `check` sends to probe it.
 * The engines around it (src/polling/ for the schedules, src/store/ for the facts, src/exposition/ for the body)
 * iterate the registered collectors; none of them knows a collector's fields.
 */
import type { Logger } from 'pino';
import type { Product } from '@cribl-exporter/api/products';
import type { Family } from '../format/family.js';
import type { LeaderClient, LeaderRequest, LeaderResult } from '../leader/types.js';
import type { Section, SectionValues } from '../settings/table.js';
import type { Clock } from '@cribl-exporter/api/clock';
import { formatDuration } from '@cribl-exporter/api/duration';

/** A collector's facts of one item, by collector name. */
export type Facts = Readonly<Record<string, unknown>>;

/** Who a node is: what its series are labelled with. Replaced (never changed) when the listing moves it. */
export interface NodeIdent {
  readonly product: Product;
  /** Group / fleet id, from the listing. */
  readonly group: string;
  readonly nodeId: string;
}

/** One node as the store holds it: immutable, a new item on every write. */
export interface NodeItem {
  /** The store's key of the node (its id). */
  readonly key: string;
  readonly ident: NodeIdent;
  readonly facts: Facts;
}

/** One group / fleet. */
export interface GroupItem {
  readonly product: Product;
  readonly id: string;
  readonly facts: Facts;
}

/** The leader itself, or the management plane: facts only. */
export interface ScopeItem {
  readonly facts: Facts;
}

/** The identity of a group across scopes: product and id. */
export function groupKey(product: Product, group: string): string {
  return `${product}\u0000${group}`;
}

/** Typed access to one collector's facts of an item. */
export interface FactsKey<F> {
  readonly collector: string;
  of(item: { readonly facts: Facts } | undefined): F | undefined;
}

export function factsKey<F>(collector: string): FactsKey<F> {
  return { collector, of: (item) => item?.facts[collector] as F | undefined };
}

/** What a node family is given besides the node: its group, for facts of the group (a deployed config version). */
export interface NodeContext {
  readonly group: GroupItem | undefined;
}

/**
 * A node family. `detail: 'basic'` keeps it at the `basic` node detail level (src/collectors/detail.ts: liveness,
 * identity and freshness, a few series per node); untagged, it is exported only at `full`. At `minimal` no node
 * family is exported. Which level is in force is the leader's facts (detailFacts), per product; the body
 * (src/exposition/body/render.ts) renders a node's family only where `exported(level, detail)`.
 */
export type NodeFamily = Family<NodeItem, NodeContext> & { readonly detail?: 'basic' };
export type GroupFamily = Family<GroupItem>;
export type ScopeFamily = Family<ScopeItem>;

/** A collector's families, per scope; each scope's families come out in registry order, then in this order. */
export interface Families {
  readonly management?: readonly ScopeFamily[];
  readonly leader?: readonly ScopeFamily[];
  readonly group?: readonly GroupFamily[];
  readonly node?: readonly NodeFamily[];
}

export type Scope = keyof Families;

/** The leader a collector runs against. */
export interface Target {
  /** A Cribl.Cloud workspace (`--cloud.*`, or discovered). */
  readonly cloud: boolean;
  /** HA hosts are given (`--leader.ha-url`). */
  readonly ha?: boolean;
}

/** The intervals every collector's freshness may name. */
export interface Intervals {
  readonly discoveryMs: number;
}

/** What a discovery or interval collector's run gets. Its writes go under its own name. */
export interface RunContext<S> {
  readonly settings: S;
  /** The leader's client: its budget, its credentials. */
  readonly client: LeaderClient;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Bounds every request of the run (and its retries). */
  readonly deadline: number;
  readonly signal: AbortSignal;
  /** The groups of the last discovery. */
  groups(): readonly GroupItem[];
  /**
   * The nodes this process exports (its shard's share of the listing), as the store holds them now: a run after the
   * listing sees that discovery's nodes, with each one's last health poll.
   */
  nodes(): readonly NodeItem[];
  /** The collector's facts of the leader, as last written. */
  leaderFacts(): unknown;
  /** The leader's item as the store holds it now: every collector's facts of it (the node detail levels: detail.ts). */
  leader(): ScopeItem;
  setLeaderFacts(facts: unknown): void;
  /** Replaces the collector's facts of the groups named (groupKey); the others keep theirs. */
  setGroupFacts(facts: ReadonlyMap<string, unknown>): void;
  /**
   * Replaces the collector's facts of the nodes named (NodeItem.key); the others keep theirs. Facts a node family
   * reads belong on its node: a build compares them node by node (src/exposition/body/staleness.ts), where facts it
   * reads through the node's group are compared as the group, whose change renders the family anew for every node.
   */
  setNodeFacts(facts: ReadonlyMap<string, unknown>): void;
  /**
   * Sets one of the collector's own gauges (`gauges`); a gauge several collectors set (one declares it) reads the
   * largest of their values.
   */
  setGauge(name: string, value: number): void;
  /** Adds to one of the collector's own counters (`gauges` entries with `counter: true`). */
  count(name: string, n: number): void;
  /** Logs one warning per distinct `key` while the collector lives (a cap that bites, say). */
  warnOnce(key: string, fields: Record<string, unknown>, message: string): void;
}

/** What a node poll knows when a riding collector decides whether it is due. */
export interface RideContext {
  readonly key: string;
  /** Primary polls of the node completed, this one included. */
  readonly polls: number;
  /** The node restarted since this collector last polled it (or was never polled). */
  readonly restarted: boolean;
  /** When this collector last polled the node. */
  readonly lastPollMs: number | undefined;
  readonly nowMs: number;
  /** The primary's interval. */
  readonly primaryIntervalMs: number;
}

/**
 * A per-node collector: a request per node through the leader (host context). The primary (node health) is the poll
 * each node has at its own slot; the others ride on its answers when `due`.
 */
export interface NodeSchedule<S, T = unknown, F = unknown> {
  readonly kind: 'node';
  readonly primary?: true;
  intervalMs(settings: S): number;
  request(nodeId: string, deadline: number, signal: AbortSignal, onExchange?: (ms: number) => void): LeaderRequest<T>;
  /** The facts after a poll's result. */
  next(prev: F | undefined, res: LeaderResult<T>, nowMs: number): F;
  /** A rider: whether to poll after the primary's answer. */
  due?(settings: S, poll: RideContext): boolean;
  /** The primary: the node's process start time in its facts (a change is a restart). */
  startTime?(facts: F): number | undefined;
}

/** Runs once per discovery, after the listing (or `first`: before it). */
export interface DiscoverySchedule<S> {
  readonly kind: 'discovery';
  readonly first?: true;
  /** Requests a run sends, for the rate a fleet needs (`check`). @default one a run */
  readonly cost?: { readonly perRun?: number; readonly perGroup?: number };
  run(ctx: RunContext<S>): Promise<void>;
}

/** Runs on an interval of its own, from the start (or `perGroup`: from the first discovery, which lists the groups). */
export interface IntervalSchedule<S> {
  readonly kind: 'interval';
  readonly perGroup?: true;
  /** Requests a run sends, for the rate a fleet needs (`check`). @default one a group (`perGroup`), else one */
  readonly cost?: { readonly perRun?: number; readonly perGroup?: number };
  intervalMs(settings: S): number;
  run(ctx: RunContext<S>): Promise<void>;
}

/** The discovery's own collectors (listing, groups) and the management plane: the engine runs them. */
export interface EngineSchedule {
  readonly kind: 'listing' | 'management';
}

export type Schedule<S> = NodeSchedule<S> | DiscoverySchedule<S> | IntervalSchedule<S> | EngineSchedule;

/** A collector. `S` is its settings' parsed values. */
export interface Collector<S = unknown> {
  /** Its name: the `collect[]` value, the `collector` label, the key of its facts in the store. */
  readonly name: string;
  /** Its settings, declared in its folder. */
  readonly settings?: Section;
  /**
   * What is wrong with these settings together, in one line naming them with `where` (how the user gave each: a
   * flag, a variable, a file key); undefined when nothing is.
   */
  check?(settings: S, where: (flag: string) => string): string | undefined;
  /** Whether it runs for a leader with these settings. @default always */
  enabled?(settings: S, target: Target): boolean;
  /**
   * A refusal (401/403) or an absence (404) of its requests turns it off for that leader alone, until a later run
   * succeeds; the others are required (their refusals are the leader's credentials).
   */
  readonly optional?: true;
  /**
   * Where a refusal of this optional collector is what the leader does by design (the license on Cribl.Cloud): it is
   * turned off with an info line, not a warning. @default never
   */
  refusalExpected?(target: Target): boolean;
  /** The permission its requests need, named in the warning when the leader refuses them. */
  readonly permission?: string;
  /**
   * Self-metrics of its own (`cribl_exporter_…{leader}` gauges, or counters with `counter`), set by its runs
   * (`RunContext.setGauge`, `RunContext.count`).
   */
  readonly gauges?: readonly { readonly name: string; readonly help: string; readonly counter?: true }[];
  /** How fresh its families of a scope are: the sentence that ends their HELP. */
  freshness(settings: S, intervals: Intervals, scope: Scope): string;
  readonly families: Families;
  readonly schedule: Schedule<S>;
  /** The request `check` sends to see whether the leader lets this collector read (given a group when it has one). */
  probe?(settings: S, group: string | undefined, deadline: number): LeaderRequest<unknown>;
}

/** Declares a collector and its settings' section: the settings' type follows from the rows. */
export function collector<const Sec extends Section = Record<never, never>>(
  c: Omit<Collector<SectionValues<Sec>>, 'settings'> & { readonly settings?: Sec },
): Collector<SectionValues<Sec>> {
  return c;
}

/** "Refreshed by discovery every 1m; cached in between." */
export function discoveryFreshness(intervals: Intervals): string {
  return `Refreshed by discovery every ${formatDuration(intervals.discoveryMs)}; cached in between.`;
}

/** "Polled every 30s through the leader; cached between polls." */
export function polledFreshness(ms: number): string {
  return `Polled every ${formatDuration(ms)} through the leader; cached between polls.`;
}
