/**
 * The build plan of the /metrics body: what to build (is the body dirty, which generation of changes, anew or not)
 * and when. Never per scrape and not on every change: a change marks the body dirty, and a dirty body is rebuilt
 *   - so that the build lands shortly before the next scrape the server predicts (scrapes.ts: per client, from
 *     the /metrics requests it saw), at most about once per observed scrape interval;
 *   - at once when a scrape nobody predicted (a new client, a human's curl, a late Prometheus) finds it dirty:
 *     that scrape gets the last body, the next one the new body;
 *   - and in any case no later than `maxBodyAgeMs` (MAX_BODY_AGE_MS) after the previous build started, scrapes or
 *     not: the data of a body a scrape gets is at most that old, plus one build's duration;
 *   - at start-up (within `maxBodyAgeMs` of the first build), also at gaps doubling from `minRebuildIntervalMs`: the
 *     first body was built before any node answered, and a first scrape must not get it;
 *   - never before the floors: `minRebuildIntervalMs` after the previous start, and the share floor
 *     (`maxBuildShare`), which yields to the age bound.
 * The cache (cache.ts) runs the builds the plan starts, and whatever else asks for one (refresh, rebuild).
 */
import type { Clock } from '@cribl-exporter/api/clock';
import { ScrapeTracker } from './scrapes.js';

/**
 * Default of `maxBodyAgeMs`: the oldest data a scrape can get, besides one build's duration. The health of a node
 * is polled every 30 s by default, so a value in a scraped body is at most two health intervals old; with nobody
 * scraping, a dirty body costs one build per 30 s.
 */
export const MAX_BODY_AGE_MS = 30_000;

/** A build planned for a predicted scrape starts this long before it, besides 1.5 × the last build's duration. */
const LEAD_MARGIN_MS = 250;

/**
 * Builds planned for predicted scrapes start at least this share of the shortest scrape interval apart: one build
 * per interval (at 0.8, two HA replicas at any phase offset still get one build per interval).
 */
const MIN_INTERVAL_SHARE = 0.8;

/** The timing settings of a plan. */
export interface BuildPlanOptions {
  clock: Clock;
  /** Least time between the starts of two builds, whatever asks for them. @default 1000 */
  minRebuildIntervalMs?: number;
  /**
   * Largest share of wall time spent building: after a build of d ms the next one waits at least
   * d × (1 / share − 1). Caps the cost of scrapers that ask very often at a large fleet. @default 0.1
   */
  maxBuildShare?: number;
  /** A dirty body is rebuilt at the latest this long after the previous build started. @default MAX_BODY_AGE_MS */
  maxBodyAgeMs?: number;
}

/** One build as the plan starts it: the generation of changes it holds, and whether it renders everything anew. */
export interface PlannedBuild {
  readonly generation: number;
  readonly fresh: boolean;
  readonly started: number;
}

/** What to build and when; `start` runs a build (the cache's rebuild). */
export class BuildPlan {
  readonly #clock: Clock;
  readonly #minIntervalMs: number;
  readonly #share: number;
  readonly #maxAgeMs: number;
  readonly #start: () => void;
  readonly #scrapes = new ScrapeTracker();
  #changes = 0;
  #dirty = true;
  /** The next build renders everything anew (rebuild's `fresh`). */
  #freshNext = false;
  /** A build is in flight: nothing is planned meanwhile. */
  #building = false;
  #closed = false;
  /** The planned build: its start time and the means to cancel its timer. */
  #timer: { at: number; cancel: AbortController } | undefined;
  #lastStart = -Infinity;
  /** When the first build started (the start-up ramp counts from it). */
  #firstStart = -Infinity;
  #lastEnd = -Infinity;
  #lastDuration = 0;
  /** When the build of the current body started (its data is as of then). */
  #bodyStarted = -Infinity;

  constructor(options: BuildPlanOptions, start: () => void) {
    this.#clock = options.clock;
    this.#minIntervalMs = options.minRebuildIntervalMs ?? 1000;
    this.#share = Math.min(1, Math.max(0.01, options.maxBuildShare ?? 0.1));
    this.#maxAgeMs = options.maxBodyAgeMs ?? MAX_BODY_AGE_MS;
    this.#start = start;
  }

  /** Changes are waiting for a build. */
  get dirty(): boolean {
    return this.#dirty;
  }

  /** A build asked for now would render everything anew. */
  get freshNext(): boolean {
    return this.#freshNext;
  }

  /** A store changed: the body is dirty. */
  changed(): void {
    this.#changes++;
    this.#dirty = true;
    if (!this.#timer) this.#replan();
  }

  /** The next build renders everything anew, taking nothing from the last one. */
  fresh(): void {
    this.#freshNext = true;
  }

  /**
   * A scrape by `client` while a body exists: recorded for the prediction. One nobody predicted, or one that finds
   * the body older than the bound, that finds it dirty has the next build start as soon as the floors allow.
   */
  scraped(client: string): void {
    const now = this.#clock.now();
    const predicted = this.#scrapes.predicted(client, now);
    this.#scrapes.seen(client, now);
    if (!this.#dirty || this.#building) return;
    if (!predicted || now - this.#bodyStarted > this.#maxAgeMs) this.#replan(now);
    else this.#replan();
  }

  /** A build starts now: what it holds. */
  begin(): PlannedBuild {
    this.#cancel();
    const started = this.#clock.now();
    this.#building = true;
    this.#lastStart = started;
    if (this.#firstStart === -Infinity) this.#firstStart = started;
    const build = { generation: this.#changes, fresh: this.#freshNext, started };
    this.#dirty = false;
    this.#freshNext = false;
    return build;
  }

  /** The build ended (`ok`: its body is the current one); returns its duration. */
  end(build: PlannedBuild, ok: boolean): number {
    this.#lastEnd = this.#clock.now();
    this.#lastDuration = this.#lastEnd - build.started;
    if (ok) this.#bodyStarted = build.started;
    else this.#dirty = true;
    return this.#lastDuration;
  }

  /** The build's promise settled: a dirty body is planned again. */
  settled(): void {
    this.#building = false;
    this.#replan();
  }

  /** No build is planned from now on. */
  close(): void {
    this.#closed = true;
    this.#cancel();
  }

  /**
   * When the next build of a dirty body should start: before the next predicted scrape (at most about once per
   * scrape interval), no later than the age bound, never before the floors (minRebuildIntervalMs, maxBuildShare).
   * `asap`: as soon as the floors allow (a scrape nobody predicted).
   */
  #nextStart(now: number, asap: boolean): number {
    const minFloor = this.#lastStart + this.#minIntervalMs;
    // The share floor yields to the age bound: a long build (50,000 nodes on a loaded machine) would otherwise push
    // the next one beyond it.
    const bound = this.#lastStart + this.#maxAgeMs;
    const floor = Math.max(minFloor, Math.min(bound, this.#lastEnd + this.#lastDuration * (1 / this.#share - 1)));
    // Start-up: the first body holds hardly a node, and a first scrape (nobody predicts it) would get it for up to
    // the age bound. Until the bound has passed since the first build, a dirty body is rebuilt at gaps that double
    // from minRebuildIntervalMs (1, 2, 4, 8, 16 s after the first build).
    const ramp = this.#lastStart + Math.max(this.#minIntervalMs, this.#lastStart - this.#firstStart);
    let start = ramp < this.#firstStart + this.#maxAgeMs ? Math.min(bound, ramp) : bound;
    const interval = asap ? undefined : this.#scrapes.shortestInterval(now);
    if (asap) start = now;
    else if (interval !== undefined) {
      const lead = 1.5 * this.#lastDuration + LEAD_MARGIN_MS;
      const notBefore = Math.max(floor, this.#lastStart + MIN_INTERVAL_SHARE * interval, now);
      const scrape = this.#scrapes.nextScrape(notBefore + lead, now);
      if (scrape !== undefined) start = Math.min(start, scrape - lead);
    }
    return Math.max(start, floor, now);
  }

  /** Plans the next build of a dirty body (`asapAt`: as soon as the floors allow), replacing the planned one. */
  #replan(asapAt?: number): void {
    if (this.#building || this.#closed || !this.#dirty) return;
    const now = asapAt ?? this.#clock.now();
    const at = this.#nextStart(now, asapAt !== undefined);
    if (this.#timer && this.#timer.at === at) return;
    this.#cancel();
    const timer = { at, cancel: new AbortController() };
    this.#timer = timer;
    const done = (): void => {
      if (this.#timer === timer) this.#timer = undefined;
    };
    this.#clock.sleep(at - now, timer.cancel.signal).then(() => {
      done();
      if (this.#dirty && !this.#closed) this.#start();
    }, done);
  }

  #cancel(): void {
    const timer = this.#timer;
    this.#timer = undefined;
    timer?.cancel.abort();
  }
}
