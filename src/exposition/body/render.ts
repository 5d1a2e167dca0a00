/**
 * One build's rendering: every family's samples of every leader, in body order, compressed on zlib's threads as they
 * come. It runs on the main thread (yielding every few ms) or in the body worker; builder-choice.ts decides.
 *
 * A node family's text of a leader is kept, compressed, for the next build: the builder asks to render it again only
 * when a field it read changed (`stale`), which between two builds is the few families of a poll's or a listing's
 * timestamps. The renderer learns what each family reads as it renders (track.ts). The small scopes (management,
 * leader, groups) are rendered every build.
 *
 * A node family is rendered for a node only where the leader's node detail level of the node's product exports it
 * (src/collectors/detail.ts: `exported(level, family.detail)`); a family no level in force exports has no text at
 * all (its HELP and TYPE go with it: the body leaves out a family without samples).
 */
import { constants as zlibConstants } from 'node:zlib';
import type { GroupItem, NodeItem, ScopeItem } from '../../collectors/collector.js';
import { groupKey } from '../../collectors/collector.js';
import { exported, exportedAnywhere, type DetailLevels } from '../../collectors/detail.js';
import { q } from '../../collectors/sample.js';
import { openLabels } from '../../format/family.js';
import { timeSlicer } from '../../util/yield.js';
import { PieceDeflater, type DeflatedPiece } from './gzip.js';
import type { FamilySet } from './families.js';
import { ReadTracker, type FamilyReads } from './track.js';

/** One leader's part of a build. */
export interface RenderLeader {
  /** Stable across builds (the store's id): a kept text belongs to a leader. */
  readonly id: number;
  readonly targetPairs: string;
  readonly leader: ScopeItem;
  readonly groups: readonly GroupItem[];
  /** Node families (indexes into FamilySet.node) to render anew; the others are the last build's for this leader. */
  readonly stale: readonly number[];
  /** The node detail level in force per product (the leader's detailFacts); none decided: every product `full`. */
  readonly levels?: DetailLevels;
}

/** What a build renders, besides the nodes (which follow with `nodes`, leader by leader, in body order). */
export interface RenderJob {
  readonly management?: ScopeItem;
  readonly leaders: readonly RenderLeader[];
}

/** The build's compressed text of each family (FamilySet order: management, leader, group, node), in body order. */
export type Rendered = readonly (readonly DeflatedPiece[])[];

/** A build's texts, and what each node family has read in its renders so far (track.ts). */
export interface Finished {
  readonly texts: Rendered;
  readonly reads: readonly FamilyReads[];
}

/** Bytes of text in a piece, about: deflated apart, so that a piece of a kept text is reused as it is. */
const PIECE_BYTES = 128 * 1024;

/** Pieces being compressed before rendering waits for the oldest (bounds the bytes waiting). */
const MAX_IN_FLIGHT = 8;

/** Longest stretch of rendering between two yields to the event loop on the main thread. */
const SLICE_MS = 4;

/**
 * The compressed bytes in a buffer of their own size: never a slice of a larger zlib output chunk (whose unused tail
 * would be kept with it). In the worker (`shared`), in a SharedArrayBuffer: the pieces posted to the main thread are
 * then the bytes the worker keeps for the next build, not a copy of the whole compressed body.
 */
function own(bytes: Buffer, shared: boolean): Buffer {
  if (!shared && bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) return bytes;
  const out = shared ? Buffer.from(new SharedArrayBuffer(bytes.length)) : Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(out);
  return out;
}

const EMPTY = Buffer.alloc(0);

/**
 * A family's text, cut into pieces compressed as they fill. Each sample is written into the piece's buffer as it
 * comes (the buffer grows by doubling up to a piece), not joined and encoded per piece: BENCHMARKS.md, "Mechanisms"
 * (sample writer), has what that saves.
 */
class Writer {
  readonly pieces: Promise<DeflatedPiece>[] = [];
  #buf = EMPTY;
  #bytes = 0;

  constructor(
    readonly deflate: (bytes: Buffer) => Promise<DeflatedPiece>,
    readonly onPiece: (piece: Promise<DeflatedPiece>) => void,
  ) {}

  append(text: string): void {
    // At most 3 bytes of UTF-8 per UTF-16 unit.
    const need = this.#bytes + 3 * text.length;
    if (need > this.#buf.length) {
      const size = Math.max(need, 4096, Math.min(2 * this.#buf.length, PIECE_BYTES + (PIECE_BYTES >> 1)));
      const grown = Buffer.allocUnsafeSlow(size);
      this.#buf.copy(grown, 0, 0, this.#bytes);
      this.#buf = grown;
    }
    this.#bytes += this.#buf.write(text, this.#bytes);
    if (this.#bytes >= PIECE_BYTES) this.flush();
  }

  flush(): void {
    if (this.#bytes === 0) return;
    const piece = this.deflate(this.#buf.subarray(0, this.#bytes));
    this.pieces.push(piece);
    this.onPiece(piece);
    this.#buf = EMPTY;
    this.#bytes = 0;
  }
}

/** Renders builds; keeps each leader's node family texts of the last build. */
export class Renderer {
  /** Per leader id, per node family: the pieces of the last build. */
  kept = new Map<number, (readonly DeflatedPiece[])[]>();
  /** Per node family: what it read in every build of this renderer. */
  readonly trackers: readonly ReadTracker[];

  constructor(
    readonly families: FamilySet,
    readonly inline: boolean,
    readonly level = zlibConstants.Z_BEST_SPEED,
  ) {
    this.trackers = families.node.map(() => new ReadTracker());
  }

  /** Starts a build: the small scopes at once; the nodes follow (`Build.nodes`), then `finish`. */
  begin(job: RenderJob): Build {
    return new Build(this, job);
  }
}

/** One build in progress. */
export class Build {
  readonly #r: Renderer;
  readonly #f: FamilySet;
  readonly #job: RenderJob;
  readonly #deflater: PieceDeflater;
  readonly #small: Writer[];
  /** Per leader, per stale node family: its writer. */
  readonly #nodeWriters: Map<number, Writer>[];
  readonly #groupsOf: Map<string, GroupItem>[];
  readonly #slice: (() => Promise<void> | undefined) | undefined;
  #queue: Promise<void> = Promise.resolve();
  readonly #inFlight: Promise<unknown>[] = [];

  constructor(renderer: Renderer, job: RenderJob) {
    const { families, inline } = renderer;
    this.#r = renderer;
    this.#f = families;
    this.#job = job;
    const deflater = (this.#deflater = new PieceDeflater(renderer.level));
    this.#slice = inline ? timeSlicer(SLICE_MS) : undefined;
    const deflate = (bytes: Buffer): Promise<DeflatedPiece> =>
      deflater.deflate(bytes).then((p) => ({ ...p, deflated: own(p.deflated, !inline) }));
    const writer = (): Writer => new Writer(deflate, (p) => this.#inFlight.push(p.catch(() => undefined)));
    this.#small = [...families.management, ...families.leader, ...families.group].map(writer);
    this.#nodeWriters = job.leaders.map((l) => new Map(l.stale.map((f) => [f, writer()])));
    this.#groupsOf = job.leaders.map((l) => new Map(l.groups.map((g) => [groupKey(g.product, g.id), g])));
    this.#renderSmall();
  }

  /** Renders nodes of the leader at `leader` (its index in the job), after those given before. */
  nodes(leader: number, nodes: readonly NodeItem[]): Promise<void> {
    const run = this.#queue.then(() => this.#renderNodes(leader, nodes));
    this.#queue = run;
    return run;
  }

  /** Every family's compressed text, once every node given is rendered, and what the node families read. */
  async finish(): Promise<Finished> {
    try {
      await this.#queue;
      const out: (readonly DeflatedPiece[])[] = [];
      for (const w of this.#small) {
        w.flush();
        out.push(await Promise.all(w.pieces));
      }
      const kept = new Map<number, (readonly DeflatedPiece[])[]>();
      const perLeader: (readonly DeflatedPiece[])[][] = [];
      for (const [i, l] of this.#job.leaders.entries()) {
        const before = this.#r.kept.get(l.id);
        const texts: (readonly DeflatedPiece[])[] = [];
        for (let f = 0; f < this.#f.node.length; f++) {
          const w = this.#nodeWriters[i]?.get(f);
          if (!exportedAnywhere(l.levels, this.#f.node[f]?.detail)) texts.push([]);
          else if (w) {
            w.flush();
            texts.push(await Promise.all(w.pieces));
          } else texts.push(before?.[f] ?? []);
        }
        kept.set(l.id, texts);
        perLeader.push(texts);
      }
      for (let f = 0; f < this.#f.node.length; f++) out.push(perLeader.flatMap((texts) => texts[f] ?? []));
      this.#r.kept = kept;
      return { texts: out, reads: this.#r.trackers.map((t) => t.reads()) };
    } finally {
      this.#deflater.close();
    }
  }

  /** Management, leader and group families: every leader's items, family by family. */
  #renderSmall(): void {
    const { management, leader, group } = this.#f;
    const { leaders } = this.#job;
    let w = 0;
    for (const f of management) {
      const m = this.#job.management;
      if (m) this.#small[w]?.append(f.sample(m, '', undefined));
      w++;
    }
    for (const f of leader) {
      for (const l of leaders) this.#small[w]?.append(f.sample(l.leader, openLabels(l.targetPairs, ''), undefined));
      w++;
    }
    for (const f of group) {
      for (const l of leaders) {
        for (const g of l.groups) {
          const base = openLabels(l.targetPairs, `product=${q(g.product)},group=${q(g.id)}`);
          this.#small[w]?.append(f.sample(g, base, undefined));
        }
      }
      w++;
    }
  }

  async #renderNodes(leader: number, nodes: readonly NodeItem[]): Promise<void> {
    const l = this.#job.leaders[leader];
    const writers = this.#nodeWriters[leader];
    const groups = this.#groupsOf[leader];
    if (!l || !writers || !groups || writers.size === 0) return;
    const families = l.stale.map((f) => [this.#f.node[f]!, writers.get(f)!, this.#r.trackers[f]!] as const);
    for (const n of nodes) {
      const { product, group, nodeId } = n.ident;
      const base = openLabels(l.targetPairs, `product=${q(product)},group=${q(group)},node_id=${q(nodeId)}`);
      const g = groups.get(groupKey(product, group));
      const level = l.levels?.[product] ?? 'full';
      for (const [family, writer, tracker] of families) {
        if (level !== 'full' && !exported(level, family.detail)) continue;
        tracker.at(n, g);
        const text = family.sample(tracker.lens, base, tracker.context);
        if (text) writer.append(text);
      }
      if (this.#inFlight.length > MAX_IN_FLIGHT) await this.#inFlight.shift();
      const pause = this.#slice?.();
      if (pause) await pause;
    }
  }
}
