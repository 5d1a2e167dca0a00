/**
 * Node detail levels, per product, named as Cribl names its own metrics levels: what the exporter exports of each
 * node, and how it polls them.
 *   - `full`: every per-node family (today's output); every node's /health once per --health.interval.
 *   - `basic`: per node only the families tagged `detail: 'basic'` (connected, health up, the identity
 *     cribl_node_info, the freshness timestamps); the rest per group. Health polls rotate through the fleet as the
 *     allowed rate permits; liveness comes from the listing.
 *   - `minimal`: no per-node series at all; per group only. Liveness from the listing; health polls a rotating
 *     sample.
 * The per-group aggregates are exported at every level, so a dashboard reads the same at any level.
 * `auto` (the default of --edge.node-detail and --stream.node-detail) picks the level from the product's listed
 * fleet size at each discovery (AUTO_DETAIL).
 */
import type { Product } from '@cribl-exporter/api/products';
import { factsKey } from './collector.js';

export const NODE_DETAILS = ['full', 'basic', 'minimal'] as const;
export type NodeDetail = (typeof NODE_DETAILS)[number];

/** A product's setting: a level pinned, or `auto` (by fleet size). */
export type NodeDetailSetting = NodeDetail | 'auto';
export const NODE_DETAIL_SETTINGS: readonly NodeDetailSetting[] = ['auto', ...NODE_DETAILS];

/**
 * `auto`'s thresholds, by the product's listed nodes (the whole listing, before sharding, so that every shard picks
 * the same level): `full` up to `fullUpTo`, `basic` up to `basicUpTo`, `minimal` above.
 */
export const AUTO_DETAIL: AutoDetail = { fullUpTo: 25_000, basicUpTo: 100_000 };

/** `auto`'s thresholds (AUTO_DETAIL; other ones only in tests, which cannot list 25,000 nodes quickly). */
export interface AutoDetail {
  readonly fullUpTo: number;
  readonly basicUpTo: number;
}

/** The level in force for a product with `nodes` listed nodes. */
export function detailFor(setting: NodeDetailSetting, nodes: number, auto: AutoDetail = AUTO_DETAIL): NodeDetail {
  if (setting !== 'auto') return setting;
  return nodes <= auto.fullUpTo ? 'full' : nodes <= auto.basicUpTo ? 'basic' : 'minimal';
}

/** Whether the health polls of a product at this level rotate through the fleet (never reported as an overrun). */
export const rotates = (level: NodeDetail): boolean => level !== 'full';

/** Whether a node family with this tag is exported at this level (untagged: only in `full`). */
export function exported(level: NodeDetail, tag: 'basic' | undefined): boolean {
  return level === 'full' || (level === 'basic' && tag === 'basic');
}

/**
 * A node's heartbeat period to its leader, by product (Cribl documents 60 s for Edge; Stream's workers beat at least
 * as often): a node not heard from for SILENT_HEARTBEATS periods is counted silent.
 */
export const HEARTBEAT_MS: Readonly<Record<Product, number>> = { edge: 60_000, stream: 60_000 };
export const SILENT_HEARTBEATS = 3;

/** The levels in force for one leader, by product (the products it lists), as of its last discovery. */
export interface DetailFacts {
  readonly levels: Readonly<Partial<Record<Product, NodeDetail>>>;
  /** Listed nodes per product that decided them (the whole listing, every shard's nodes). */
  readonly nodes: Readonly<Partial<Record<Product, number>>>;
}

/** The leader's facts of the detail levels (written by each discovery: src/polling/discovery-step.ts). */
export const detailFacts = factsKey<DetailFacts>('node_detail');

/** The level of a product by the leader's facts; `full` before the first discovery decided one. */
export function levelOf(facts: DetailFacts | undefined, product: Product): NodeDetail {
  return facts?.levels[product] ?? 'full';
}

/** The levels in force by product, as DetailFacts has them (none before the first discovery: every product full). */
export type DetailLevels = DetailFacts['levels'];

/** Whether two sets of levels are the same for every product. */
export function sameLevels(a: DetailLevels | undefined, b: DetailLevels | undefined): boolean {
  const keys = new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})]) as Set<Product>;
  for (const p of keys) if (a?.[p] !== b?.[p]) return false;
  return true;
}

/**
 * Whether a node family with this tag is exported for some product at these levels: for a product a level decides
 * (every product the last discovery listed, so every node's); with no level decided yet, every product is `full`.
 */
export function exportedAnywhere(levels: DetailLevels | undefined, tag: 'basic' | undefined): boolean {
  const decided = Object.values(levels ?? {});
  return decided.length === 0 || decided.some((level) => exported(level, tag));
}
