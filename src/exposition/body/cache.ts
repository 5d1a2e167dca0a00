/**
 * The cached /metrics body: it holds the last complete body and serves it, and runs the builds. When to build is the
 * build plan's (build-plan.ts); where to render, the builder choice's (builder-choice.ts): a builder renders the items
 * as they were when the build started, in a worker thread from WORKER_MIN_NODES nodes, inline (yielding every few ms)
 * below it and in tests. Scrapes always get the last complete body; only a scrape that finds no body at all waits,
 * for the first build. Concurrent requests for a build share it.
 */
import { constants as zlibConstants } from 'node:zlib';
import type { Collector, Intervals, ScopeItem } from '../../collectors/collector.js';
import { COLLECTORS } from '../../collectors/registry.js';
import type { LeaderSnapshot } from '../../store/snapshot.js';
import { BuildPlan, type BuildPlanOptions } from './build-plan.js';
import { BuilderChoice, type BuilderSettings } from './builder-choice.js';
import { familyEntries } from './families.js';
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
export interface BodyCacheOptions extends BuildPlanOptions, BuilderSettings {
  sources: readonly BodySource[];
  management?: ManagementSource;
  /** The collectors whose families make the body. @default the registry (the worker builder renders only these) */
  collectors?: readonly Collector[];
  /** The settings in force of a collector, for its families' HELP. */
  settingsOf: (c: Collector) => unknown;
  intervals: Intervals;
  onBuild?: (stats: BuildStats) => void;
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
  readonly #o: BodyCacheOptions;
  readonly #headers: Section['header'][];
  readonly #sectionCollectors: string[];
  readonly #plan: BuildPlan;
  readonly #builders: BuilderChoice;
  readonly #unsubscribeManagement: (() => void) | undefined;
  #unsubscribe: (() => void)[];
  #sources: readonly BodySource[];
  #closed = false;
  #body: SnapshotBody | undefined;
  #building: Promise<SnapshotBody> | undefined;
  #next: Promise<SnapshotBody> | undefined;

  constructor(options: BodyCacheOptions) {
    checkDistinctLabels(options.sources);
    this.#o = options;
    const collectors = options.collectors ?? COLLECTORS;
    const entries = familyEntries(collectors, options.settingsOf, options.intervals);
    this.#headers = entries.map((e) => headerPieces(e.header, zlibConstants.Z_BEST_SPEED));
    this.#sectionCollectors = entries.map((e) => e.collector);
    this.#plan = new BuildPlan(options, () => this.#rebuildLogged());
    this.#builders = new BuilderChoice({ ...options, collectors, onLost: () => this.#plan.changed() });
    this.#sources = options.sources;
    this.#unsubscribe = this.#sources.map((s) => s.subscribe(() => this.#plan.changed()));
    this.#unsubscribeManagement = options.management?.subscribe(() => this.#plan.changed());
  }

  setSources(sources: readonly BodySource[]): void {
    checkDistinctLabels(sources);
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#sources = [...sources];
    this.#unsubscribe = this.#sources.map((s) => s.subscribe(() => this.#plan.changed()));
    this.#plan.changed();
  }

  current(): Promise<SnapshotBody> {
    return this.#body ? Promise.resolve(this.#body) : this.rebuild();
  }

  scrape(client: string): Promise<SnapshotBody> {
    const body = this.current();
    // Without a body, current() started the first build (or joined it): the plan only records the scrape.
    this.#plan.scraped(client);
    return body;
  }

  rebuild(options?: { fresh?: boolean }): Promise<SnapshotBody> {
    if (options?.fresh === true) this.#plan.fresh();
    if (this.#building) {
      // The build in flight took its items when it started: changes since then need another one.
      if (!this.#plan.dirty && !this.#plan.freshNext) return this.#building;
      this.#next ??= this.#building
        .catch(() => undefined)
        .then(() => {
          this.#next = undefined;
          return this.rebuild();
        });
      return this.#next;
    }
    const building = this.#build().finally(() => {
      this.#building = undefined;
      this.#plan.settled();
    });
    this.#building = building;
    return building;
  }

  refresh(): void {
    if (!this.#closed && this.#plan.dirty) this.#rebuildLogged();
  }

  async whenIdle(): Promise<void> {
    while (this.#building) await this.#building.catch(() => undefined);
  }

  close(): void {
    this.#closed = true;
    this.#plan.close();
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#unsubscribeManagement?.();
    this.#builders.close().catch((err: unknown) => this.#o.onError?.(err));
  }

  /** A build nobody waits for (planned, or refresh()); a failure is logged, unless close() cut it short. */
  #rebuildLogged(): void {
    this.rebuild().catch((err: unknown) => {
      if (!this.#closed) this.#o.onError?.(err);
    });
  }

  async #build(): Promise<SnapshotBody> {
    const planned = this.#plan.begin();
    const { generation } = planned;
    let ok = false;
    try {
      const management: ScopeItem | undefined = this.#o.management?.leader();
      let nodes = 0;
      for (const s of this.#sources) nodes += s.size;
      const request = {
        ...(management ? { management } : {}),
        leaders: this.#sources.map((s) => ({ id: s.id, targetPairs: s.targetPairs, moment: s.moment() })),
        ...(planned.fresh ? { fresh: true } : {}),
      };
      const rendered = await this.#builders.build(request, nodes);
      const sections: Section[] = [];
      rendered.forEach((pieces, i) => {
        const header = this.#headers[i];
        const collector = this.#sectionCollectors[i];
        if (pieces.length > 0 && header && collector !== undefined) sections.push({ collector, header, pieces });
      });
      const body = new SnapshotBody(generation, sections);
      this.#body = body;
      ok = true;
      return body;
    } finally {
      const durationMs = this.#plan.end(planned, ok);
      const body = this.#body;
      if (body?.generation === generation) {
        this.#o.onBuild?.({ generation, durationMs, bytes: body.bytes, gzipBytes: body.gzipBytes });
      }
    }
  }
}

/** Creates the body cache over the given leaders' stores; throws when two leaders share target labels. */
export function createBodyCache(options: BodyCacheOptions): BodyCache {
  return new Cache(options);
}
