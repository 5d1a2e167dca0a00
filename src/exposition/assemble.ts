// Over 400 lines: one build of the body; its per-family outputs, byte pieces, pieces being compressed and identity
// policy are one state that rendering, spilling and finishing share (the types of the protocol are most of the rest).
/**
 * Assembles the /metrics body at build time from the leaders' node states and their small management, leader and
 * group texts, with its gzip computed on zlib's threads (only for the pieces whose text differs from the last build's:
 * PieceMemo). No text per node is kept between builds: a node is rendered when a body is built (once per scrape
 * interval at most, body.ts), not when its data changes, and only the families it must be rendered for: a leader's
 * nodes come in runs (RUN_NODES, cut by node id), and a run whose states did not change but for their volatile values
 * (the store's fingerprint) takes every other family's pieces from the last build (RunMemo). At 50,000 nodes the
 * kept texts were 125–130 MB of the process's 583 MB, and re-rendering every node on every poll was 23 % of the main
 * thread's CPU in the start-up burst (bench/ANALYSIS.md, issue 17).
 *
 * Runs inside the body worker (body-worker.ts) from WORKER_MIN_NODES nodes: the main thread then only posts the node
 * states in chunks (structured clone, about 2.4 µs a node) and receives the finished buffers without a copy. Smaller
 * fleets and tests run it on the main thread (no flag chooses: the body cache does), yielding every few ms.
 *
 * Nodes are rendered one by one, every family of a node at once (so each node's state is read once), into one
 * output per family: the text format wants each family's series contiguous. A family's text is cut into pieces
 * (`chunkBytes`, or 128–256 KiB by the previous body's size); each piece is raw deflate ending in a sync flush,
 * compressed on zlib's threads while the next nodes render, with its CRC-32: the body cache joins the pieces into one
 * gzip member (util/gzip-stream.ts). Both formats share the body's bytes except the HELP/TYPE lines of the families
 * whose header differs between them (a counter: OpenMetrics names it without `_total`): such a header is a slot
 * between parts, which the body cache fills per format with pre-built bytes.
 */

import { hash } from 'node:crypto';
import { constants as zlibConstants } from 'node:zlib';
import type { Family } from '../format/family.js';
import { crc32Combine, PieceDeflater, type DeflatedPiece } from '../util/gzip-stream.js';
import { timeSlicer } from '../util/yield.js';

/** A header that differs between the formats: the body cache fills slot `slot` per format. */
export interface HeaderSlot {
  readonly slot: number;
}

/** HELP/TYPE lines of one family: shared by both formats, or a slot filled per format. */
export type FamilyHeader = string | HeaderSlot;

/** HELP/TYPE lines per family, in MANAGEMENT_FAMILIES, LEADER_FAMILIES, GROUP_FAMILIES and NODE_FAMILIES order. */
export interface FamilyHeaders {
  /** Absent: no management families (tests). */
  management?: readonly FamilyHeader[];
  leader: readonly FamilyHeader[];
  group: readonly FamilyHeader[];
  node: readonly FamilyHeader[];
}

/** Options of BodyAssembler. */
export interface AssemblerOptions {
  headers: FamilyHeaders;
  /** gzip level; 1 is several times faster than 6 and the body compresses well anyway. @default 1 */
  gzipLevel?: number;
  /** Size of a piece (compressed apart) of a family's text. @default 128–256 KiB, by the previous body's size */
  chunkBytes?: number;
  /** Largest body whose identity bytes are kept besides the gzip. @default IDENTITY_CACHE_MAX_BYTES */
  identityCacheMaxBytes?: number;
}

/**
 * Default of `identityCacheMaxBytes`: 32 MiB, about 11,000 nodes. Above it identity is served by gunzipping the gzip
 * (Prometheus always asks for gzip, so a large fleet keeps one copy of the body, not two).
 */
export const IDENTITY_CACHE_MAX_BYTES = 32 << 20;

/** How a node state is rendered: its families (NODE_FAMILIES order) and the opening of its label set. */
export interface NodeRendering<N> {
  readonly families: readonly Pick<Family<N>, 'sample' | 'volatile'>[];
  /** `{target pairs,product="…",group="…",node_id="…"` (no closing brace), as the families' `base`. */
  readonly base: (state: N, targetPairs: string) => string;
}

/** One leader's part of a build, without its nodes. */
export interface LeaderHead {
  /** The leader's target labels rendered (`workspace="a"`), or empty. */
  readonly targetPairs: string;
  readonly leaderTexts: readonly string[];
  readonly groupTexts: readonly string[];
}

/**
 * Node states read in slices (an array, or the store's view: src/store/snapshot.ts), so that a build makes each
 * node's state object only when it renders it and the objects die young.
 */
export interface NodeList<N> {
  readonly length: number;
  slice(start: number, end: number): readonly N[];
  /**
   * The same states in a form cheaper to post to the body worker than the objects (the store's columns), with the
   * buffers that can move; the worker reads them back with the `unpack` it was built with. Optional.
   */
  pack?(start: number, end: number): { data: unknown; transfer: ArrayBuffer[] };
  /**
   * A digest of the states in [start, end) but their volatile values (the store's packFingerprint), or undefined.
   * Given, a build takes the text of every family that is not `volatile` for a run of RUN_NODES nodes from the last
   * build when the run's digest and place are the same. Optional: without it every node is rendered.
   */
  fingerprint?(start: number, end: number): string | undefined;
  /**
   * Where the runs of about `nodes` nodes end, cut by the nodes' ids (the store's, util/content-runs.ts), so that a
   * node added or removed changes its run only. Optional: without it, runs of `nodes` from the first.
   */
  runEnds?(nodes: number): readonly number[];
}

/**
 * Nodes in a run, about: a build fingerprints a leader's nodes in runs (the body worker is sent them a run per
 * message), takes each family's text of a run that did not change from the last build, and keeps the pieces of a
 * family's text of a run apart from the next run's.
 */
export const RUN_NODES = 1000;

/** The ends of a list's runs: its own, or every RUN_NODES. */
export function runEnds(list: Pick<NodeList<unknown>, 'length' | 'runEnds'>): readonly number[] {
  const own = list.runEnds?.(RUN_NODES);
  if (own) return own;
  const ends: number[] = [];
  for (let at = RUN_NODES; at < list.length; at += RUN_NODES) ends.push(at);
  if (list.length > 0) ends.push(list.length);
  return ends;
}

/** One leader's part of a build. */
export interface LeaderPart<N> extends LeaderHead {
  /** The node states as they were when the build started, in body order. */
  readonly nodes: NodeList<N>;
}

/** What to build: the management texts (MANAGEMENT_FAMILIES order; empty without one), leaders in body order. */
export interface AssembleRequest<N> {
  readonly generation: number;
  readonly management?: readonly string[];
  readonly leaders: readonly LeaderPart<N>[];
  /** As AssembleHead's. @default true */
  readonly keepIdentity?: boolean;
  /** As AssembleHead's. @default false */
  readonly fresh?: boolean;
}

/** A build request without the node states, which follow separately (the worker gets them in chunks). */
export interface AssembleHead {
  readonly generation: number;
  readonly management?: readonly string[];
  readonly leaders: readonly LeaderHead[];
  /**
   * Whether the body keeps its identity bytes beside the gzip (up to `identityCacheMaxBytes`); without them a piece's
   * buffer is reused once compressed, and identity is served by gunzipping. @default true
   */
  readonly keepIdentity?: boolean;
  /**
   * Render every piece and run anew, taking nothing from the last build (what the first build and a change to every
   * node cost; the benchmark's full-render row). The build after it takes this one's as usual. @default false
   */
  readonly fresh?: boolean;
}

/** Bytes both formats share: a run of identity chunks and the same bytes compressed. */
export interface SharedPart {
  /** Undefined when the body is larger than `identityCacheMaxBytes`. */
  readonly identity: Buffer[] | undefined;
  /**
   * Raw deflate ending in sync flushes (no final block): each buffer starts at a piece's start, so it inflates on
   * its own (inflateRaw with Z_SYNC_FLUSH); the body cache puts them into one gzip member.
   */
  readonly deflate: Buffer[];
  /** CRC-32 and length of the identity bytes. */
  readonly crc: number;
  readonly bytes: number;
}

/** A part of a built body: shared bytes, or the slot of a format-specific family header. */
export type AssembledPart = SharedPart | HeaderSlot;

/**
 * A built body. Every buffer's ArrayBuffer belongs to it alone (so that it can move between threads without a copy);
 * deflate buffers fill theirs exactly, an identity piece may leave a short unused tail.
 */
export interface AssembledBody {
  readonly generation: number;
  /** In body order; the shared parts' identity is undefined when larger than `identityCacheMaxBytes`. */
  readonly parts: AssembledPart[];
  /** Bytes of the shared parts (the header slots come on top, per format). */
  readonly identityBytes: number;
  /** Their deflate bytes (without the gzip member's header and end). */
  readonly deflateBytes: number;
  /** Of `identityBytes`, those whose compression came from the last build (PieceMemo and RunMemo). */
  readonly reusedBytes: number;
  /** Runs of nodes × families that are not volatile, when the node lists had fingerprints; 0 otherwise. */
  readonly runs: number;
  /** Of `runs`, those whose text came from the last build without rendering (RunMemo). */
  readonly reusedRuns: number;
}

/** True for a header slot. */
export function isSlot(part: unknown): part is HeaderSlot {
  return typeof part === 'object' && part !== null && !Buffer.isBuffer(part) && 'slot' in part;
}

/**
 * The bytes in a buffer of their own size: never a slice of Node's shared pool, nor of a larger zlib output buffer
 * (whose unused tail would be kept with it). `shared` (the body worker): in a SharedArrayBuffer, so that the body
 * posted to the main thread refers to the bytes the worker's memo keeps for the next build. Moving them would detach
 * the memo's; copying them (as the body did, joined into 1 MiB buffers) held the compressed body twice, once per
 * thread: 29 MB at 50,000 nodes.
 */
function own(bytes: Buffer, shared: boolean): Buffer {
  if (!shared && bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) return bytes;
  const out = shared ? Buffer.from(new SharedArrayBuffer(bytes.length)) : Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(out);
  return out;
}

/** UTF-8 bytes of a string, in a buffer of their own. */
function encode(text: string): Buffer {
  const out = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
  out.write(text, 0, 'utf8');
  return out;
}

/** Pieces being compressed on zlib's threads before rendering waits for the oldest (bounds the bytes waiting). */
const MAX_GZIP_IN_FLIGHT = 8;

/** Longest stretch of rendering between two yields to the event loop when assembling on the main thread. */
const RENDER_SLICE_MS = 4;

/**
 * States read from a NodeList at a time: made just before they are rendered, so they die young. With the image's 2 MB
 * semi-spaces, 256 states and the text they render outlived scavenges: a quarter of the young generation survived
 * each one and a 10,000-node inline full render promoted about 20 MB (see SPILL_CHARS for the figures).
 */
const STATES_PER_READ = 64;

/**
 * Characters of rendered text a family holds as strings before they are written into its piece's bytes. Small, so
 * that the strings die in V8's young generation: with whole 256 KiB pieces held as strings, 24 families kept about
 * 6 MB of strings alive across scavenges, and the worker promoted them by the hundred MB per build at 50,000 nodes
 * (3.8 s of CPU per build, bench run of 2026-11-24). 16 KiB with 256 states a read still kept about 0.5 MB alive per
 * scavenge; an inline full render of 10,000 nodes under the image's flags (bench/notes-gc.md, fourteenth round) took
 * 474–914 ms of loop time, 164–411 ms of it in GC (6–9 mark-compacts), against 316–391 ms and 72–89 ms (about 5) with
 * 4 KiB and 64 states; 1 KiB and 16 states were worse again (554–698 ms: more, smaller pieces of work).
 */
const SPILL_CHARS = 4 * 1024;

/**
 * Piece buffers kept for reuse, within a build and from one build to the next: the pieces being filled (one per
 * family) and those in flight. Allocated per build, a gzip-only build's pieces were ArrayBuffers awaiting a full GC
 * (12.9 MB of ArrayBuffers in mem-probe at 2,000 nodes).
 */
const MAX_SPARE_PIECES = 48;

/**
 * Bounds of the piece size when `chunkBytes` is not given: about a 128th of the previous body, a power of two. Each
 * family fills a piece at a time and pieces are reused once compressed, so the buffers a build holds are about
 * (families + pieces being compressed) × the piece size whatever the fleet. Measured with mem-probe at 2,000 nodes
 * (5.9 MiB body, three runs each, RSS after a full GC): 256 KiB pieces 96–102 MB, 128 KiB 92–97 MB, 64 KiB 89–114 MB
 * (below glibc's mmap threshold of the image, 128 KiB, pieces come from malloc's arenas, which fragment). At 50,000
 * nodes 64 KiB pieces cost 30 % more CPU per build than 256 KiB (482 → 614 ms inline: four times the gzip calls)
 * and 5 % more gzip bytes, so large bodies keep 256 KiB pieces.
 */
const MIN_PIECE_BYTES = 128 << 10;
const MAX_PIECE_BYTES = 256 << 10;

/** The piece size after a body of `bodyBytes`: about a 128th of it, a power of two within the bounds above. */
export function pieceBytesFor(bodyBytes: number): number {
  let size = MIN_PIECE_BYTES;
  while (size < MAX_PIECE_BYTES && size * 128 < bodyBytes) size *= 2;
  return size;
}

/** An assembler's options with their defaults; the piece size is the `Pieces`' (fixed by `chunkBytes`, or fitted). */
type BuildOptions = Required<Omit<AssemblerOptions, 'chunkBytes'>>;

/** The piece buffers of an assembler's builds: their size and the free ones, shared by its builds. */
class Pieces {
  size: number;
  readonly #fixed: boolean;
  #spare: Buffer[] = [];

  constructor(chunkBytes: number | undefined) {
    this.#fixed = chunkBytes !== undefined;
    this.size = chunkBytes ?? MIN_PIECE_BYTES;
  }

  take(): Buffer {
    return this.#spare.pop() ?? Buffer.allocUnsafeSlow(this.size);
  }

  /** A piece whose bytes are compressed and kept nowhere. */
  give(piece: Buffer): void {
    if (piece.length === this.size && this.#spare.length < MAX_SPARE_PIECES) this.#spare.push(piece);
  }

  /** Sizes the next builds' pieces after a body of `bodyBytes` (unless the size is fixed). */
  fit(bodyBytes: number): void {
    if (this.#fixed) return;
    const size = pieceBytesFor(bodyBytes);
    if (size === this.size) return;
    this.size = size;
    this.#spare = [];
  }
}

/** One piece of a family's text: its identity bytes (until the body is too large to keep them), compressed. */
interface Piece {
  identity: Buffer | undefined;
  readonly deflated: Promise<DeflatedPiece>;
  /** SHA-256 of its text (PieceMemo). */
  readonly digest: string;
}

/** The output of one family (or of the small families together): pieces and header slots, in order. */
class Output {
  /** Its place among the build's outputs (the small families 0, then each node family): a piece's memo key. */
  readonly index: number;
  readonly items: (Piece | HeaderSlot)[] = [];
  /** Rendered text not yet written into `bytes`. */
  pending: string[] = [];
  pendingChars = 0;
  /** The piece being filled (allocated at the first write), and how much of it is filled. */
  bytes: Buffer | undefined;
  filled = 0;
  /** Whether the family has any text (its header is written before the first). */
  started = false;

  constructor(index: number) {
    this.index = index;
  }
}

/**
 * A piece of the last build, by its place (`output:item`): the SHA-256 of its text and its compression. A piece of
 * the next build at the same place whose text hashes the same takes that compression instead of deflating again.
 * Between two builds most of a fleet's series do not change (of a 2,000-node body 30 s apart in the simulator, only
 * the health poll's timestamp family and the metadata of nodes fetched in between: 90 % of its bytes stayed as
 * they were), and the families' pieces are cut at the same bytes as long as their text is the same. SHA-256 runs at
 * about 1.4 GB/s here, deflate at level 1 at 200 MB/s (bench/notes-gc.md, twelfth round).
 */
interface Remembered {
  readonly digest: string;
  readonly piece: DeflatedPiece;
}
type PieceMemo = Map<string, Remembered>;

/** A piece of a run as the last build made it; `identity` only when that body kept it, on the thread it lives on. */
interface KeptPiece extends Remembered {
  readonly identity: Buffer | undefined;
}

/**
 * One family's text of one run of nodes in the last build, by `family:leader:fingerprint` (RunMemo): the run's
 * target labels, whether the family's header came before it or in it, and its pieces and header
 * slots. Rendering a 50,000-node body is most of a build (about 2 s of CPU in the body worker, two fifths of it
 * garbage collection), yet between two builds most runs change only in their volatile values (the health poll's
 * timestamp), whose families are always rendered.
 */
interface Run<P> {
  readonly targetPairs: string;
  readonly startedBefore: boolean;
  readonly startedAfter: boolean;
  readonly items: readonly (P | HeaderSlot)[];
}
type RunMemo = Map<string, Run<KeptPiece>>;

/**
 * One build: small families at once, node states as they come (`addNodes`, in body order), and `finish`. Node
 * states may arrive in several calls (the worker gets them in chunks); calls are applied in order.
 */
export class Build<N> {
  readonly #o: BuildOptions;
  readonly #headers: readonly FamilyHeader[];
  readonly #rendering: NodeRendering<N>;
  readonly #head: AssembleHead;
  readonly #inline: boolean;
  readonly #small = new Output(0);
  readonly #families: Output[];
  /** The build's zlib streams (closed by finish). */
  readonly #deflater: PieceDeflater;
  /** Pieces being compressed, oldest first. */
  readonly #inFlight: Promise<unknown>[] = [];
  #identityBytes = 0;
  #keepIdentity: boolean;
  #queue: Promise<void> = Promise.resolve();
  readonly #spillChars: number;
  /** Piece buffers whose bytes are compressed and not kept, for the next pieces (the assembler's, shared by builds). */
  readonly #pieces: Pieces;

  /** The last build's pieces (emptied as this build takes their places); this build's, given to `#remember`. */
  readonly #before: PieceMemo;
  readonly #memo: PieceMemo = new Map();
  /** The last build's runs (emptied as this build reaches them); this build's, made kept by `#finish`. */
  readonly #runsBefore: RunMemo;
  readonly #runs = new Map<string, Run<Piece | KeptPiece>>();
  readonly #remember: (memo: PieceMemo, runs: RunMemo) => void;
  /** Bytes of the pieces taken from the last build without deflating. */
  #reusedBytes = 0;
  #runCount = 0;
  #reusedRuns = 0;
  /** Whether each node family is volatile (never taken from the last build). */
  readonly #volatile: readonly boolean[];

  constructor(
    options: BuildOptions,
    rendering: NodeRendering<N>,
    head: AssembleHead,
    inline: boolean,
    pieces: Pieces,
    memo: { before: PieceMemo; runs: RunMemo; remember: (memo: PieceMemo, runs: RunMemo) => void },
  ) {
    this.#before = memo.before;
    this.#runsBefore = memo.runs;
    this.#remember = memo.remember;
    this.#volatile = rendering.families.map((f) => f.volatile === true);
    this.#pieces = pieces;
    this.#o = options;
    this.#headers = options.headers.node;
    this.#rendering = rendering;
    this.#head = head;
    this.#inline = inline;
    this.#deflater = new PieceDeflater(options.gzipLevel);
    this.#keepIdentity = head.keepIdentity !== false;
    // A piece takes several spills (a spill larger than a piece is a piece of its own).
    this.#spillChars = Math.min(SPILL_CHARS, Math.max(1, pieces.size >> 2));
    if (rendering.families.length !== this.#headers.length) {
      throw new Error(`${rendering.families.length} node families but ${this.#headers.length} node headers`);
    }
    this.#families = this.#headers.map((_, f) => new Output(f + 1));
    this.#writeSmall();
  }

  /** Renders nodes of the leader at `leader` (its index in the request), after the nodes given before. */
  addNodes(leader: number, states: NodeList<N>): Promise<void> {
    const run = this.#queue.then(() => this.#render(leader, states));
    // A failure is reported by finish(); later calls are not applied.
    this.#queue = run;
    return run;
  }

  /** The built body, once every node given has been rendered and every piece is compressed. */
  async finish(): Promise<AssembledBody> {
    try {
      return await this.#finish();
    } finally {
      this.#deflater.close();
    }
  }

  async #finish(): Promise<AssembledBody> {
    await this.#queue;
    const outputs = [this.#small, ...this.#families];
    for (const out of outputs) this.#endPiece(out);
    const parts: AssembledPart[] = [];
    let deflateBytes = 0;
    let run: { identity: Buffer[]; deflate: Buffer[]; crc: number; bytes: number } | undefined;
    const endRun = (): void => {
      if (!run) return;
      // The pieces as they are, those the memo keeps for the next build (`own`): copying them into joined buffers
      // left the pieces as garbage, about 100 MB of ArrayBuffers awaiting a full GC at 10k, and held the body twice.
      const { deflate } = run;
      for (const d of deflate) deflateBytes += d.length;
      parts.push({ identity: this.#keepIdentity ? run.identity : undefined, deflate, crc: run.crc, bytes: run.bytes });
      run = undefined;
    };
    for (const out of outputs) {
      for (const item of out.items) {
        if (isSlot(item)) {
          endRun();
          parts.push(item);
          continue;
        }
        run ??= { identity: [], deflate: [], crc: 0, bytes: 0 };
        if (item.identity) run.identity.push(item.identity);
        const piece = await item.deflated;
        run.deflate.push(piece.deflated);
        run.crc = crc32Combine(run.crc, piece.crc, piece.length);
        run.bytes += piece.length;
      }
    }
    endRun();
    this.#pieces.fit(this.#identityBytes);
    this.#remember(this.#memo, await this.#keptRuns());
    return {
      generation: this.#head.generation,
      parts,
      identityBytes: this.#identityBytes,
      deflateBytes,
      reusedBytes: this.#reusedBytes,
      runs: this.#runCount,
      reusedRuns: this.#reusedRuns,
    };
  }

  /**
   * This build's runs for the next build, their pieces compressed (every piece is, when this runs). Identity bytes
   * are kept only when the body kept them and stays on this thread: a body from the worker moves its buffers away.
   */
  async #keptRuns(): Promise<RunMemo> {
    const identity = this.#keepIdentity && this.#inline;
    const kept: RunMemo = new Map();
    for (const [key, run] of this.#runs) {
      const items: (KeptPiece | HeaderSlot)[] = [];
      for (const item of run.items) {
        if (isSlot(item)) items.push(item);
        else if ('piece' in item) items.push(identity ? item : { ...item, identity: undefined });
        else
          items.push({
            digest: item.digest,
            piece: await item.deflated,
            identity: identity ? item.identity : undefined,
          });
      }
      kept.set(key, { ...run, items });
    }
    return kept;
  }

  /** Management, leader and group families: the texts came rendered with the request. */
  #writeSmall(): void {
    const { management, leaders } = this.#head;
    const h = this.#o.headers;
    const fixed: [readonly FamilyHeader[], readonly (readonly string[])[]][] = [
      [h.management ?? [], management ? [management] : []],
      [h.leader, leaders.map((l) => l.leaderTexts)],
      [h.group, leaders.map((l) => l.groupTexts)],
    ];
    for (const [headers, texts] of fixed) {
      for (const [f, header] of headers.entries()) {
        const samples = texts.map((t) => t[f] ?? '').join('');
        if (!samples) continue;
        this.#header(this.#small, header);
        this.#append(this.#small, samples);
      }
    }
  }

  async #render(leader: number, list: NodeList<N>): Promise<void> {
    const targetPairs = this.#head.leaders[leader]?.targetPairs;
    if (targetPairs === undefined) throw new Error(`node states for unknown leader ${leader}`);
    const slice = this.#inline ? timeSlicer(RENDER_SLICE_MS) : undefined;
    let a = 0;
    for (const b of runEnds(list)) {
      await this.#renderRun(list, a, b, leader, targetPairs, slice);
      a = b;
    }
  }

  /**
   * Renders the nodes [a, b) of `list`, one run of the leader at index `leader`. With the run's fingerprint, each
   * family that is not volatile takes its text of the run from the last build when a run of that leader there had
   * the same fingerprint (the same nodes in the same order, the same states but for volatile values) and target
   * labels, and the family's header came at the same point; the others render it into pieces of their own,
   * remembered for the next build.
   */
  async #renderRun(
    list: NodeList<N>,
    a: number,
    b: number,
    leader: number,
    targetPairs: string,
    slice: (() => Promise<void> | undefined) | undefined,
  ): Promise<void> {
    const outputs = this.#families;
    const fingerprint = list.fingerprint?.(a, b);
    const place = `${leader}:${fingerprint}`;
    const render: number[] = [];
    const started: { family: number; before: boolean; items: number }[] = [];
    for (let f = 0; f < outputs.length; f++) {
      const out = outputs[f] as Output;
      if (fingerprint === undefined || this.#volatile[f] === true) {
        render.push(f);
        continue;
      }
      this.#runCount++;
      const key = `${f}:${place}`;
      const last = this.#runsBefore.get(key);
      this.#runsBefore.delete(key);
      if (
        last !== undefined &&
        last.targetPairs === targetPairs &&
        last.startedBefore === out.started &&
        (!this.#keepIdentity || last.items.every((i) => isSlot(i) || i.identity !== undefined))
      ) {
        this.#reuseRun(out, last);
        this.#runs.set(key, last);
        this.#reusedRuns++;
        continue;
      }
      // The run's pieces start with it.
      this.#endPiece(out);
      started.push({ family: f, before: out.started, items: out.items.length });
      render.push(f);
    }
    if (render.length > 0) await this.#renderNodes(list, a, b, render, targetPairs, slice);
    for (const { family, before, items } of started) {
      const out = outputs[family] as Output;
      this.#endPiece(out);
      this.#runs.set(`${family}:${place}`, {
        targetPairs,
        startedBefore: before,
        startedAfter: out.started,
        items: out.items.slice(items),
      });
    }
  }

  /** A family's run as the last build made it: its pieces (their compression, identity when kept) and slots. */
  #reuseRun(out: Output, run: Run<KeptPiece>): void {
    for (const item of run.items) {
      if (isSlot(item)) {
        out.items.push(item);
        continue;
      }
      const key = `${out.index}:${out.items.length}`;
      this.#before.delete(key);
      this.#memo.set(key, { digest: item.digest, piece: item.piece });
      out.items.push({
        identity: this.#keepIdentity ? item.identity : undefined,
        deflated: Promise.resolve(item.piece),
        digest: item.digest,
      });
      this.#identityBytes += item.piece.length;
      this.#reusedBytes += item.piece.length;
    }
    if (run.startedAfter) out.started = true;
    this.#capIdentity();
  }

  /** Renders the families `render` (indexes into the node families) of the nodes [a, b) of `list`. */
  async #renderNodes(
    list: NodeList<N>,
    a: number,
    b: number,
    render: readonly number[],
    targetPairs: string,
    slice: (() => Promise<void> | undefined) | undefined,
  ): Promise<void> {
    const { families, base } = this.#rendering;
    const outputs = this.#families;
    for (let at = a; at < b; at += STATES_PER_READ) {
      for (const state of list.slice(at, Math.min(b, at + STATES_PER_READ))) {
        const labels = base(state, targetPairs);
        for (const f of render) {
          const text = (families[f] as Pick<Family<N>, 'sample'>).sample(state, labels);
          if (!text) continue;
          const out = outputs[f] as Output;
          if (!out.started) {
            out.started = true;
            this.#header(out, this.#headers[f] ?? '');
          }
          this.#append(out, text);
        }
        if (this.#inFlight.length > MAX_GZIP_IN_FLIGHT) await this.#inFlight.shift();
        const pause = slice?.();
        if (pause) await pause;
      }
    }
  }

  /** A family's header: shared text before its first sample, or the end of the current piece and a slot. */
  #header(out: Output, header: FamilyHeader): void {
    if (!isSlot(header)) return this.#append(out, header);
    this.#endPiece(out);
    out.items.push(header);
  }

  #append(out: Output, text: string): void {
    out.pending.push(text);
    out.pendingChars += text.length;
    if (out.pendingChars >= this.#spillChars) this.#spill(out);
  }

  /** Writes the output's pending text into its piece, ending the piece first when the text does not fit. */
  #spill(out: Output): void {
    if (out.pendingChars === 0) return;
    const text = out.pending.length === 1 ? (out.pending[0] as string) : out.pending.join('');
    out.pending = [];
    out.pendingChars = 0;
    const size = Buffer.byteLength(text, 'utf8');
    const piece = this.#pieces.size;
    if (out.bytes && out.filled + size > out.bytes.length) this.#endPiece(out);
    if (size > piece) {
      // A text larger than a piece (a hostile label value) is a piece of its own.
      this.#ship(out, encode(text));
      return;
    }
    out.bytes ??= this.#pieces.take();
    out.filled += out.bytes.write(text, out.filled, 'utf8');
  }

  /** Ends the output's current piece (its pending text included) and starts compressing it on zlib's threads. */
  #endPiece(out: Output): void {
    if (out.pendingChars > 0) this.#spill(out);
    const bytes = out.bytes;
    if (!bytes || out.filled === 0) return;
    const filled = out.filled;
    out.bytes = undefined;
    out.filled = 0;
    this.#ship(out, filled === bytes.length ? bytes : bytes.subarray(0, filled), bytes);
  }

  /**
   * Adds a piece of bytes to the output and compresses it. `piece`: the buffer behind `bytes`, reused for a later
   * piece once compressed when the body keeps no identity bytes (a 50,000-node build fills about 600 pieces).
   */
  #ship(out: Output, bytes: Buffer, piece?: Buffer): void {
    this.#identityBytes += bytes.length;
    const key = `${out.index}:${out.items.length}`;
    const digest = hash('sha256', bytes, 'base64');
    const before = this.#before.get(key);
    // Out of the last build's memo at once: a piece not reused is garbage now, not when this build ends, so that a
    // build holds about one memo's bytes, not two (a build that fails leaves a memo with fewer pieces, no wrong one).
    this.#before.delete(key);
    let compressed: Promise<DeflatedPiece>;
    if (before?.digest === digest && before.piece.length === bytes.length) {
      this.#reusedBytes += bytes.length;
      compressed = Promise.resolve(before.piece);
    } else {
      // Kept by the memo: in a buffer of its own, not a slice of zlib's larger output chunk; shared in the worker.
      const shared = !this.#inline;
      compressed = this.#deflater.deflate(bytes).then((p) => ({ ...p, deflated: own(p.deflated, shared) }));
    }
    const item: Piece = { identity: this.#keepIdentity ? bytes : undefined, deflated: compressed, digest };
    // Awaited in order by finish(); a failure is reported there, not as an unhandled rejection.
    compressed.then(
      (deflated) => {
        this.#memo.set(key, { digest, piece: deflated });
        if (piece && !item.identity) this.#pieces.give(piece);
      },
      () => undefined,
    );
    this.#inFlight.push(compressed);
    out.items.push(item);
    this.#capIdentity();
  }

  #capIdentity(): void {
    if (this.#keepIdentity && this.#identityBytes > this.#o.identityCacheMaxBytes) {
      // Too large to keep twice: identity is served by gunzipping (server.ts); drop what is kept so far.
      this.#keepIdentity = false;
      for (const o of [this.#small, ...this.#families]) {
        for (const item of o.items) if (!isSlot(item)) item.identity = undefined;
      }
    }
  }
}

/** Assembles bodies: on the main thread (`inline`, yielding every few ms) or in the body worker. */
export class BodyAssembler<N> {
  readonly #o: BuildOptions;
  readonly #rendering: NodeRendering<N>;
  readonly #inline: boolean;
  readonly #pieces: Pieces;
  /** The pieces and runs of the last build that finished (Remembered, Run). */
  #memo: PieceMemo = new Map();
  #runs: RunMemo = new Map();

  constructor(options: AssemblerOptions, rendering: NodeRendering<N>, inline = true) {
    this.#o = {
      headers: options.headers,
      gzipLevel: options.gzipLevel ?? zlibConstants.Z_BEST_SPEED,
      identityCacheMaxBytes: options.identityCacheMaxBytes ?? IDENTITY_CACHE_MAX_BYTES,
    };
    this.#pieces = new Pieces(options.chunkBytes);
    this.#rendering = rendering;
    this.#inline = inline;
  }

  /** Starts a build whose node states follow (`Build.addNodes`). */
  begin(head: AssembleHead): Build<N> {
    return new Build(this.#o, this.#rendering, head, this.#inline, this.#pieces, {
      before: head.fresh === true ? new Map<string, Remembered>() : this.#memo,
      runs: head.fresh === true ? new Map<string, Run<KeptPiece>>() : this.#runs,
      remember: (memo, runs) => {
        this.#memo = memo;
        this.#runs = runs;
      },
    });
  }

  /** Builds a body from a whole request. */
  async assemble(request: AssembleRequest<N>): Promise<AssembledBody> {
    const build = this.begin(request);
    request.leaders.forEach((l, i) => void build.addNodes(i, l.nodes).catch(() => undefined));
    return build.finish();
  }
}
