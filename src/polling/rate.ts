/**
 * The request rate a polling plan needs from one leader, and the rate the budget allows for it: the one owner of
 * how `--leader.max-rps auto` is computed (the budget applies it after every discovery; `check` reports it).
 */
import type { Logger } from 'pino';
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

/** What a leader's polling plan consists of. */
export interface PollingPlan {
  /** Nodes polled through this leader (after sharding and --max-nodes). */
  nodes: number;
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
  /** The primary's (health: every node once per interval). */
  primary: number;
  /** The other node collectors' together (metadata). */
  riders: number;
  discovery: number;
  total: number;
}

/** Requests per second the plan needs: every node once per interval of each node collector, and discovery. */
export function rateNeed(p: PollingPlan): RateNeed {
  const nodes = p.nodeIntervalsMs.map(({ name, intervalMs }) => ({ name, rps: p.nodes / (intervalMs / 1000) }));
  const primary = nodes[0]?.rps ?? 0;
  const riders = nodes.slice(1).reduce((sum, n) => sum + n.rps, 0);
  const pages = Math.ceil(p.nodes / DEFAULT_PAGE_SIZE) + p.products;
  const discovery = (pages + p.products + (p.extraPerDiscovery ?? 0)) / (p.discoveryIntervalMs / 1000);
  return { nodes, primary, riders, discovery, total: primary + riders + discovery };
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
  /** The allowed rate covers the need: every node once per health interval. */
  covers: boolean;
  /** Seconds to poll every node once at the allowed rate (after metadata and discovery); Infinity when none is left. */
  cycleSeconds: number;
}

/**
 * The rate the budget allows for a plan: a pinned `--leader.max-rps`, or `auto`: the need with 25 % headroom, at
 * least AUTO_RATE_MIN, at most `ceiling` (`--leader.max-rps-ceiling`).
 */
export function allowedRate(setting: MaxRpsSetting, ceiling: number, plan: PollingPlan): AllowedRate {
  const need = rateNeed(plan);
  const wanted = Math.max(AUTO_RATE_MIN, need.total * AUTO_RATE_HEADROOM);
  const rps = setting === 'auto' ? Math.min(ceiling, wanted) : setting;
  const forHealth = rps - need.riders - need.discovery;
  return {
    rps,
    needed: need.total,
    mode: setting === 'auto' ? 'auto' : 'pinned',
    capped: setting === 'auto' && wanted > ceiling,
    covers: rps >= need.total,
    cycleSeconds: plan.nodes === 0 ? 0 : forHealth > 0 ? plan.nodes / forHealth : Infinity,
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

  /** A discovery found `nodes` nodes: the rate follows (auto), and a rate that cannot cover them is reported. */
  apply(nodes: number): AllowedRate {
    const { setting, ceiling } = this.#o;
    const a = allowedRate(setting, ceiling, { ...this.#o.plan, nodes });
    if (a.rps !== this.#last.rps) this.#target?.setRateLimit(a.rps, burstFor(a.rps, this.#o.burst));
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
}

/** `n` rounded to one decimal, for log fields and messages. */
export function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
