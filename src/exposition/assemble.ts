/**
 * Assembles the /metrics body from node texts (NodeTextStore per leader) and the small management, leader and
 * group texts, family by family (the text format wants each family's series contiguous), with its gzip
 * computed on zlib's threads. Runs inside the body worker (body-worker.ts) from WORKER_MIN_NODES nodes (body.ts);
 * the main thread then only sends node batches and build requests, and receives the finished buffers without a
 * copy. Smaller fleets and tests run it on the main thread (no flag chooses: the body cache does).
 *
 * Both formats share the body's bytes except the HELP/TYPE lines of the families whose header differs between
 * them (a counter: OpenMetrics names it without `_total`). At such a header the assembler ends the gzip member
 * and starts a new one, leaving a slot for the header: a body is a list of shared parts and header slots, which
 * the body cache fills per format with pre-built bytes (concatenated gzip members are one valid gzip stream).
 */

import { createGzip, constants as zlibConstants } from 'node:zlib';
import { yieldToLoop } from '../util/yield.js';
import type { NodeBatch } from '../store/node-batch.js';
import { NodeTextStore } from './node-texts.js';

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
  /** Bytes assembled between two yields. @default 1 MiB */
  chunkBytes?: number;
  /** Largest body whose identity bytes are kept besides the gzip. @default 32 MiB */
  identityCacheMaxBytes?: number;
}

/** One leader's part of a build: the node texts are in the assembler already. */
export interface LeaderPart {
  readonly id: number;
  readonly leaderTexts: readonly string[];
  readonly groupTexts: readonly string[];
}

/** What to build: the management texts (MANAGEMENT_FAMILIES order; empty without one), leaders in body order. */
export interface AssembleRequest {
  readonly generation: number;
  readonly management?: readonly string[];
  readonly leaders: readonly LeaderPart[];
}

/** Bytes both formats share: a run of identity chunks and the same bytes as one gzip member. */
export interface SharedPart {
  /** Undefined when the body is larger than `identityCacheMaxBytes`. */
  readonly identity: Buffer[] | undefined;
  readonly gzip: Buffer[];
}

/** A part of a built body: shared bytes, or the slot of a format-specific family header. */
export type AssembledPart = SharedPart | HeaderSlot;

/** A built body. Every buffer owns its ArrayBuffer alone (or shares it only with buffers of the same body). */
export interface AssembledBody {
  readonly generation: number;
  /** In body order; the shared parts' identity is undefined when larger than `identityCacheMaxBytes`. */
  readonly parts: AssembledPart[];
  /** Bytes of the shared parts (the header slots come on top, per format). */
  readonly identityBytes: number;
  readonly gzipBytes: number;
}

/** True for a header slot. */
export function isSlot(part: AssembledPart | FamilyHeader | Buffer): part is HeaderSlot {
  return typeof part === 'object' && !Buffer.isBuffer(part) && 'slot' in part;
}

/** A copy in memory of its own (never a slice of Node's shared pool: those cannot be transferred). */
function ownCopy(bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafeSlow(bytes.length);
  out.set(bytes);
  return out;
}

/** One gzip member being written, with the identity chunks of the same bytes. */
interface Member {
  readonly gzip: ReturnType<typeof createGzip>;
  readonly gzipped: Buffer[];
  readonly finished: Promise<void>;
  identity: Buffer[];
  /** Bytes written into this member. */
  bytes: number;
}

/** The node texts of every leader and the assembly of bodies from them. */
export class BodyAssembler {
  readonly #o: Required<AssemblerOptions>;
  readonly #headers: Record<keyof FamilyHeaders, (Buffer | HeaderSlot)[]>;
  readonly #stores = new Map<number, NodeTextStore>();

  constructor(options: AssemblerOptions) {
    this.#o = {
      gzipLevel: zlibConstants.Z_BEST_SPEED,
      chunkBytes: 1 << 20,
      identityCacheMaxBytes: 32 << 20,
      ...options,
    };
    const encode = (headers: readonly FamilyHeader[]): (Buffer | HeaderSlot)[] =>
      headers.map((h) => (isSlot(h) ? h : Buffer.from(h, 'utf8')));
    this.#headers = {
      management: encode(options.headers.management ?? []),
      leader: encode(options.headers.leader),
      group: encode(options.headers.group),
      node: encode(options.headers.node),
    };
  }

  /** Applies a leader's node batch. */
  apply(leaderId: number, batch: NodeBatch): void {
    let store = this.#stores.get(leaderId);
    if (!store) {
      store = new NodeTextStore();
      this.#stores.set(leaderId, store);
    }
    store.apply(batch);
  }

  /** Forgets a leader's node texts. */
  drop(leaderId: number): void {
    this.#stores.delete(leaderId);
  }

  async assemble(request: AssembleRequest): Promise<AssembledBody> {
    const { chunkBytes, identityCacheMaxBytes } = this.#o;
    const parts: AssembledPart[] = [];
    let gzipBytes = 0;
    let identityBytes = 0;
    let keepIdentity = true;

    const open = (): Member => {
      const gzip = createGzip({ level: this.#o.gzipLevel, chunkSize: 256 * 1024 });
      const gzipped: Buffer[] = [];
      gzip.on('data', (b: Buffer) => {
        gzipped.push(b);
        gzipBytes += b.length;
      });
      const finished = new Promise<void>((resolve, reject) => {
        gzip.once('end', resolve);
        gzip.once('error', reject);
      });
      return { gzip, gzipped, finished, identity: [], bytes: 0 };
    };
    let member = open();
    const close = async (m: Member): Promise<void> => {
      m.gzip.end();
      await m.finished;
      parts.push({ identity: keepIdentity ? m.identity : undefined, gzip: m.gzipped });
    };

    // Chunks that gzip has consumed are reused unless the identity body keeps them: assembling a
    // 100 MB body then needs a few MB, not another 100 MB of short-lived buffers.
    const spare: Buffer[] = [];
    let chunk: Buffer = Buffer.allocUnsafeSlow(chunkBytes);
    let pos = 0;

    // Hands a finished chunk to gzip (on zlib's threads) and lets the event loop breathe.
    const ship = async (out: Buffer, reusable?: Buffer): Promise<void> => {
      const m = member;
      identityBytes += out.length;
      m.bytes += out.length;
      if (keepIdentity) {
        m.identity.push(out);
        if (identityBytes > identityCacheMaxBytes) {
          // Too large to keep twice: identity is served by gunzipping (server.ts); drop what is kept so far.
          keepIdentity = false;
          m.identity = [];
          for (const p of parts) if (!isSlot(p)) (p as { identity: Buffer[] | undefined }).identity = undefined;
        }
      }
      const recycle = !keepIdentity && reusable ? () => void (spare.length < 8 && spare.push(reusable)) : undefined;
      // Bounded backlog: a few chunks may queue for zlib's threads while the next ones are copied.
      // ('drain' comes only after a write that returned false.)
      if (!m.gzip.write(out, recycle) && m.gzip.writableLength > 4 * chunkBytes) {
        await Promise.race([new Promise((resolve) => m.gzip.once('drain', resolve)), m.finished]);
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
    const put = async (bytes: Buffer): Promise<void> => {
      if (pos + bytes.length > chunkBytes) await flush();
      // A text larger than a chunk (a hostile label value) travels as a chunk of its own.
      if (bytes.length > chunkBytes) return ship(ownCopy(bytes));
      bytes.copy(chunk, pos);
      pos += bytes.length;
    };
    // A family header: shared bytes, or the end of the current gzip member and a slot for the header.
    const header = async (h: Buffer | HeaderSlot): Promise<void> => {
      if (!isSlot(h)) return put(h);
      await flush();
      if (member.bytes > 0) {
        await close(member);
        member = open();
      }
      parts.push(h);
    };

    // Small families first: management, leader and group texts come with the request.
    const fixed: [(Buffer | HeaderSlot)[], readonly (readonly string[])[]][] = [
      [this.#headers.management, request.management ? [request.management] : []],
      [this.#headers.leader, request.leaders.map((l) => l.leaderTexts)],
      [this.#headers.group, request.leaders.map((l) => l.groupTexts)],
    ];
    for (const [headers, texts] of fixed) {
      for (const [f, h] of headers.entries()) {
        const samples = texts.map((t) => t[f] ?? '').join('');
        if (!samples) continue;
        await header(h);
        await put(Buffer.from(samples, 'utf8'));
      }
    }

    // Per-node families: a family's series from every leader, contiguous; header only when non-empty.
    // Batches may be applied between the awaits (texts re-written in place, nodes added or deleted);
    // each copy reads the node's offsets right before it, synchronously, so it copies a whole family.
    for (let f = 0; f < this.#headers.node.length; f++) {
      const h = this.#headers.node[f] ?? Buffer.alloc(0);
      let headerDone = false;
      for (const leader of request.leaders) {
        const store = this.#stores.get(leader.id);
        if (!store) continue;
        for (const node of store.nodes()) {
          const start = node.offsets[f] ?? 0;
          const end = node.offsets[f + 1] ?? 0;
          if (start === end) continue;
          if (!headerDone) {
            await header(h);
            headerDone = true;
          }
          if (pos + end - start > chunkBytes) await flush();
          // Offsets again: a batch may have re-written the node during the flush above.
          const s = node.offsets[f] ?? 0;
          const e = node.offsets[f + 1] ?? 0;
          if (e - s > chunkBytes) {
            await ship(ownCopy(node.bytes.subarray(s, e)));
          } else {
            node.bytes.copy(chunk, pos, s, e);
            pos += e - s;
          }
        }
      }
    }
    await flush();
    // The last member is written even when empty: a body always ends in a valid gzip member.
    await close(member);
    return { generation: request.generation, parts, identityBytes, gzipBytes };
  }
}
