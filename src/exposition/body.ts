// Over 400 lines: one class, the body cache; its build scheduling (predicted scrapes, age bound, share floor), the
// builder switch and the per-format views share the state of the build in flight.
/**
 * The cached /metrics body. Built from the leaders' pre-rendered texts when it is needed, never per scrape and
 * not on every change: a change marks the body dirty, and a dirty body is rebuilt
 *   - so that the build lands shortly before the next scrape the server predicts (scrapes.ts: per client, from
 *     the /metrics requests it saw), at most about once per observed scrape interval;
 *   - at once when a scrape nobody predicted (a new client, a human's curl, a late Prometheus) finds it dirty:
 *     that scrape gets the last body, the next one the new body;
 *   - and in any case no later than `maxBodyAgeMs` (MAX_BODY_AGE_MS) after the previous build started, scrapes or
 *     not: the data of a body a scrape gets is at most that old, plus one build's duration;
 *   - at start-up (within `maxBodyAgeMs` of the first build), also at gaps doubling from `minRebuildIntervalMs`: the
 *     first body was built before any node answered, and a first scrape must not get it;
 *   - at once on refresh() (the app calls it when a leader's first health round ends, however long it took): a
 *     partial build of a large fleet at start-up would otherwise hold the full one back by the share floor.
 * A body builder (builder.ts) renders the node states as they were when the build started: in a worker thread from
 * WORKER_MIN_NODES nodes (the event loop only posts the states), inline (yielding every few ms) below it and in
 * tests. Nothing per node is kept between builds; the gzip is computed on zlib's thread pool, and the identity bytes
 * are kept beside it only while someone scrapes uncompressed (IDENTITY_KEEP_MS). Scrapes always get
 * the last complete body; only a scrape that finds no body at all waits, for the first build. Concurrent requests
 * for a build share it.
 */

import { inflateRaw, constants as zlibConstants } from 'node:zlib';
import type { Clock } from '../util/clock.js';
import { crc32Combine, deflatePieceSync, GZIP_HEADER, gzipEnd, type DeflatedPiece } from '../util/gzip-stream.js';
import {
  IDENTITY_CACHE_MAX_BYTES,
  isSlot,
  type AssembledBody,
  type AssemblerOptions,
  type FamilyHeader,
  type FamilyHeaders,
} from './assemble.js';
import { createInlineBuilder, createWorkerBuilder, type BodyBuilder, type WorkerBuilderHooks } from './builder.js';
import { ScrapeTracker } from './scrapes.js';
import {
  GROUP_FAMILIES,
  LEADER_FAMILIES,
  MANAGEMENT_FAMILIES,
  NODE_FAMILIES,
  NODE_RENDERING,
} from '../collectors/index.js';
import type { NodeState } from '../collectors/state.js';
import { familyHeader, familyHelp, type FamilyDef, type RefreshIntervals } from '../format/family.js';
import type { Format } from '../format/format.js';
import type { LeaderSnapshot, NodeView } from '../store/snapshot.js';
import type { ScopeSnapshot } from '../store/scope.js';

/** What the body reads from one leader's snapshot store. */
export type SnapshotSource = Pick<
  LeaderSnapshot,
  'id' | 'labels' | 'targetPairs' | 'size' | 'generation' | 'nodeView' | 'groupTexts' | 'leaderTexts' | 'subscribe'
>;

/** The management plane's texts (cribl_workspace_info, cribl_management_up), when workspaces are discovered. */
export type ManagementSource = Pick<ScopeSnapshot<unknown>, 'texts' | 'subscribe'>;

/** A body in one format. */
export interface FormatBody {
  /**
   * The body as UTF-8 chunks, in order. Undefined when larger than `identityCacheMaxBytes`, or built while no
   * scrape asked for identity (`keepIdentityMs`): identity is then served by gunzipping `gzip` (Prometheus always
   * asks for gzip, so a fleet scraped only by Prometheus keeps one copy of the body, not two).
   */
  readonly identity: readonly Buffer[] | undefined;
  readonly identityBytes: number;
  /**
   * The same bytes as one gzip member: the header, the deflate buffers and last the member's 10-byte end (final
   * block and trailer), which a scrape replaces to append the self-metrics (util/gzip-stream.ts). One member, not
   * one per piece: curl's `--compressed` reads only the first.
   */
  readonly gzip: readonly Buffer[];
  readonly gzipBytes: number;
  /** CRC-32 of the identity bytes (the one in the gzip trailer). */
  readonly crc: number;
}

/**
 * One complete body of the snapshot families (self-metrics are added per scrape). Immutable. Its own fields are
 * the text 0.0.4 body; `forFormat` gives either format. Both share every byte but the HELP/TYPE lines of the
 * families whose header differs between formats (counters), which sit between the shared parts.
 */
export interface SnapshotBody extends FormatBody {
  /** Number of snapshot changes the body includes. */
  readonly generation: number;
  forFormat(format: Format): FormatBody;
}

/** A format-specific family header, ready to send in either format and encoding. */
type SlotBytes = Readonly<Record<Format, { identity: Buffer; deflated: DeflatedPiece }>>;

/** The per-format views of an assembled body: lists of references to the shared buffers and the slots' bytes. */
function formatBody(body: AssembledBody, slots: readonly SlotBytes[], format: Format): FormatBody {
  let identity: Buffer[] | undefined = [];
  const gzip: Buffer[] = [GZIP_HEADER];
  let identityBytes = body.identityBytes;
  let deflateBytes = body.deflateBytes;
  let crc = 0;
  for (const part of body.parts) {
    if (isSlot(part)) {
      const bytes = slots[part.slot]?.[format];
      if (!bytes) throw new Error(`body has an unknown header slot ${part.slot}`);
      identity?.push(bytes.identity);
      gzip.push(bytes.deflated.deflated);
      identityBytes += bytes.identity.length;
      deflateBytes += bytes.deflated.deflated.length;
      crc = crc32Combine(crc, bytes.deflated.crc, bytes.deflated.length);
      continue;
    }
    if (part.identity && identity) identity.push(...part.identity);
    else identity = undefined;
    gzip.push(...part.deflate);
    crc = crc32Combine(crc, part.crc, part.bytes);
  }
  const end = gzipEnd(crc, identityBytes);
  gzip.push(end);
  return { identity, identityBytes, gzip, gzipBytes: GZIP_HEADER.length + deflateBytes + end.length, crc };
}

function snapshotBody(body: AssembledBody, slots: readonly SlotBytes[]): SnapshotBody {
  const text = formatBody(body, slots, 'text');
  const openmetrics = formatBody(body, slots, 'openmetrics');
  return { generation: body.generation, ...text, forFormat: (f) => (f === 'openmetrics' ? openmetrics : text) };
}

/** Numbers of one build. */
export interface BuildStats {
  generation: number;
  durationMs: number;
  bytes: number;
  gzipBytes: number;
  /** Runs of node families in the body, and those taken from the last build (AssembledBody). */
  runs: number;
  reusedRuns: number;
}

/** Options of createBodyCache. */
export interface BodyCacheOptions {
  snapshots: readonly SnapshotSource[];
  /** The management plane's scope (Cribl.Cloud workspace discovery); its families come first. */
  management?: ManagementSource;
  intervals: RefreshIntervals;
  clock: Clock;
  /** Least time between the starts of two builds, whatever asks for them. @default 1000 */
  minRebuildIntervalMs?: number;
  /**
   * Largest share of wall time spent building: after a build of d ms the next one waits at least
   * d × (1 / share − 1). Caps the cost of scrapers that ask very often at a large fleet. @default 0.1
   */
  maxBuildShare?: number;
  /**
   * A dirty body is rebuilt at the latest this long after the previous build started, whether anyone scrapes or
   * not: the data of a scraped body is at most this old, plus one build's duration. @default MAX_BODY_AGE_MS
   */
  maxBodyAgeMs?: number;
  /** gzip level; 1 is several times faster than 6 and the body compresses well anyway. @default 1 */
  gzipLevel?: number;
  /** Size of a piece (compressed apart) of a family's text. @default 128–256 KiB, by the previous body's size */
  chunkBytes?: number;
  /** Largest body whose identity bytes are kept besides the gzip. @default IDENTITY_CACHE_MAX_BYTES */
  identityCacheMaxBytes?: number;
  /**
   * Builds keep the identity bytes beside the gzip (up to `identityCacheMaxBytes`) only while a scrape asked for
   * identity within this long; otherwise a body is gzip only, and the first identity scrape of a body is served by
   * gunzipping while the body's identity bytes are inflated for the next ones. @default Infinity (always kept; the
   * exporter uses IDENTITY_KEEP_MS)
   */
  keepIdentityMs?: number;
  /**
   * Where bodies are assembled: `auto` picks the worker at WORKER_MIN_NODES nodes or more (decided at each build,
   * with hysteresis), inline below. @default 'inline' (the exporter uses 'auto')
   */
  builder?: 'inline' | 'worker' | 'auto';
  /** Nodes (all leaders) from which `auto` assembles in the worker. @default WORKER_MIN_NODES */
  workerMinNodes?: number;
  /** Makes the worker builder (tests inject one they can stop). @default createWorkerBuilder */
  createWorkerBuilder?: (options: AssemblerOptions, hooks: WorkerBuilderHooks) => BodyBuilder<NodeState>;
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
   * `identity`: the scrape wants the body uncompressed (builds keep identity bytes for a while; a body without them
   * gets them inflated for the next identity scrapes).
   */
  scrape(client: string, identity?: boolean): Promise<SnapshotBody>;
  /**
   * A body with every change made before the call: builds now, joins the build in flight, or follows it with another.
   * `fresh`: that build renders everything anew, taking nothing from the last build (AssembleHead.fresh; for the
   * benchmark's full render), and never joins a build in flight.
   */
  rebuild(options?: { fresh?: boolean }): Promise<SnapshotBody>;
  /**
   * What a scrape waits for has just happened (a leader's first health round ended): a dirty body is rebuilt now,
   * or right after the build in flight, whatever the floors and the predictions; nothing after close(). Failures
   * go to onError.
   */
  refresh(): void;
  /** Resolves once no build (nor an inflation of identity bytes) is in flight (for shutdown and tests). */
  whenIdle(): Promise<void>;
  /**
   * Replaces the set of leaders (workspace discovery adds and removes leaders at run time); the next body
   * has exactly these. Throws, keeping the old set, when two would share target labels.
   */
  setSnapshots(snapshots: readonly SnapshotSource[]): void;
  /** Stops scheduling builds and unsubscribes from the snapshots. */
  close(): void;
}

/**
 * How long after an identity scrape builds keep the identity bytes beside the gzip (the exporter's `keepIdentityMs`).
 * Prometheus always asks for gzip: a fleet scraped only by Prometheus keeps one copy of the body (at 10,000 nodes
 * the identity bytes are 29 MiB, twice that while a build replaces a body). A client that scrapes uncompressed at
 * any usual interval finds them built; a one-off `curl` costs one gunzip and a few bodies with identity.
 */
export const IDENTITY_KEEP_MS = 10 * 60_000;

/** Worker losses in a row (without a body in between) after which the main thread assembles instead. */
const MAX_WORKER_LOSSES = 3;

/**
 * Default of `maxBodyAgeMs`: the oldest data a scrape can get, besides one build's duration. The health of a node
 * is polled every 30 s by default, so a value in a scraped body is at most two health intervals old; with nobody
 * scraping, a dirty body costs one build per 30 s (at 10,000 nodes a build takes about 0.5 s of CPU: 0.016 cores).
 */
export const MAX_BODY_AGE_MS = 30_000;

/**
 * A build planned for a predicted scrape starts this long before it, besides 1.5 × the last build's duration
 * (builds vary with the machine's load; a build that lands early only makes the body slightly older).
 */
const LEAD_MARGIN_MS = 250;

/**
 * Builds planned for predicted scrapes start at least this share of the shortest scrape interval apart: one build
 * per interval, with room for the build's duration to vary (at 0.8, two HA replicas at any phase offset still get
 * one build per interval: the second replica gets the body built for the first).
 */
const MIN_INTERVAL_SHARE = 0.8;

/**
 * Default of `workerMinNodes`. Builds render every node (about 35 µs of event-loop time per node inline, gzip
 * included, measured at 10,000 nodes) and happen about once per scrape interval. Inline, a build's loop time grows
 * with the fleet; in the worker, the main thread only posts the states (about 4.3 µs a node) but a second V8 isolate
 * and the states' copies cost memory. `npm run bench -- --sizes 10k` on 2026-11-24, inline against worker: RSS
 * 203 / 248 MB steady / peak against 249 / 287 MB, 0.188 against 0.198 cores, 353 ms of loop time per quiet rebuild
 * (longest gap 21 ms) against 88 ms. At 12,000 nodes an inline build is about 420 ms of loop time (target ≤ 500, in
 * slices of a few ms); above it the worker keeps the loop free (486 ms at 50,000, mostly posting the states).
 */
export const WORKER_MIN_NODES = 12_000;

/** `auto` goes back to inline below this share of `workerMinNodes` (no switching back and forth at the edge). */
const WORKER_HYSTERESIS = 0.8;

/** Throws when two leaders would export identical series (same target labels). */
function checkDistinctLabels(snapshots: readonly SnapshotSource[]): void {
  const seen = new Set<string>();
  for (const s of snapshots) {
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

type Options = BodyCacheOptions & {
  minRebuildIntervalMs: number;
  maxBuildShare: number;
  maxBodyAgeMs: number;
  workerMinNodes: number;
  keepIdentityMs: number;
  identityCacheMaxBytes: number;
};

class Cache implements BodyCache {
  readonly #o: Options;
  readonly #assembler: AssemblerOptions;
  #builder: BodyBuilder<NodeState>;
  /** Whether #builder is a worker builder. */
  #onWorker: boolean;
  #lostInARow = 0;
  /** The worker kept dying: inline from now on, whatever the mode. */
  #workerGivenUp = false;
  readonly #slots: SlotBytes[] = [];
  readonly #unsubscribeManagement: (() => void) | undefined;
  #unsubscribe: (() => void)[];
  #snapshots: readonly SnapshotSource[];
  readonly #abort = new AbortController();
  readonly #scrapes = new ScrapeTracker();
  #body: SnapshotBody | undefined;
  /** What #body was made from (its identity bytes are inflated into a copy of it). */
  #built: AssembledBody | undefined;
  /** The body whose identity bytes are being inflated, and the inflation. */
  #inflating: { body: SnapshotBody; done: Promise<void> } | undefined;
  /** When an identity scrape was last seen. */
  #identityAt = -Infinity;
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
    checkDistinctLabels(options.snapshots);
    this.#o = {
      minRebuildIntervalMs: 1000,
      maxBuildShare: 0.1,
      maxBodyAgeMs: MAX_BODY_AGE_MS,
      workerMinNodes: WORKER_MIN_NODES,
      ...options,
      keepIdentityMs: options.keepIdentityMs ?? Infinity,
      identityCacheMaxBytes: options.identityCacheMaxBytes ?? IDENTITY_CACHE_MAX_BYTES,
    };
    const gzipLevel = options.gzipLevel ?? zlibConstants.Z_BEST_SPEED;
    // A header both formats write alike is part of the shared bytes; one that differs (a counter's) gets a slot,
    // compressed here once, that each body fills per format.
    const header = (f: FamilyDef): FamilyHeader => {
      const help = familyHelp(f, options.intervals);
      const text = familyHeader(f.name, f.type ?? 'gauge', help, 'text');
      const openmetrics = familyHeader(f.name, f.type ?? 'gauge', help, 'openmetrics');
      if (text === openmetrics) return text;
      const bytes = (t: string): SlotBytes[Format] => {
        const identity = Buffer.from(t, 'utf8');
        return { identity, deflated: deflatePieceSync(identity, gzipLevel) };
      };
      this.#slots.push({ text: bytes(text), openmetrics: bytes(openmetrics) });
      return { slot: this.#slots.length - 1 };
    };
    const headers: FamilyHeaders = {
      management: MANAGEMENT_FAMILIES.map(header),
      leader: LEADER_FAMILIES.map(header),
      group: GROUP_FAMILIES.map(header),
      node: NODE_FAMILIES.map(header),
    };
    // The assembler owns the defaults of the piece size and the identity cache.
    this.#assembler = {
      headers,
      gzipLevel,
      ...(options.chunkBytes === undefined ? {} : { chunkBytes: options.chunkBytes }),
      ...(options.identityCacheMaxBytes === undefined ? {} : { identityCacheMaxBytes: options.identityCacheMaxBytes }),
    };
    this.#onWorker = options.builder === 'worker';
    this.#builder = this.#onWorker ? this.#workerBuilder() : this.#inlineBuilder();
    this.#snapshots = options.snapshots;
    this.#unsubscribe = this.#snapshots.map((s) => s.subscribe(() => this.#changed()));
    this.#unsubscribeManagement = options.management?.subscribe(() => this.#changed());
  }

  #inlineBuilder(): BodyBuilder<NodeState> {
    return createInlineBuilder(this.#assembler, NODE_RENDERING);
  }

  #workerBuilder(): BodyBuilder<NodeState> {
    return (this.#o.createWorkerBuilder ?? createWorkerBuilder<NodeState>)(this.#assembler, {
      onLost: (err) => {
        this.#o.onBuilderLost?.(err);
        // A worker that keeps dying before it delivers a body (it cannot start, or runs out of heap at
        // once) is given up on: the main thread assembles from then on, slower but serving.
        if (++this.#lostInARow >= MAX_WORKER_LOSSES) {
          this.#o.onError?.(
            new Error(
              `the body worker stopped ${this.#lostInARow} times in a row (${err.message}); assembling /metrics ` +
                `on the main thread from now on`,
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
      },
    });
  }

  setSnapshots(snapshots: readonly SnapshotSource[]): void {
    checkDistinctLabels(snapshots);
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#snapshots = [...snapshots];
    this.#unsubscribe = this.#snapshots.map((s) => s.subscribe(() => this.#changed()));
    this.#changed();
  }

  current(): Promise<SnapshotBody> {
    return this.#body ? Promise.resolve(this.#body) : this.rebuild();
  }

  scrape(client: string, identity = false): Promise<SnapshotBody> {
    const now = this.#o.clock.now();
    if (identity) {
      this.#identityAt = now;
      const b = this.#body;
      if (b && !b.identity && b.identityBytes <= this.#o.identityCacheMaxBytes) this.#inflate();
    }
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
      // The build in flight took its node states when it started: changes since then need another one.
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
    while (this.#building || this.#inflating) {
      await this.#building?.catch(() => undefined);
      await this.#inflating?.done;
    }
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
    // The share floor yields to the age bound: a build of 3 s or more (50,000 nodes on a loaded machine) would
    // otherwise push the next one beyond it.
    const bound = this.#lastStart + this.#o.maxBodyAgeMs;
    const floor = Math.max(minFloor, Math.min(bound, this.#lastEnd + this.#lastDuration * (1 / share - 1)));
    // Start-up: the first body holds hardly a node, and a first scrape (nobody predicts it) would get it for up
    // to the age bound. Until the bound has passed since the first build, a dirty body is rebuilt at gaps that
    // double from minRebuildIntervalMs (1, 2, 4, 8, 16 s after the first build): a scrape then finds data at most
    // about half its time since the start old, for five builds more than the bound alone.
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

  /** `auto`: builds in the worker when the fleet reaches workerMinNodes, inline again below 80 % of it. */
  #chooseBuilder(snapshots: readonly SnapshotSource[]): void {
    if (this.#o.builder !== 'auto' || this.#workerGivenUp) return;
    let nodes = 0;
    for (const s of snapshots) nodes += s.size;
    const min = this.#o.workerMinNodes;
    const worker = this.#onWorker ? nodes >= min * WORKER_HYSTERESIS : nodes >= min;
    if (worker === this.#onWorker) return;
    const old = this.#builder;
    this.#onWorker = worker;
    this.#builder = worker ? this.#workerBuilder() : this.#inlineBuilder();
    old.close().catch((err: unknown) => this.#o.onError?.(err));
    this.#o.onBuilderSwitch?.(worker ? 'worker' : 'inline', nodes);
  }

  /**
   * Gives the current body its identity bytes, inflated on zlib's threads, for the identity scrapes after the one
   * that asked (which is served by gunzipping). Once per body; dropped when a new body came meanwhile.
   */
  #inflate(): void {
    const body = this.#body;
    const built = this.#built;
    if (!body || !built || this.#inflating?.body === body) return;
    const inflating = {
      body,
      done: inflateParts(built).then(
        (inflated) => {
          if (this.#inflating === inflating) this.#inflating = undefined;
          if (this.#body !== body) return;
          this.#built = inflated;
          this.#body = snapshotBody(inflated, this.#slots);
        },
        (err: unknown) => {
          if (this.#inflating === inflating) this.#inflating = undefined;
          this.#o.onError?.(err);
        },
      ),
    };
    this.#inflating = inflating;
  }

  async #build(): Promise<SnapshotBody> {
    const { clock } = this.#o;
    const snapshots = this.#snapshots;
    const started = clock.now();
    this.#lastStart = started;
    if (this.#firstStart === -Infinity) this.#firstStart = started;
    const generation = this.#changes;
    this.#dirty = false;
    const fresh = this.#freshNext;
    this.#freshNext = false;
    let views: NodeView[] = [];
    try {
      this.#chooseBuilder(snapshots);
      const management = this.#o.management?.texts();
      // The states as of now (a view keeps them while polls write on): the body is one moment's data.
      views = snapshots.map((s) => s.nodeView());
      const built = await this.#builder.build({
        generation,
        ...(management ? { management } : {}),
        ...(fresh ? { fresh } : {}),
        leaders: snapshots.map((s, i) => ({
          targetPairs: s.targetPairs,
          leaderTexts: s.leaderTexts(),
          groupTexts: s.groupTexts(),
          nodes: views[i] as NodeView,
        })),
        // Not when the last body was over the cap: its pieces would be kept until the cap, then dropped.
        keepIdentity:
          started - this.#identityAt <= this.#o.keepIdentityMs &&
          (this.#body?.identityBytes ?? 0) <= this.#o.identityCacheMaxBytes,
      });
      const body = snapshotBody(built, this.#slots);
      this.#body = body;
      this.#built = built;
      this.#bodyStarted = started;
      this.#lostInARow = 0;
      return body;
    } catch (err) {
      this.#dirty = true;
      throw err;
    } finally {
      for (const v of views) v.close();
      this.#lastEnd = clock.now();
      this.#lastDuration = this.#lastEnd - started;
      if (this.#body?.generation === generation) {
        this.#o.onBuild?.({
          generation,
          durationMs: this.#lastDuration,
          bytes: this.#body.identityBytes,
          gzipBytes: this.#body.gzipBytes,
          runs: this.#built?.runs ?? 0,
          reusedRuns: this.#built?.reusedRuns ?? 0,
        });
      }
    }
  }
}

/** The body's parts with the identity bytes of each shared part, inflated from its deflate on zlib's threads. */
async function inflateParts(body: AssembledBody): Promise<AssembledBody> {
  const parts = await Promise.all(
    body.parts.map(async (part) => {
      if (isSlot(part) || part.identity) return part;
      // A deflate buffer is a whole piece, ending in a sync flush: a stream of its own without a final block.
      const identity = await Promise.all(
        part.deflate.map(
          (d) =>
            new Promise<Buffer>((resolve, reject) =>
              inflateRaw(d, { finishFlush: zlibConstants.Z_SYNC_FLUSH }, (err, out) =>
                err ? reject(err) : resolve(out),
              ),
            ),
        ),
      );
      return { ...part, identity };
    }),
  );
  return { ...body, parts };
}

/** Creates the body cache over the given leaders' snapshots; throws when two leaders share target labels. */
export function createBodyCache(options: BodyCacheOptions): BodyCache {
  return new Cache(options);
}
