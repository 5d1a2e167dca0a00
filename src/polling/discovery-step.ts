/**
 * One leader's discovery step: the collectors that run before the listing (the leader's own /health), the listing
 * and its groups, this process's share of the fleet applied to the store (groups) and to the poller (which nodes to
 * poll), then every per-discovery collector of the registry (group versions, git settings, …). The scheduler runs it
 * every discovery interval; src/exporter/runtime.ts wires it.
 */
import type { Logger } from 'pino';
import type { Product } from '@cribl-exporter/api/products';
import type { Collector } from '../collectors/collector.js';
import {
  AUTO_DETAIL,
  detailFacts,
  type AutoDetail,
  HEARTBEAT_MS,
  detailFor,
  type DetailFacts,
  type NodeDetail,
  type NodeDetailSetting,
} from '../collectors/detail.js';
import { fromProbe, leaderHealth } from '../collectors/leader-health/index.js';
import { groups as groupsCollector } from '../collectors/groups/index.js';
import { isCommitHash } from '../collectors/group-version/index.js';
import {
  countRemoved,
  countRestartsGone,
  listedNode,
  listing,
  withRestarts,
  type DiscoveryFacts,
  type ListingGroupFacts,
} from '../collectors/listing/index.js';
import type { Discoverer, DiscoveryOutcome } from '../discovery/discovery.js';
import { selectNodes, type Selection, type ShardConfig } from '../discovery/select.js';
import type { LeaderFailure } from '../leader/types.js';
import type { LeaderSnapshot } from '../store/snapshot.js';
import type { Clock } from '@cribl-exporter/api/clock';
import type { CollectorRuns } from './collector-runs.js';
import type { DiscoveredNode, Poller } from './poller.js';

/** Where a discovery reports (the prom-client side lives in src/telemetry/). */
export interface DiscoveryMetrics {
  /** Duration of the last discovery. */
  discovery(seconds: number): void;
  /** Nodes exported, and nodes left out by `--max-nodes`. */
  nodes(exported: number, overLimit: number): void;
  /** The node detail level in force per product listed (cribl_exporter_node_detail). */
  nodeDetail?(levels: Readonly<Partial<Record<Product, NodeDetail>>>): void;
}

/**
 * From this many listed nodes (the whole listing, every product), discoveries come no faster than the nodes'
 * heartbeat period (HEARTBEAT_MS: 60 s for Edge), whatever --discovery.interval says: a node's listing facts
 * (connected, last heartbeat) change once per heartbeat, and each discovery costs a page per 1,000 nodes.
 */
export const SLOW_LISTING_FROM = 100_000;

/** A run of the schedule this much early still counts as due (its ticks come every second, a little early or late). */
const DUE_TOLERANCE_MS = 500;

/** The discovery interval in force: --discovery.interval, or the heartbeat period from SLOW_LISTING_FROM nodes. */
export function discoveryIntervalFor(settingMs: number, listed: Readonly<Partial<Record<Product, number>>>): number {
  const entries = Object.entries(listed) as [Product, number][];
  const total = entries.reduce((a, [, n]) => a + n, 0);
  if (total < SLOW_LISTING_FROM) return settingMs;
  return Math.max(settingMs, ...entries.map(([product]) => HEARTBEAT_MS[product]));
}

export interface DiscoveryStepOptions {
  discoverer: Discoverer;
  poller: Poller;
  /** The per-discovery collectors of the registry, in registry order (those that run `first` go before the listing). */
  collectors: readonly Collector[];
  runs: CollectorRuns;
  snapshot: Pick<LeaderSnapshot, 'setGroups' | 'setGroupFacts' | 'setLeaderFacts' | 'leader' | 'node' | 'nodes'>;
  clock: Clock;
  logger: Logger;
  metrics: DiscoveryMetrics;
  /** Bounds every request of one discovery (and its retries). */
  discoveryIntervalMs: number;
  shard: ShardConfig;
  /** 0 = no limit. */
  maxNodes: number;
  /** `--edge.node-detail`, `--stream.node-detail`. @default auto for both */
  nodeDetail?: Readonly<Record<Product, NodeDetailSetting>>;
  /** `auto`'s thresholds: tests only (a fleet across AUTO_DETAIL's is too slow for a test). @default AUTO_DETAIL */
  autoDetail?: AutoDetail;
}

export class DiscoveryStep {
  readonly #o: DiscoveryStepOptions;
  readonly #first: Collector[];
  readonly #after: Collector[];
  #discovered = false;
  #lastDiscoveryMs: number | undefined;
  #overLimitLogged = 0;
  /** When the failures since the last successful discovery began, while there are some. */
  #failingSince: number | undefined;
  #failures = 0;
  /** Config versions seen that are not commit hashes (logged once each; a few at most). */
  readonly #notHashes = new Set<string>();
  /** Nodes the listing dropped while disconnected, by groupKey, since the start. */
  readonly #removed = new Map<string, number>();
  /** Restarts seen of the nodes this process no longer keeps in their group, by groupKey, since the start. */
  readonly #restartsGone = new Map<string, number>();
  /** The detail level of each product, as of the last discovery (logged when it changes). */
  #levels: Partial<Record<Product, NodeDetail>> = {};
  /** The discovery interval in force (discoveryIntervalFor), as of the last discovery. */
  #intervalMs: number;
  /** When the last discovery that ran began. */
  #lastStartMs: number | undefined;

  constructor(opts: DiscoveryStepOptions) {
    this.#o = opts;
    this.#intervalMs = opts.discoveryIntervalMs;
    const mine = opts.collectors.filter((c) => c.schedule.kind === 'discovery' && opts.runs.enabled(c));
    this.#first = mine.filter((c) => c.schedule.kind === 'discovery' && c.schedule.first === true);
    this.#after = mine.filter((c) => !this.#first.includes(c));
  }

  /** True while the last discovery failed (the leader down, or refusing the exporter's credentials). */
  get failing(): boolean {
    return this.#failingSince !== undefined;
  }

  /**
   * The discovery interval in force: --discovery.interval, or longer for a large fleet (discoveryIntervalFor); the
   * rate plan counts the listing's pages at it.
   */
  get intervalMs(): number {
    return this.#intervalMs;
  }

  /** True once a discovery succeeded. */
  get discovered(): boolean {
    return this.#discovered;
  }

  /**
   * An answer of the leader's /health that the 420 hold's probe got (src/leader/probe.ts): while the leader is
   * not serving, the per-discovery /health is not sent, and these keep its state current.
   */
  onHealthProbe(status: number, json: unknown): void {
    const health = fromProbe(status, json, this.#o.clock.now());
    if (health) this.#o.snapshot.setLeaderFacts(leaderHealth.name, health);
  }

  /** Says once per value (at debug) which config versions are not commit hashes: they get no drift series. */
  #noteVersions(versions: readonly (string | undefined)[]): void {
    for (const v of versions) {
      if (v === undefined || v === '' || isCommitHash(v)) continue;
      if (this.#notHashes.has(v) || this.#notHashes.size >= 20) continue;
      this.#notHashes.add(v);
      this.#o.logger.debug(
        { configVersion: v.slice(0, 64) },
        'config version is not a git commit hash: no cribl_node_config_outdated for the nodes and groups with it',
      );
    }
  }

  /** One discovery; the outcome goes to the snapshot and the poller. */
  async discover(signal: AbortSignal): Promise<void> {
    const { clock, metrics, runs } = this.#o;
    const start = clock.now();
    // The schedule runs at --discovery.interval; a large fleet's interval in force is longer: the runs between skip.
    const last = this.#lastStartMs;
    const slowed = this.#intervalMs > this.#o.discoveryIntervalMs;
    if (slowed && last !== undefined && start - last < this.#intervalMs - DUE_TOLERANCE_MS) return;
    this.#lastStartMs = start;
    const deadline = start + this.#intervalMs;
    // The leader itself first: it answers (anonymously) even when the listing would not.
    let requests = 0;
    for (const c of this.#first) requests += await runs.run(c, deadline, signal);
    if (signal.aborted) return;
    const out = await this.#o.discoverer.discover(deadline, signal);
    if (signal.aborted) return;
    if (!out.ok) return this.#failed(out, start);
    const sel = await this.#apply(out);
    // Then what needs a request per group, and the leader's settings; the listing's result is out already.
    const sent = await Promise.all(this.#after.map((c) => runs.run(c, deadline, signal)));
    if (signal.aborted) return;
    metrics.discovery((clock.now() - start) / 1000);
    requests += out.requests + sent.reduce((a, b) => a + b, 0);
    this.#succeeded(sel, requests);
  }

  /** A failed listing: the leader's listing facts say why; nothing else changes (the nodes keep their state). */
  #failed(out: LeaderFailure, start: number): void {
    const { clock, snapshot, metrics, logger } = this.#o;
    metrics.discovery((clock.now() - start) / 1000);
    this.#failingSince ??= start;
    this.#failures++;
    logger.warn({ reason: out.reason, status: out.status, err: out.message }, 'discovery failed');
    const failed: DiscoveryFacts = {
      up: false,
      ...(this.#lastDiscoveryMs === undefined ? {} : { lastDiscoveryMs: this.#lastDiscoveryMs }),
      failure: {
        reason: out.reason,
        ...(out.status === undefined ? {} : { status: out.status }),
        message: out.message,
      },
    };
    snapshot.setLeaderFacts(listing.name, failed);
  }

  /** An answered listing applied: the groups, the nodes removed while disconnected, this shard's nodes to poll. */
  async #apply(out: Extract<DiscoveryOutcome, { ok: true }>): Promise<Selection> {
    const { clock, snapshot, metrics } = this.#o;
    const sel = selectNodes(out.nodes, this.#o.shard, this.#o.maxNodes);
    this.#decideDetail(out.nodes);
    const before = snapshot.nodes();
    countRemoved(this.#removed, before, out.nodes);
    countRestartsGone(this.#restartsGone, before, sel.nodes);
    snapshot.setGroups(
      groupsCollector.name,
      out.groups.map((g) => ({ product: g.product, id: g.group.id, facts: g.group })),
      out.groupsUnanswered,
    );
    if (out.groupsUnanswered.length === 0) this.#o.runs.answered(groupsCollector.name);
    if (this.#removed.size + this.#restartsGone.size > 0) {
      const facts = new Map<string, ListingGroupFacts>();
      for (const key of new Set([...this.#removed.keys(), ...this.#restartsGone.keys()])) {
        const restartsGone = this.#restartsGone.get(key);
        facts.set(key, { removed: this.#removed.get(key) ?? 0, ...(restartsGone ? { restartsGone } : {}) });
      }
      snapshot.setGroupFacts(listing.name, facts);
    }
    this.#noteVersions([
      ...out.groups.map((g) => g.group.configVersion),
      ...[...sel.nodes.values()].map((n) => n.listed.configVersion),
    ]);
    const nodes = new Map<string, DiscoveredNode>();
    for (const [key, { product, listed }] of sel.nodes) {
      nodes.set(key, {
        ident: { product, group: listed.group, nodeId: listed.id },
        facts: withRestarts(listedNode.of(snapshot.node(key)), listed),
        startTime: listed.startTime,
      });
    }
    await this.#o.poller.setNodes(nodes);
    this.#lastDiscoveryMs = clock.now();
    snapshot.setLeaderFacts(listing.name, {
      up: true,
      lastDiscoveryMs: this.#lastDiscoveryMs,
    } satisfies DiscoveryFacts);
    metrics.nodes(sel.nodes.size, sel.overLimit);
    return sel;
  }

  /**
   * The detail level of each product from its listed fleet (the whole listing: every shard decides alike), written to
   * the leader's facts before the nodes are set; a change is logged once.
   */
  #decideDetail(listed: ReadonlyMap<string, { readonly product: Product }>): void {
    const nodes: Partial<Record<Product, number>> = {};
    for (const { product } of listed.values()) nodes[product] = (nodes[product] ?? 0) + 1;
    const levels: Partial<Record<Product, NodeDetail>> = {};
    const auto = this.#o.autoDetail ?? AUTO_DETAIL;
    for (const [product, count] of Object.entries(nodes) as [Product, number][]) {
      const setting = this.#o.nodeDetail?.[product] ?? 'auto';
      const level = (levels[product] = detailFor(setting, count, auto));
      if (this.#levels[product] === level) continue;
      this.#o.logger.info(
        {
          product,
          level,
          nodes: count,
          ...(this.#levels[product] === undefined ? {} : { was: this.#levels[product] }),
          setting,
        },
        setting === 'auto'
          ? `node detail for ${product}: ${level} (auto by fleet size: full up to ${auto.fullUpTo} nodes, ` +
              `basic up to ${auto.basicUpTo}, minimal above; pin it with --${product}.node-detail)`
          : `node detail for ${product}: ${level} (--${product}.node-detail)`,
      );
    }
    this.#levels = levels;
    this.#o.snapshot.setLeaderFacts(detailFacts.collector, { levels, nodes } satisfies DetailFacts);
    this.#o.metrics.nodeDetail?.(levels);
    this.#decideInterval(nodes);
  }

  /** The discovery interval in force for the fleet listed; a change is logged once. */
  #decideInterval(nodes: Readonly<Partial<Record<Product, number>>>): void {
    const setting = this.#o.discoveryIntervalMs;
    const intervalMs = discoveryIntervalFor(setting, nodes);
    if (intervalMs === this.#intervalMs) return;
    const listed = Object.values(nodes).reduce((a, n) => a + n, 0);
    this.#o.logger.info(
      { nodes: listed, intervalSeconds: intervalMs / 1000, settingSeconds: setting / 1000 },
      intervalMs > setting
        ? `discovery every ${intervalMs / 1000} s, not --discovery.interval's ${setting / 1000} s: from ` +
            `${SLOW_LISTING_FROM} listed nodes no faster than the nodes' heartbeat period (their listing changes ` +
            'once per heartbeat)'
        : `discovery every --discovery.interval (${setting / 1000} s) again: under ${SLOW_LISTING_FROM} listed nodes`,
    );
    this.#intervalMs = intervalMs;
  }

  /** A discovery that went through: what changed is logged once (over --max-nodes, recovered, the first one). */
  #succeeded(sel: Selection, requests: number): void {
    const { clock, logger } = this.#o;
    if (sel.overLimit !== this.#overLimitLogged) {
      if (sel.overLimit > 0) {
        logger.warn(
          { exported: sel.nodes.size, notExported: sel.overLimit, maxNodes: this.#o.maxNodes },
          'more nodes than --max-nodes: the excess is not exported',
        );
      }
      this.#overLimitLogged = sel.overLimit;
    }
    if (this.#failingSince !== undefined) {
      const downSeconds = Math.round((clock.now() - this.#failingSince) / 1000);
      logger.info({ failedDiscoveries: this.#failures, downSeconds }, 'leader recovered: discovery succeeded again');
      this.#failingSince = undefined;
      this.#failures = 0;
    }
    if (!this.#discovered) {
      logger.info({ nodes: sel.nodes.size, requests, otherShards: sel.otherShards }, 'first discovery complete');
    }
    this.#discovered = true;
  }
}
