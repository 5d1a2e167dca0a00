/**
 * What covering a fleet costs a leader: the requests per second one exporter process sends at the configured
 * intervals (README "How it works": a health poll per node per health interval, a metadata poll per node per
 * metadata interval, and per discovery the listing pages and the groups of each product, the leader's own /health,
 * one commit history per group and the git settings: src/polling/leader-requests.ts).
 */

/** Requests per second, by kind. */
export interface RequestRate {
  health: number;
  metadata: number;
  discovery: number;
  total: number;
}

/** The fleet and the schedule whose cost is wanted. */
export interface CostInput {
  /** Nodes the leader lists (every product). */
  nodes: number;
  /** Products listed (`--products`). */
  products: number;
  intervals: { discoveryMs: number; healthMs: number; metadataMs: number };
  /** Shards sharing the fleet: each polls its share, every one lists the whole fleet. @default 1 */
  shards?: number;
  /** Listing page size. @default 1000 (src/discovery/discovery.ts) */
  pageSize?: number;
  /** Groups and fleets the leader lists: one GET /m/{group}/version each per discovery. @default 0 */
  groups?: number;
  /** `--collector.git-settings`: one GET /system/settings/git-settings per discovery. @default true */
  gitSettings?: boolean;
}

/** Requests per second one process sends to cover the fleet at the configured intervals. */
export function requestRate(input: CostInput): RequestRate {
  const polled = input.nodes / Math.max(1, input.shards ?? 1);
  const pageSize = input.pageSize ?? 1000;
  // Per product, at least one listing page and one groups page; then one more listing page per full page.
  // Then the leader's own /health, the commit history of every group and the git settings.
  const perDiscovery =
    input.products * 2 +
    Math.floor(input.nodes / pageSize) +
    1 +
    (input.groups ?? 0) +
    (input.gitSettings === false ? 0 : 1);
  const health = (polled * 1000) / input.intervals.healthMs;
  const metadata = (polled * 1000) / input.intervals.metadataMs;
  const discovery = (perDiscovery * 1000) / input.intervals.discoveryMs;
  return { health, metadata, discovery, total: health + metadata + discovery };
}
