/**
 * The request rate a polling plan needs from one leader, and the rate the budget allows for it: the one owner of
 * how `--leader.max-rps auto` is computed (the budget applies it after every discovery; `check` reports it).
 */
import type { Logger } from 'pino';
import type { Product } from '@cribl-exporter/api/products';
import type { NodeDetail } from '../collectors/detail.js';
import { DEFAULT_PAGE_SIZE } from '../discovery/discovery.js';
import type { RequestBudget } from '../leader/budget.js';

/** `--leader.max-rps`: a pinned number of requests per second, or `auto` (follows the fleet). */
export type MaxRpsSetting = number | 'auto';

/** Headroom of `auto` over the need: room for retries, restarts and a new fleet's first metadata fetches. */
export const AUTO_RATE_HEADROOM = 1.25;

/**
 * `auto` never goes below this (the former fixed default): a first discovery of a large fleet (a page per 1,000
 * nodes) and a small fleet's bursts stay prompt.
 */
export const AUTO_RATE_MIN = 50;

/**
 * The health polls of a product whose level rotates (basic, minimal: src/collectors/detail.ts) go at most this fast:
 * every node once per --health.interval up to it, a rotating share of the fleet above (250,000 Edge nodes: each
 * polled every 83 minutes), so that the leader sees at most 100 requests/s on default flags, listing pages included.
 */
export const ROTATION_RPS = 50;

/**
 * At `basic` a rotation takes at most this long, faster than ROTATION_RPS when it must: `basic` exports each node's
 * health and its freshness timestamp, and a node whose last answer is older than 15 minutes reads as stale
 * (CriblNodeHealthDataStale, deploy/mixin). 100,000 Edge nodes at `basic`: 167 polls/s.
 */
export const BASIC_ROTATION_MAX_MS = 600_000;

/**
 * Health polls per second of a rotating product of `nodes` nodes at `level`: each once per interval, at most
 * ROTATION_RPS (`minimal`), or every node within BASIC_ROTATION_MAX_MS (`basic`).
 */
export function rotationRate(nodes: number, healthIntervalMs: number, level: NodeDetail = 'minimal'): number {
  const everyInterval = nodes / (healthIntervalMs / 1000);
  const capped = Math.min(everyInterval, ROTATION_RPS);
  if (level !== 'basic') return capped;
  return Math.max(capped, Math.min(everyInterval, nodes / (BASIC_ROTATION_MAX_MS / 1000)));
}

/** Nodes polled per product whose health polls rotate (their level is basic or minimal). */
export type RotatingNodes = Readonly<Partial<Record<Product, number>>>;

/** What a leader's polling plan consists of. */
export interface PollingPlan {
  /** Nodes polled through this leader (after sharding and --max-nodes), rotating ones included. */
  nodes: number;
  /**
   * Of `nodes`, those of each product whose health polls rotate: counted at `rotationRate`, and without riders (their
   * metadata is not polled at basic and minimal).
   */
  rotating?: RotatingNodes;
  /** The level of each rotating product (its rotation rate depends on it). @default minimal */
  rotatingLevels?: Readonly<Partial<Record<Product, NodeDetail>>>;
  /** The node collectors' intervals, the primary (health: each node once per interval) first. */
  nodeIntervalsMs: readonly { readonly name: string; readonly intervalMs: number }[];
  discoveryIntervalMs: number;
  /** Products listed per discovery: each costs a page per 1,000 of its nodes and one groups request. */
  products: number;
  /** Further requests per discovery (e.g. per-group requests), if any. */
  extraPerDiscovery?: number;
}

/** The rate a plan needs, part by part (requests per second, without headroom). */
export interface RateNeed {
  /** Per node collector, the primary first. */
  nodes: readonly { readonly name: string; readonly rps: number }[];
  /** The primary's (health: every node once per interval; a rotating product's at its rotation rate). */
  primary: number;
  /** Of `primary`, each rotating product's health polls. */
  rotation: Partial<Record<Product, number>>;
  /** The other node collectors' together (metadata). */
  riders: number;
  discovery: number;
  total: number;
}

/** Nodes of a plan whose health polls rotate, all products together. */
const rotatingCount = (p: PollingPlan): number => Object.values(p.rotating ?? {}).reduce((a, n) => a + n, 0);

/**
 * Requests per second the plan needs: every node once per interval of each node collector (a rotating product's
 * health at its rotation rate, and no riders), and discovery.
 */
export function rateNeed(p: PollingPlan): RateNeed {
  const full = p.nodes - rotatingCount(p);
  const healthMs = p.nodeIntervalsMs[0]?.intervalMs ?? 1;
  const rotation: Partial<Record<Product, number>> = {};
  for (const [product, n] of Object.entries(p.rotating ?? {}) as [Product, number][]) {
    if (n > 0) rotation[product] = rotationRate(n, healthMs, p.rotatingLevels?.[product]);
  }
  const rotated = Object.values(rotation).reduce((a, r) => a + r, 0);
  const nodes = p.nodeIntervalsMs.map(({ name, intervalMs }, i) => ({
    name,
    rps: full / (intervalMs / 1000) + (i === 0 ? rotated : 0),
  }));
  const primary = nodes[0]?.rps ?? 0;
  const riders = nodes.slice(1).reduce((sum, n) => sum + n.rps, 0);
  const pages = Math.ceil(p.nodes / DEFAULT_PAGE_SIZE) + p.products;
  const discovery = (pages + p.products + (p.extraPerDiscovery ?? 0)) / (p.discoveryIntervalMs / 1000);
  return { nodes, primary, rotation, riders, discovery, total: primary + riders + discovery };
}

/** A rotating product's health polls as allowed: their rate, and the time to poll each of its nodes once. */
export interface RotationRate {
  nodes: number;
  rps: number;
  /** Seconds to poll every node of the product once at `rps` (how old its oldest health answer gets). */
  seconds: number;
}

/** The rate allowed for a plan, and whether it covers it. */
export interface AllowedRate {
  /** Requests per second the budget allows (the bound of its token rate). */
  rps: number;
  /** What the plan needs (no headroom). */
  needed: number;
  /** `auto` or a pinned number. */
  mode: 'auto' | 'pinned';
  /** `auto` wanted more than `--leader.max-rps-ceiling`. */
  capped: boolean;
  /** The allowed rate covers the need: every node of a full-level product once per health interval. */
  covers: boolean;
  /**
   * Seconds to poll every full-level node once at the allowed rate (after metadata, discovery and the rotations);
   * Infinity when none is left.
   */
  cycleSeconds: number;
  /** Each rotating product's health polls: what is left of the allowed rate for them, at most their rotation rate. */
  rotation: Partial<Record<Product, RotationRate>>;
}

/**
 * The rate the budget allows for a plan: a pinned `--leader.max-rps`, or `auto`: the need with 25 % headroom, at
 * least AUTO_RATE_MIN, at most `ceiling` (`--leader.max-rps-ceiling`).
 */
export function allowedRate(setting: MaxRpsSetting, ceiling: number, plan: PollingPlan): AllowedRate {
  const need = rateNeed(plan);
  const wanted = Math.max(AUTO_RATE_MIN, need.total * AUTO_RATE_HEADROOM);
  const rps = setting === 'auto' ? Math.min(ceiling, wanted) : setting;
  const rotated = Object.values(need.rotation).reduce((a, r) => a + r, 0);
  const full = plan.nodes - rotatingCount(plan);
  // The rotations take what the full-level nodes, their riders and discovery leave, up to their rate (never nothing).
  const scale = rotated > 0 ? Math.min(1, Math.max(0, rps - (need.total - rotated)) / rotated) : 1;
  const rotation: Partial<Record<Product, RotationRate>> = {};
  let rotating = 0;
  for (const [product, want] of Object.entries(need.rotation) as [Product, number][]) {
    const nodes = plan.rotating?.[product] ?? 0;
    const r = Math.max(want * scale, Math.min(want, 1));
    rotation[product] = { nodes, rps: r, seconds: nodes / r };
    rotating += r;
  }
  const forHealth = rps - need.riders - need.discovery - rotating;
  return {
    rps,
    needed: need.total,
    mode: setting === 'auto' ? 'auto' : 'pinned',
    capped: setting === 'auto' && wanted > ceiling,
    covers: rps >= need.total - rotated,
    cycleSeconds: full === 0 ? 0 : forHealth > 0 ? full / forHealth : Infinity,
    rotation,
  };
}

/** Token bucket size for a rate: `--leader.burst` when set, else one second's worth. */
export function burstFor(rps: number, burst: number | undefined): number {
  return burst ?? Math.max(1, Math.ceil(rps));
}

/** What a LeaderRate needs. */
export interface LeaderRateOptions {
  setting: MaxRpsSetting;
  ceiling: number;
  /** `--leader.burst`, when set. */
  burst: number | undefined;
  /** The plan without its node count (known after each discovery). */
  plan: Omit<PollingPlan, 'nodes'>;
  logger: Logger;
}

/**
 * The rate bound of one leader's budget: fixed when `--leader.max-rps` is a number, following the fleet after
 * every discovery when it is `auto`. Warns at every discovery where the allowed rate cannot cover the fleet.
 */
export class LeaderRate {
  readonly #o: LeaderRateOptions;
  #target: Pick<RequestBudget, 'setRateLimit'> | undefined;
  #last: AllowedRate;

  constructor(opts: LeaderRateOptions) {
    this.#o = opts;
    this.#last = allowedRate(opts.setting, opts.ceiling, { ...opts.plan, nodes: 0 });
  }

  /** The rate and bucket before any discovery. */
  get initial(): { maxRps: number; burst: number } {
    return { maxRps: this.#last.rps, burst: burstFor(this.#last.rps, this.#o.burst) };
  }

  /** The budget that `apply` moves. */
  attach(target: Pick<RequestBudget, 'setRateLimit'>): void {
    this.#target = target;
  }

  /** The allowed rate for the plan of the last discovery. */
  get current(): AllowedRate {
    return this.#last;
  }

  /**
   * A discovery found `nodes` nodes to poll (`more.rotating` of them in rotating products; `more.discoveryIntervalMs`
   * the discovery interval in force, when it differs from the plan's): the rate follows (auto), a rate that cannot
   * cover the full-level nodes is reported, and a product that starts or stops rotating is said once.
   */
  apply(
    nodes: number,
    more: Pick<PollingPlan, 'rotating' | 'rotatingLevels'> & { discoveryIntervalMs?: number } = {},
  ): AllowedRate {
    const { setting, ceiling } = this.#o;
    const plan: PollingPlan = {
      ...this.#o.plan,
      nodes,
      ...more,
      discoveryIntervalMs: more.discoveryIntervalMs ?? this.#o.plan.discoveryIntervalMs,
    };
    const a = allowedRate(setting, ceiling, plan);
    if (a.rps !== this.#last.rps) this.#target?.setRateLimit(a.rps, burstFor(a.rps, this.#o.burst));
    this.#logRotations(this.#last, a);
    this.#warnSlowBasic(a, plan);
    this.#last = a;
    if (!a.covers) {
      const setting =
        a.mode === 'pinned'
          ? `raise --leader.max-rps (${a.rps}) or set it to auto`
          : `raise --leader.max-rps-ceiling (${ceiling}) if the leader can take it`;
      this.#o.logger.warn(
        {
          nodes,
          neededRps: round1(a.needed),
          allowedRps: round1(a.rps),
          cycleSeconds: round1(a.cycleSeconds),
          targetSeconds: (this.#o.plan.nodeIntervalsMs[0]?.intervalMs ?? 0) / 1000,
        },
        `the allowed request rate cannot poll every node once per --health.interval: ${setting}, or lengthen ` +
          '--health.interval',
      );
    }
    return a;
  }

  /** Warns at each discovery where a `basic` rotation cannot keep within BASIC_ROTATION_MAX_MS at the allowed rate. */
  #warnSlowBasic(a: AllowedRate, plan: PollingPlan): void {
    for (const [product, r] of Object.entries(a.rotation) as [Product, RotationRate][]) {
      if (plan.rotatingLevels?.[product] !== 'basic' || r.seconds <= BASIC_ROTATION_MAX_MS / 1000 + 1) continue;
      const setting =
        a.mode === 'pinned'
          ? `raise --leader.max-rps (${a.rps})`
          : `raise --leader.max-rps-ceiling (${this.#o.ceiling})`;
      this.#o.logger.warn(
        { product, nodes: r.nodes, rotationRps: round1(r.rps), rotationSeconds: Math.round(r.seconds) },
        `health polls of ${product} (node detail basic) rotate every ${Math.round(r.seconds)} s, longer than ` +
          `${BASIC_ROTATION_MAX_MS / 1000} s: its nodes' health reads stale (CriblNodeHealthDataStale); ${setting}, ` +
          `or pin --${product}.node-detail minimal`,
      );
    }
  }

  /** Says once when a product's health polls start or stop rotating, with the rate and the time a rotation takes. */
  #logRotations(before: AllowedRate, after: AllowedRate): void {
    const products = new Set([...Object.keys(before.rotation), ...Object.keys(after.rotation)] as Product[]);
    for (const product of products) {
      const was = before.rotation[product];
      const now = after.rotation[product];
      if (was !== undefined && now !== undefined) continue;
      if (now === undefined) {
        this.#o.logger.info(
          { product },
          `health polls of ${product} no longer rotate: every node once per --health.interval`,
        );
        continue;
      }
      this.#o.logger.info(
        { product, nodes: now.nodes, rotationRps: round1(now.rps), rotationSeconds: Math.round(now.seconds) },
        `health polls of ${product} rotate (node detail basic or minimal): ${round1(now.rps)}/s, oldest first, each ` +
          `node every ${Math.round(now.seconds)} s; liveness comes from the listing at each discovery, and no ` +
          'overrun is reported for them',
      );
    }
  }
}

/** `n` rounded to one decimal, for log fields and messages. */
export function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
