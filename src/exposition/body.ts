/**
 * The cached /metrics body. Built from the leaders' pre-rendered texts when a snapshot changes
 * (never per scrape), in chunks that yield to the event loop, with its gzip computed once per
 * generation on zlib's thread pool. Scrapes always get the last complete body; only the very
 * first scrape waits, for the first build. Concurrent requests for a build share it.
 */

import { createGzip, constants as zlibConstants } from 'node:zlib';
import type { Clock } from '../util/clock.js';
import { GROUP_FAMILIES, LEADER_FAMILIES, NODE_FAMILIES, gaugeHeader, helpText, type RefreshIntervals } from './families.js';
import type { RenderedNode } from './render.js';

/** What the body reads from one leader's snapshot store (implemented by src/store/snapshot.ts). */
export interface SnapshotSource {
  readonly labels: Readonly<Record<string, string>>;
  /** Grows on every visible change. */
  readonly generation: number;
  /** Every node's rendered bytes, as of now. */
  renderedNodes(): RenderedNode[];
  /** Group family texts (GROUP_FAMILIES order). */
  groupTexts(): readonly string[];
  /** Leader family texts (LEADER_FAMILIES order). */
  leaderTexts(): readonly string[];
  /** Calls `listener` after each change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

/** One complete body of the snapshot families (self-metrics are added per scrape). Immutable. */
export interface SnapshotBody {
  /** Number of snapshot changes the body includes. */
  readonly generation: number;
  /**
   * The body as UTF-8 chunks, in order; identical for both formats (only gauges, quote-free HELP).
   * Undefined when larger than `identityCacheMaxBytes`: identity is then served by gunzipping `gzip`
   * (Prometheus always asks for gzip, so large fleets keep one copy of the body, not two).
   */
  readonly identity: readonly Buffer[] | undefined;
  readonly identityBytes: number;
  /** The same bytes as one gzip member. */
  readonly gzip: readonly Buffer[];
  readonly gzipBytes: number;
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
  /** Bytes assembled between two yields to the event loop. @default 1 MiB */
  chunkBytes?: number;
  /** Largest body whose identity bytes are kept besides the gzip. @default 32 MiB */
  identityCacheMaxBytes?: number;
  onBuild?: (stats: BuildStats) => void;
  onError?: (err: unknown) => void;
}

/** The cached body of all leaders. */
export interface BodyCache {
  /** The latest complete body; waits only while none has been built yet. */
  current(): Promise<SnapshotBody>;
  /** Builds now, or joins the build in flight. */
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

function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Throws when two leaders would export identical series (same target labels). */
function checkDistinctLabels(snapshots: readonly SnapshotSource[]): void {
  const seen = new Set<string>();
  for (const s of snapshots) {
    const key = JSON.stringify(Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : 1)));
    if (seen.has(key)) {
      throw new Error(`two leaders have the same target labels ${JSON.stringify(s.labels)}; give each a distinguishing label (e.g. workspace)`);
    }
    seen.add(key);
  }
}

class Cache implements BodyCache {
  readonly #o: Required<Omit<BodyCacheOptions, 'onBuild' | 'onError'>> & Pick<BodyCacheOptions, 'onBuild' | 'onError'>;
  readonly #headers: { leader: Buffer[]; group: Buffer[]; node: Buffer[] };
  #unsubscribe: (() => void)[];
  #snapshots: readonly SnapshotSource[];
  readonly #abort = new AbortController();
  #body: SnapshotBody | undefined;
  #building: Promise<SnapshotBody> | undefined;
  #changes = 0;
  #dirty = true;
  #scheduled = false;
  #lastStart = -Infinity;
  #lastEnd = -Infinity;
  #lastDuration = 0;

  constructor(options: BodyCacheOptions) {
    checkDistinctLabels(options.snapshots);
    this.#o = {
      minRebuildIntervalMs: 1000,
      maxBuildShare: 0.1,
      gzipLevel: zlibConstants.Z_BEST_SPEED,
      chunkBytes: 1 << 20,
      identityCacheMaxBytes: 32 << 20,
      ...options,
    };
    const header = (f: Parameters<typeof helpText>[0]): Buffer => {
      const help = helpText(f, options.intervals);
      const text = gaugeHeader(f.name, help, 'text');
      // The node part is shared by both formats; that holds only while HELP needs no format-specific escaping.
      if (text !== gaugeHeader(f.name, help, 'openmetrics')) throw new Error(`HELP of ${f.name} differs between formats`);
      return Buffer.from(text, 'utf8');
    };
    this.#headers = { leader: LEADER_FAMILIES.map(header), group: GROUP_FAMILIES.map(header), node: NODE_FAMILIES.map(header) };
    this.#snapshots = options.snapshots;
    this.#unsubscribe = options.snapshots.map((s) => s.subscribe(() => this.#changed()));
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

  rebuild(): Promise<SnapshotBody> {
    if (this.#building) return this.#building;
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
  }

  #changed(): void {
    this.#changes++;
    this.#dirty = true;
    this.#schedule();
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
        if (this.#dirty) this.rebuild().catch((err: unknown) => this.#o.onError?.(err));
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
      const body = await this.#assemble(generation, snapshots);
      this.#body = body;
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

  async #assemble(generation: number, snapshots: readonly SnapshotSource[]): Promise<SnapshotBody> {
    const { chunkBytes, identityCacheMaxBytes } = this.#o;
    const gzip = createGzip({ level: this.#o.gzipLevel, chunkSize: 256 * 1024 });
    const gzipped: Buffer[] = [];
    let gzipBytes = 0;
    gzip.on('data', (b: Buffer) => {
      gzipped.push(b);
      gzipBytes += b.length;
    });
    const finished = new Promise<void>((resolve, reject) => {
      gzip.once('end', resolve);
      gzip.once('error', reject);
    });

    let identity: Buffer[] | undefined = [];
    let identityBytes = 0;

    // Chunks that gzip has consumed are reused unless the identity body keeps them: assembling a
    // 100 MB body then needs a few MB, not another 100 MB of short-lived buffers.
    const spare: Buffer[] = [];
    let chunk: Buffer = Buffer.allocUnsafeSlow(chunkBytes);
    let pos = 0;

    // Hands a finished chunk to gzip (on zlib's threads) and lets the event loop breathe.
    const ship = async (out: Buffer, reusable?: Buffer): Promise<void> => {
      identityBytes += out.length;
      if (identity) {
        identity.push(out);
        if (identityBytes > identityCacheMaxBytes) identity = undefined;
      }
      const recycle = !identity && reusable ? () => void (spare.length < 8 && spare.push(reusable)) : undefined;
      // Bounded backlog: a few chunks may queue for zlib's threads while the next ones are copied.
      // ('drain' comes only after a write that returned false.)
      if (!gzip.write(out, recycle) && gzip.writableLength > 4 * chunkBytes) {
        await Promise.race([new Promise((resolve) => gzip.once('drain', resolve)), finished]);
      } else await yieldToLoop();
    };
    const flush = async (): Promise<void> => {
      if (pos === 0) return;
      const full = chunk;
      const out = chunk.subarray(0, pos);
      chunk = spare.pop() ?? Buffer.allocUnsafeSlow(chunkBytes);
      pos = 0;
      await ship(out, full);
    };
    const put = async (bytes: Buffer, start = 0, end = bytes.length): Promise<void> => {
      const length = end - start;
      if (pos + length > chunkBytes) await flush();
      // A text larger than a chunk (a hostile label value) travels as a chunk of its own.
      if (length > chunkBytes) return ship(Buffer.from(bytes.subarray(start, end)));
      bytes.copy(chunk, pos, start, end);
      pos += length;
    };

    // Small families first: leader and group texts are pre-rendered strings per leader.
    const fixed: [Buffer[], (s: SnapshotSource) => readonly string[]][] = [
      [this.#headers.leader, (s) => s.leaderTexts()],
      [this.#headers.group, (s) => s.groupTexts()],
    ];
    for (const [headers, texts] of fixed) {
      for (const [f, header] of headers.entries()) {
        const samples = snapshots.map((s) => texts(s)[f] ?? '').join('');
        if (!samples) continue;
        await put(header);
        await put(Buffer.from(samples, 'utf8'));
      }
    }

    // Per-node families: a family's series from every leader, contiguous; header only when non-empty.
    const lists = snapshots.map((s) => s.renderedNodes());
    for (let f = 0; f < NODE_FAMILIES.length; f++) {
      const header = this.#headers.node[f] ?? Buffer.alloc(0);
      let headerDone = false;
      for (const list of lists) {
        for (const node of list) {
          if (node.offsets[f] === node.offsets[f + 1]) continue;
          if (!headerDone) {
            await put(header);
            headerDone = true;
          }
          // Offsets are read right before the synchronous copy: a node re-rendered in place during an
          // await above must not be copied with stale offsets.
          if (pos + (node.offsets[f + 1] ?? 0) - (node.offsets[f] ?? 0) > chunkBytes) await flush();
          const start = node.offsets[f] ?? 0;
          const end = node.offsets[f + 1] ?? 0;
          if (end - start > chunkBytes) {
            // A text larger than a chunk (a hostile label value) travels as a chunk of its own, copied now.
            await ship(Buffer.from(node.bytes.subarray(start, end)));
          } else {
            node.bytes.copy(chunk, pos, start, end);
            pos += end - start;
          }
        }
      }
    }
    await flush();
    gzip.end();
    await finished;
    return { generation, identity, identityBytes, gzip: gzipped, gzipBytes };
  }
}

/** Creates the body cache over the given leaders' snapshots; throws when two leaders share target labels. */
export function createBodyCache(options: BodyCacheOptions): BodyCache {
  return new Cache(options);
}
