/**
 * The cached /metrics body. Built from the leaders' pre-rendered texts when a snapshot changes
 * (never per scrape), in chunks that yield to the event loop, with its gzip computed once per
 * generation on zlib's thread pool. Scrapes always get the last complete body; only the very
 * first scrape waits, for the first build. Concurrent requests for a build share it.
 */

import { createGzip, constants as zlibConstants } from 'node:zlib';
import type { Clock } from '../util/clock.js';
import { GROUP_FAMILIES, LEADER_FAMILIES, NODE_FAMILIES, gaugeHeader, helpText, type RefreshIntervals } from './families.js';
import type { NodeTexts } from './render.js';

/** What the body reads from one leader's snapshot store (implemented by src/store/snapshot.ts). */
export interface SnapshotSource {
  readonly labels: Readonly<Record<string, string>>;
  /** Grows on every visible change. */
  readonly generation: number;
  /** Every node's texts, as of now. */
  nodeTexts(): NodeTexts[];
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
  /** The body as UTF-8 chunks, in order. Identical for both formats: only gauges, quote-free HELP. */
  readonly identity: readonly Buffer[];
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
  /** Text joined between two yields to the event loop. @default 1 MiB */
  chunkBytes?: number;
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
  readonly #headers: { leader: string[]; group: string[]; node: string[] };
  readonly #unsubscribe: (() => void)[];
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
      ...options,
    };
    const header = (f: Parameters<typeof helpText>[0]): string => {
      const help = helpText(f, options.intervals);
      const text = gaugeHeader(f.name, help, 'text');
      // The node part is shared by both formats; that holds only while HELP needs no format-specific escaping.
      if (text !== gaugeHeader(f.name, help, 'openmetrics')) throw new Error(`HELP of ${f.name} differs between formats`);
      return text;
    };
    this.#headers = { leader: LEADER_FAMILIES.map(header), group: GROUP_FAMILIES.map(header), node: NODE_FAMILIES.map(header) };
    this.#unsubscribe = options.snapshots.map((s) => s.subscribe(() => this.#changed()));
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
    const { clock, snapshots, chunkBytes } = this.#o;
    const started = clock.now();
    this.#lastStart = started;
    const generation = this.#changes;
    this.#dirty = false;
    try {
      const body = await this.#assemble(generation, snapshots, chunkBytes);
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

  async #assemble(generation: number, snapshots: readonly SnapshotSource[], chunkBytes: number): Promise<SnapshotBody> {
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

    const identity: Buffer[] = [];
    let identityBytes = 0;
    let parts: string[] = [];
    let pending = 0;
    const flush = (): void => {
      if (parts.length === 0) return;
      const chunk = Buffer.from(parts.join(''), 'utf8');
      parts = [];
      pending = 0;
      identity.push(chunk);
      identityBytes += chunk.length;
      gzip.write(chunk);
    };
    const add = (text: string): boolean => {
      parts.push(text);
      pending += text.length;
      return pending >= chunkBytes;
    };

    // Small families first: leader and group texts are pre-rendered per leader.
    const fixed: [string[], (s: SnapshotSource) => readonly string[]][] = [
      [this.#headers.leader, (s) => s.leaderTexts()],
      [this.#headers.group, (s) => s.groupTexts()],
    ];
    for (const [headers, texts] of fixed) {
      headers.forEach((header, f) => {
        const samples = snapshots.map((s) => texts(s)[f] ?? '').join('');
        if (samples) add(header + samples);
      });
    }

    // Per-node families: a family's series from every leader, contiguous, header only when non-empty.
    const lists = snapshots.map((s) => s.nodeTexts());
    for (let f = 0; f < NODE_FAMILIES.length; f++) {
      let headerDone = false;
      for (const list of lists) {
        for (const texts of list) {
          const text = texts[f];
          if (!text) continue;
          if (!headerDone) {
            add(this.#headers.node[f] ?? '');
            headerDone = true;
          }
          if (add(text)) {
            flush();
            await yieldToLoop();
          }
        }
      }
    }
    flush();
    gzip.end();
    await finished;
    return { generation, identity, identityBytes, gzip: gzipped, gzipBytes };
  }
}

/** Creates the body cache over the given leaders' snapshots; throws when two leaders share target labels. */
export function createBodyCache(options: BodyCacheOptions): BodyCache {
  return new Cache(options);
}
