/**
 * The cached /metrics body. Built from the leaders' pre-rendered texts when a snapshot changes
 * (never per scrape), by a body builder (builder.ts) that holds every node's text: in a worker thread
 * in the exporter, so the event loop only moves references; inline (yielding between chunks) in tests.
 * Snapshots hand their node texts over as batches; the gzip is computed once per generation on zlib's
 * thread pool. Scrapes always get the last complete body; only the very first scrape waits, for the
 * first build. Concurrent requests for a build share it.
 */

import { gzipSync, constants as zlibConstants } from 'node:zlib';
import type { Clock } from '../util/clock.js';
import {
  isSlot,
  type AssembledBody,
  type AssemblerOptions,
  type FamilyHeader,
  type FamilyHeaders,
} from './assemble.js';
import { createInlineBuilder, createWorkerBuilder, type BodyBuilder, type WorkerBuilderHooks } from './builder.js';
import { GROUP_FAMILIES, LEADER_FAMILIES, MANAGEMENT_FAMILIES, NODE_FAMILIES } from '../collectors/index.js';
import { familyHeader, familyHelp, type FamilyDef, type RefreshIntervals } from '../format/family.js';
import type { Format } from '../format/format.js';
import type { LeaderSnapshot } from '../store/snapshot.js';
import type { ScopeSnapshot } from '../store/scope.js';

/** What the body reads from one leader's snapshot store. */
export type SnapshotSource = Pick<
  LeaderSnapshot,
  | 'id'
  | 'labels'
  | 'generation'
  | 'takeNodeBatch'
  | 'pendingNodeBytes'
  | 'requeueNodes'
  | 'groupTexts'
  | 'leaderTexts'
  | 'subscribe'
>;

/** The management plane's texts (cribl_workspace_info, cribl_management_up), when workspaces are discovered. */
export type ManagementSource = Pick<ScopeSnapshot<unknown>, 'texts' | 'subscribe'>;

/** A body in one format. */
export interface FormatBody {
  /**
   * The body as UTF-8 chunks, in order. Undefined when larger than `identityCacheMaxBytes`: identity is then
   * served by gunzipping `gzip` (Prometheus always asks for gzip, so large fleets keep one copy of the body, not
   * two).
   */
  readonly identity: readonly Buffer[] | undefined;
  readonly identityBytes: number;
  /** The same bytes as gzip members (concatenated members are one gzip stream). */
  readonly gzip: readonly Buffer[];
  readonly gzipBytes: number;
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
type SlotBytes = Readonly<Record<Format, { identity: Buffer; gzip: Buffer }>>;

/** The per-format views of an assembled body: lists of references to the shared buffers and the slots' bytes. */
function formatBody(body: AssembledBody, slots: readonly SlotBytes[], format: Format): FormatBody {
  let identity: Buffer[] | undefined = [];
  const gzip: Buffer[] = [];
  let identityBytes = body.identityBytes;
  let gzipBytes = body.gzipBytes;
  for (const part of body.parts) {
    if (isSlot(part)) {
      const bytes = slots[part.slot]?.[format];
      if (!bytes) throw new Error(`body has an unknown header slot ${part.slot}`);
      identity?.push(bytes.identity);
      gzip.push(bytes.gzip);
      identityBytes += bytes.identity.length;
      gzipBytes += bytes.gzip.length;
      continue;
    }
    if (part.identity && identity) identity.push(...part.identity);
    else identity = undefined;
    gzip.push(...part.gzip);
  }
  return { identity, identityBytes, gzip, gzipBytes };
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
}

/** Options of createBodyCache. */
export interface BodyCacheOptions {
  snapshots: readonly SnapshotSource[];
  /** The management plane's scope (Cribl.Cloud workspace discovery); its families come first. */
  management?: ManagementSource;
  intervals: RefreshIntervals;
  clock: Clock;
  /** Least time between the starts of two builds while the snapshot keeps changing. @default 1000 */
  minRebuildIntervalMs?: number;
  /**
   * Largest share of wall time spent building: after a build of d ms the next one waits at least
   * d × (1 / share − 1). Caps the cost of a large fleet whose nodes change continuously. @default 0.1
   */
  maxBuildShare?: number;
  /** gzip level; 1 is several times faster than 6 and the body compresses well anyway. @default 1 */
  gzipLevel?: number;
  /** Bytes assembled between two yields. @default 1 MiB */
  chunkBytes?: number;
  /** Largest body whose identity bytes are kept besides the gzip. @default 32 MiB */
  identityCacheMaxBytes?: number;
  /** Where bodies are assembled. @default 'inline' (the exporter uses 'worker') */
  builder?: 'inline' | 'worker';
  /** Makes the worker builder (tests inject one they can stop). @default createWorkerBuilder */
  createWorkerBuilder?: (options: AssemblerOptions, hooks: WorkerBuilderHooks) => BodyBuilder;
  /** Called when the worker holding the node texts stopped; every node's text is sent again. */
  onBuilderLost?: (err: Error) => void;
  /** Node text waiting in a snapshot beyond which it is sent to the builder at once. @default 1 MiB */
  batchBytes?: number;
  onBuild?: (stats: BuildStats) => void;
  onError?: (err: unknown) => void;
}

/** The cached body of all leaders. */
export interface BodyCache {
  /** The latest complete body; waits only while none has been built yet. */
  current(): Promise<SnapshotBody>;
  /**
   * A body with every change made before the call: builds now, joins the build in flight, or follows it with another.
   */
  rebuild(): Promise<SnapshotBody>;
  /** Resolves once no build is in flight (for shutdown and tests). */
  whenIdle(): Promise<void>;
  /**
   * Replaces the set of leaders (workspace discovery adds and removes leaders at run time); the next body
   * has exactly these. Throws, keeping the old set, when two would share target labels.
   */
  setSnapshots(snapshots: readonly SnapshotSource[]): void;
  /** Stops scheduling builds and unsubscribes from the snapshots. */
  close(): void;
}

/** Worker losses in a row (without a body in between) after which the main thread assembles instead. */
const MAX_WORKER_LOSSES = 3;

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

class Cache implements BodyCache {
  readonly #o: BodyCacheOptions & { minRebuildIntervalMs: number; maxBuildShare: number; batchBytes: number };
  #builder: BodyBuilder;
  readonly #resetLosses: () => void;
  readonly #slots: SlotBytes[] = [];
  readonly #unsubscribeManagement: (() => void) | undefined;
  #unsubscribe: (() => void)[];
  #snapshots: readonly SnapshotSource[];
  readonly #abort = new AbortController();
  #body: SnapshotBody | undefined;
  #building: Promise<SnapshotBody> | undefined;
  #next: Promise<SnapshotBody> | undefined;
  #changes = 0;
  #dirty = true;
  #scheduled = false;
  #lastStart = -Infinity;
  #lastEnd = -Infinity;
  #lastDuration = 0;

  constructor(options: BodyCacheOptions) {
    checkDistinctLabels(options.snapshots);
    this.#o = { minRebuildIntervalMs: 1000, maxBuildShare: 0.1, batchBytes: 1 << 20, ...options };
    const gzipLevel = options.gzipLevel ?? zlibConstants.Z_BEST_SPEED;
    // A header both formats write alike is part of the shared bytes; one that differs (a counter's) gets a slot,
    // gzipped here once, that each body fills per format.
    const header = (f: FamilyDef): FamilyHeader => {
      const help = familyHelp(f, options.intervals);
      const text = familyHeader(f.name, f.type ?? 'gauge', help, 'text');
      const openmetrics = familyHeader(f.name, f.type ?? 'gauge', help, 'openmetrics');
      if (text === openmetrics) return text;
      const bytes = (t: string): { identity: Buffer; gzip: Buffer } => {
        const identity = Buffer.from(t, 'utf8');
        return { identity, gzip: gzipSync(identity, { level: gzipLevel }) };
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
    const assembler = {
      headers,
      gzipLevel,
      chunkBytes: options.chunkBytes ?? 1 << 20,
      identityCacheMaxBytes: options.identityCacheMaxBytes ?? 32 << 20,
    };
    let lostInARow = 0;
    this.#builder =
      options.builder === 'worker'
        ? (options.createWorkerBuilder ?? createWorkerBuilder)(assembler, {
            onLost: (err) => {
              this.#o.onBuilderLost?.(err);
              // A worker that keeps dying before it delivers a body (it cannot start, or runs out of heap at
              // once) is given up on: the main thread assembles from then on, slower but serving.
              if (++lostInARow >= MAX_WORKER_LOSSES) {
                this.#o.onError?.(
                  new Error(
                    `the body worker stopped ${lostInARow} times in a row (${err.message}); assembling /metrics ` +
                      `on the main thread from now on`,
                  ),
                );
                const dead = this.#builder;
                this.#builder = createInlineBuilder(assembler);
                dead.close().catch(() => undefined);
              } else {
                this.#o.onError?.(
                  new Error(`the body worker stopped (${err.message}); sending every node's text again`),
                );
              }
              // A sliced re-send would be kinder to the loop; this happens only if the worker dies.
              for (const s of this.#snapshots) s.requeueNodes();
              this.#changed();
            },
          })
        : createInlineBuilder(assembler);
    this.#resetLosses = () => (lostInARow = 0);
    this.#snapshots = options.snapshots;
    for (const s of this.#snapshots) s.requeueNodes();
    this.#unsubscribe = this.#snapshots.map((s) => s.subscribe(() => this.#changed(s)));
    this.#unsubscribeManagement = options.management?.subscribe(() => this.#changed());
  }

  setSnapshots(snapshots: readonly SnapshotSource[]): void {
    checkDistinctLabels(snapshots);
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    const kept = new Set(snapshots);
    for (const s of this.#snapshots) if (!kept.has(s)) this.#builder.drop(s.id);
    const before = new Set(this.#snapshots);
    for (const s of snapshots) if (!before.has(s)) s.requeueNodes();
    this.#snapshots = [...snapshots];
    this.#unsubscribe = this.#snapshots.map((s) => s.subscribe(() => this.#changed(s)));
    this.#changed();
  }

  current(): Promise<SnapshotBody> {
    return this.#body ? Promise.resolve(this.#body) : this.rebuild();
  }

  rebuild(): Promise<SnapshotBody> {
    if (this.#building) {
      // The build in flight took its node texts when it started: changes since then need another one.
      if (!this.#dirty) return this.#building;
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
      if (this.#dirty) this.#schedule();
    });
    this.#building = building;
    return building;
  }

  async whenIdle(): Promise<void> {
    while (this.#building) await this.#building.catch(() => undefined);
  }

  close(): void {
    this.#abort.abort();
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#unsubscribeManagement?.();
    this.#builder.close().catch((err: unknown) => this.#o.onError?.(err));
  }

  #changed(source?: SnapshotSource): void {
    this.#changes++;
    this.#dirty = true;
    // Node texts travel to the builder in batches of about batchBytes, not all at build time.
    if (source && source.pendingNodeBytes >= this.#o.batchBytes) this.#send(source);
    this.#schedule();
  }

  #send(source: SnapshotSource): void {
    const batch = source.takeNodeBatch();
    if (batch) this.#builder.apply(source.id, batch);
  }

  #schedule(): void {
    if (this.#scheduled || this.#building || this.#abort.signal.aborted) return;
    this.#scheduled = true;
    const now = this.#o.clock.now();
    const share = Math.min(1, Math.max(0.01, this.#o.maxBuildShare));
    const delay = Math.max(
      0,
      this.#lastStart + this.#o.minRebuildIntervalMs - now,
      this.#lastEnd + this.#lastDuration * (1 / share - 1) - now,
    );
    this.#o.clock.sleep(delay, this.#abort.signal).then(
      () => {
        this.#scheduled = false;
        // A build that a close() cut short is no failure worth a log line (e.g. after a failed start).
        if (this.#dirty)
          this.rebuild().catch((err: unknown) => {
            if (!this.#abort.signal.aborted) this.#o.onError?.(err);
          });
      },
      () => {
        this.#scheduled = false;
      },
    );
  }

  async #build(): Promise<SnapshotBody> {
    const { clock } = this.#o;
    const snapshots = this.#snapshots;
    const started = clock.now();
    this.#lastStart = started;
    const generation = this.#changes;
    this.#dirty = false;
    try {
      for (const s of snapshots) this.#send(s);
      const management = this.#o.management?.texts();
      const built = await this.#builder.build({
        generation,
        ...(management ? { management } : {}),
        leaders: snapshots.map((s) => ({ id: s.id, leaderTexts: s.leaderTexts(), groupTexts: s.groupTexts() })),
      });
      const body = snapshotBody(built, this.#slots);
      this.#body = body;
      this.#resetLosses();
      return body;
    } catch (err) {
      this.#dirty = true;
      throw err;
    } finally {
      this.#lastEnd = clock.now();
      this.#lastDuration = this.#lastEnd - started;
      if (this.#body?.generation === generation) {
        this.#o.onBuild?.({
          generation,
          durationMs: this.#lastDuration,
          bytes: this.#body.identityBytes,
          gzipBytes: this.#body.gzipBytes,
        });
      }
    }
  }
}

/** Creates the body cache over the given leaders' snapshots; throws when two leaders share target labels. */
export function createBodyCache(options: BodyCacheOptions): BodyCache {
  return new Cache(options);
}
