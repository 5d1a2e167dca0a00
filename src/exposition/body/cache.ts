// Over 300 lines: one class, the body cache; its build scheduling (predicted scrapes, age bound, share floor) and the
// builder switch share the state of the build in flight.
/**
 * The cached /metrics body. Built from the leaders' moments when it is needed, never per scrape and not on every
 * change: a change marks the body dirty, and a dirty body is rebuilt
 *   - so that the build lands shortly before the next scrape the server predicts (scrapes.ts: per client, from
 *     the /metrics requests it saw), at most about once per observed scrape interval;
 *   - at once when a scrape nobody predicted (a new client, a human's curl, a late Prometheus) finds it dirty:
 *     that scrape gets the last body, the next one the new body;
 *   - and in any case no later than `maxBodyAgeMs` (MAX_BODY_AGE_MS) after the previous build started, scrapes or
 *     not: the data of a body a scrape gets is at most that old, plus one build's duration;
 *   - at start-up (within `maxBodyAgeMs` of the first build), also at gaps doubling from `minRebuildIntervalMs`: the
 *     first body was built before any node answered, and a first scrape must not get it;
 *   - at once on refresh() (the app calls it when a leader's first health round ends, however long it took).
 * A builder (builder.ts) renders the items as they were when the build started: in a worker thread from
 * WORKER_MIN_NODES nodes, inline (yielding every few ms) below it and in tests. Scrapes always get the last complete
 * body; only a scrape that finds no body at all waits, for the first build. Concurrent requests for a build share it.
 */
import { constants as zlibConstants } from 'node:zlib';
import type { Collector, Intervals, ScopeItem } from '../../collectors/collector.js';
import { COLLECTORS } from '../../collectors/registry.js';
import type { LeaderSnapshot } from '../../store/snapshot.js';
import type { Clock } from '@cribl-exporter/api/clock';
import { createInlineBuilder, createWorkerBuilder, type Builder } from './builder.js';
import { familyEntries, familySet, nodeReads } from './families.js';
import { ScrapeTracker } from './scrapes.js';
import { headerPieces, SnapshotBody, type Section } from './served.js';

/** What the body reads from one leader's snapshot store. */
export type BodySource = Pick<LeaderSnapshot, 'id' | 'labels' | 'targetPairs' | 'size' | 'moment' | 'subscribe'>;

/** The management plane's store (Cribl.Cloud workspace discovery): its families come first. */
export type ManagementSource = Pick<LeaderSnapshot, 'leader' | 'subscribe'>;

/** Numbers of one build. */
export interface BuildStats {
  generation: number;
  durationMs: number;
  bytes: number;
  gzipBytes: number;
}

/** Options of createBodyCache. */
export interface BodyCacheOptions {
  sources: readonly BodySource[];
  management?: ManagementSource;
  /** The collectors whose families make the body. @default the registry (the worker builder renders only these) */
  collectors?: readonly Collector[];
  /** The settings in force of a collector, for its families' HELP. */
  settingsOf: (c: Collector) => unknown;
  intervals: Intervals;
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
  /** Where bodies are rendered: `auto` picks the worker from WORKER_MIN_NODES nodes. @default 'inline' */
  builder?: 'inline' | 'worker' | 'auto';
  /** Nodes (all leaders) from which `auto` renders in the worker. @default WORKER_MIN_NODES */
  workerMinNodes?: number;
  /** Makes the worker builder (tests inject one they can stop). @default createWorkerBuilder */
  createWorkerBuilder?: typeof createWorkerBuilder;
  /** Called when the body worker stopped; the build in flight fails, the next one starts a new worker. */
  onBuilderLost?: (err: Error) => void;
  onBuild?: (stats: BuildStats) => void;
  /** `auto` switched builders (`nodes`: the fleet size that made it switch). */
  onBuilderSwitch?: (to: 'inline' | 'worker', nodes: number) => void;
  onError?: (err: unknown) => void;
}

/** The cached body of all leaders. */
export interface BodyCache {
  /** The latest complete body; waits only while none has been built yet. */
  current(): Promise<SnapshotBody>;
  /**
   * A scrape by `client` (remote address and User-Agent): records it for the prediction of the next scrapes and
   * answers as current(). A scrape nobody predicted that finds the body dirty starts a build for the next one.
   */
  scrape(client: string): Promise<SnapshotBody>;
  /**
   * A body with every change made before the call: builds now, joins the build in flight, or follows it with another.
   * `fresh`: that build renders everything anew, taking nothing from the last build (the benchmark's full render),
   * and never joins a build in flight.
   */
  rebuild(options?: { fresh?: boolean }): Promise<SnapshotBody>;
  /** A dirty body is rebuilt now, or right after the build in flight; nothing after close(). */
  refresh(): void;
  /** Resolves once no build is in flight (for shutdown and tests). */
  whenIdle(): Promise<void>;
  /** Replaces the leaders; throws, keeping the old set, when two would share target labels. */
  setSources(sources: readonly BodySource[]): void;
  /** Stops scheduling builds and unsubscribes from the stores. */
  close(): void;
}

/** Worker losses in a row (without a body in between) after which the main thread renders instead. */
const MAX_WORKER_LOSSES = 3;

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

/**
 * Default of `workerMinNodes`. Below it a build renders on the main thread, in slices of a few ms; above, the main
 * thread only compares facts and posts the nodes of the families to render, and the rendering's loop time grows no
 * more with the fleet (BENCHMARKS.md, "Mechanisms").
 */
export const WORKER_MIN_NODES = 12_000;

/** `auto` goes back to inline below this share of `workerMinNodes` (no switching back and forth at the edge). */
const WORKER_HYSTERESIS = 0.8;

/** Throws when two leaders would export identical series (same target labels). */
function checkDistinctLabels(sources: readonly BodySource[]): void {
  const seen = new Set<string>();
  for (const s of sources) {
    const key = JSON.stringify(Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : 1)));
    if (seen.has(key)) {
      throw new Error(
        `two leaders have the same target labels ${JSON.stringify(s.labels)}; give each a distinguishing label ` +
          `(e.g. workspace)`,
      );
    }
    seen.add(key);
  }
}

class Cache implements BodyCache {
  readonly #o: BodyCacheOptions & { minRebuildIntervalMs: number; maxBuildShare: number; maxBodyAgeMs: number };
  readonly #collectors: readonly Collector[];
  readonly #headers: Section['header'][];
  readonly #sectionCollectors: string[];
  #builder: Builder;
  #onWorker: boolean;
  #lostInARow = 0;
  /** The worker kept dying: inline from now on, whatever the mode. */
  #workerGivenUp = false;
  readonly #unsubscribeManagement: (() => void) | undefined;
  #unsubscribe: (() => void)[];
  #sources: readonly BodySource[];
  readonly #abort = new AbortController();
  readonly #scrapes = new ScrapeTracker();
  #body: SnapshotBody | undefined;
  /** When the build of #body started (its data is as of then). */
  #bodyStarted = -Infinity;
  #building: Promise<SnapshotBody> | undefined;
  #next: Promise<SnapshotBody> | undefined;
  #changes = 0;
  #dirty = true;
  /** The next build renders everything anew (rebuild's `fresh`). */
  #freshNext = false;
  /** The planned build: its start time and the means to cancel its timer. */
  #plan: { at: number; cancel: AbortController } | undefined;
  #lastStart = -Infinity;
  /** When the first build started (the start-up ramp counts from it). */
  #firstStart = -Infinity;
  #lastEnd = -Infinity;
  #lastDuration = 0;

  constructor(options: BodyCacheOptions) {
    checkDistinctLabels(options.sources);
    this.#o = { minRebuildIntervalMs: 1000, maxBuildShare: 0.1, maxBodyAgeMs: MAX_BODY_AGE_MS, ...options };
    this.#collectors = options.collectors ?? COLLECTORS;
    const entries = familyEntries(this.#collectors, options.settingsOf, options.intervals);
    this.#headers = entries.map((e) => headerPieces(e.header, zlibConstants.Z_BEST_SPEED));
    this.#sectionCollectors = entries.map((e) => e.collector);
    this.#onWorker = options.builder === 'worker';
    this.#builder = this.#onWorker ? this.#workerBuilder() : this.#inlineBuilder();
    this.#sources = options.sources;
    this.#unsubscribe = this.#sources.map((s) => s.subscribe(() => this.#changed()));
    this.#unsubscribeManagement = options.management?.subscribe(() => this.#changed());
  }

  #inlineBuilder(): Builder {
    return createInlineBuilder(familySet(this.#collectors), nodeReads(this.#collectors));
  }

  #workerBuilder(): Builder {
    return (this.#o.createWorkerBuilder ?? createWorkerBuilder)(nodeReads(this.#collectors), (err) => {
      this.#o.onBuilderLost?.(err);
      // A worker that keeps dying before it delivers a body (it cannot start, or runs out of heap at once) is given
      // up on: the main thread renders from then on, slower but serving.
      if (++this.#lostInARow >= MAX_WORKER_LOSSES) {
        this.#o.onError?.(
          new Error(
            `the body worker stopped ${this.#lostInARow} times in a row (${err.message}); rendering /metrics on the ` +
              `main thread from now on`,
          ),
        );
        const dead = this.#builder;
        this.#builder = this.#inlineBuilder();
        this.#onWorker = false;
        this.#workerGivenUp = true;
        dead.close().catch(() => undefined);
      } else {
        this.#o.onError?.(new Error(`the body worker stopped (${err.message}); the next build starts a new one`));
      }
      this.#changed();
    });
  }

  setSources(sources: readonly BodySource[]): void {
    checkDistinctLabels(sources);
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#sources = [...sources];
    this.#unsubscribe = this.#sources.map((s) => s.subscribe(() => this.#changed()));
    this.#changed();
  }

  current(): Promise<SnapshotBody> {
    return this.#body ? Promise.resolve(this.#body) : this.rebuild();
  }

  scrape(client: string): Promise<SnapshotBody> {
    const now = this.#o.clock.now();
    const predicted = this.#scrapes.predicted(client, now);
    this.#scrapes.seen(client, now);
    const body = this.current();
    if (this.#body && this.#dirty && !this.#building) {
      // Unpredicted, or the prediction failed and the body is older than the bound: build for the next scrape
      // now (the floors permitting); this scrape does not wait.
      if (!predicted || now - this.#bodyStarted > this.#o.maxBodyAgeMs) this.#replan(now);
      else this.#replan();
    }
    return body;
  }

  rebuild(options?: { fresh?: boolean }): Promise<SnapshotBody> {
    if (options?.fresh === true) this.#freshNext = true;
    if (this.#building) {
      // The build in flight took its items when it started: changes since then need another one.
      if (!this.#dirty && !this.#freshNext) return this.#building;
      this.#next ??= this.#building
        .catch(() => undefined)
        .then(() => {
          this.#next = undefined;
          return this.rebuild();
        });
      return this.#next;
    }
    this.#cancelPlan();
    const building = this.#build().finally(() => {
      this.#building = undefined;
      if (this.#dirty) this.#replan();
    });
    this.#building = building;
    return building;
  }

  refresh(): void {
    if (this.#abort.signal.aborted || !this.#dirty) return;
    this.rebuild().catch((err: unknown) => {
      if (!this.#abort.signal.aborted) this.#o.onError?.(err);
    });
  }

  async whenIdle(): Promise<void> {
    while (this.#building) await this.#building.catch(() => undefined);
  }

  close(): void {
    this.#abort.abort();
    this.#cancelPlan();
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#unsubscribeManagement?.();
    this.#builder.close().catch((err: unknown) => this.#o.onError?.(err));
  }

  #changed(): void {
    this.#changes++;
    this.#dirty = true;
    if (!this.#plan) this.#replan();
  }

  /**
   * When the next build of a dirty body should start: before the next predicted scrape (at most about once per
   * scrape interval), no later than the age bound, never before the floors (minRebuildIntervalMs, maxBuildShare).
   * `asap`: as soon as the floors allow (a scrape nobody predicted).
   */
  #nextStart(now: number, asap: boolean): number {
    const share = Math.min(1, Math.max(0.01, this.#o.maxBuildShare));
    const minFloor = this.#lastStart + this.#o.minRebuildIntervalMs;
    // The share floor yields to the age bound: a long build (50,000 nodes on a loaded machine) would otherwise push
    // the next one beyond it.
    const bound = this.#lastStart + this.#o.maxBodyAgeMs;
    const floor = Math.max(minFloor, Math.min(bound, this.#lastEnd + this.#lastDuration * (1 / share - 1)));
    // Start-up: the first body holds hardly a node, and a first scrape (nobody predicts it) would get it for up to
    // the age bound. Until the bound has passed since the first build, a dirty body is rebuilt at gaps that double
    // from minRebuildIntervalMs (1, 2, 4, 8, 16 s after the first build).
    const ramp = this.#lastStart + Math.max(this.#o.minRebuildIntervalMs, this.#lastStart - this.#firstStart);
    let start = ramp < this.#firstStart + this.#o.maxBodyAgeMs ? Math.min(bound, ramp) : bound;
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
    if (this.#building || this.#abort.signal.aborted || !this.#dirty) return;
    const now = asapAt ?? this.#o.clock.now();
    const at = this.#nextStart(now, asapAt !== undefined);
    if (this.#plan && this.#plan.at === at) return;
    this.#cancelPlan();
    const cancel = new AbortController();
    const plan = { at, cancel };
    this.#plan = plan;
    this.#o.clock.sleep(at - now, cancel.signal).then(
      () => {
        if (this.#plan === plan) this.#plan = undefined;
        // A build that a close() cut short is no failure worth a log line (e.g. after a failed start).
        if (this.#dirty && !this.#abort.signal.aborted)
          this.rebuild().catch((err: unknown) => {
            if (!this.#abort.signal.aborted) this.#o.onError?.(err);
          });
      },
      () => {
        if (this.#plan === plan) this.#plan = undefined;
      },
    );
  }

  #cancelPlan(): void {
    const plan = this.#plan;
    this.#plan = undefined;
    plan?.cancel.abort();
  }

  /** `auto`: renders in the worker when the fleet reaches workerMinNodes, inline again below 80 % of it. */
  #chooseBuilder(): void {
    if (this.#o.builder !== 'auto' || this.#workerGivenUp) return;
    let nodes = 0;
    for (const s of this.#sources) nodes += s.size;
    const min = this.#o.workerMinNodes ?? WORKER_MIN_NODES;
    const worker = this.#onWorker ? nodes >= min * WORKER_HYSTERESIS : nodes >= min;
    if (worker === this.#onWorker) return;
    const old = this.#builder;
    this.#onWorker = worker;
    this.#builder = worker ? this.#workerBuilder() : this.#inlineBuilder();
    old.close().catch((err: unknown) => this.#o.onError?.(err));
    this.#o.onBuilderSwitch?.(worker ? 'worker' : 'inline', nodes);
  }

  async #build(): Promise<SnapshotBody> {
    const { clock } = this.#o;
    const started = clock.now();
    this.#lastStart = started;
    if (this.#firstStart === -Infinity) this.#firstStart = started;
    const generation = this.#changes;
    this.#dirty = false;
    const fresh = this.#freshNext;
    this.#freshNext = false;
    try {
      this.#chooseBuilder();
      const management: ScopeItem | undefined = this.#o.management?.leader();
      const rendered = await this.#builder.build({
        ...(management ? { management } : {}),
        leaders: this.#sources.map((s) => ({ id: s.id, targetPairs: s.targetPairs, moment: s.moment() })),
        ...(fresh ? { fresh } : {}),
      });
      const sections: Section[] = [];
      rendered.forEach((pieces, i) => {
        const header = this.#headers[i];
        const collector = this.#sectionCollectors[i];
        if (pieces.length > 0 && header && collector !== undefined) sections.push({ collector, header, pieces });
      });
      const body = new SnapshotBody(generation, sections);
      this.#body = body;
      this.#bodyStarted = started;
      this.#lostInARow = 0;
      return body;
    } catch (err) {
      this.#dirty = true;
      throw err;
    } finally {
      this.#lastEnd = clock.now();
      this.#lastDuration = this.#lastEnd - started;
      const body = this.#body;
      if (body?.generation === generation) {
        this.#o.onBuild?.({ generation, durationMs: this.#lastDuration, bytes: body.bytes, gzipBytes: body.gzipBytes });
      }
    }
  }
}

/** Creates the body cache over the given leaders' stores; throws when two leaders share target labels. */
export function createBodyCache(options: BodyCacheOptions): BodyCache {
  return new Cache(options);
}
