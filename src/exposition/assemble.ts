/**
 * Assembles the /metrics body from node texts (NodeTextStore per leader) and the small leader and
 * group texts, family by family (the text format wants each family's series contiguous), with its gzip
 * computed on zlib's threads. Runs inside the body worker (body-worker.ts); the main thread only sends
 * node batches and build requests, and receives the finished buffers without a copy. Tests and
 * `--web.body-builder=inline` run it on the main thread.
 */

import { createGzip, constants as zlibConstants } from 'node:zlib';
import { yieldToLoop } from '../util/yield.js';
import type { NodeBatch } from '../store/node-batch.js';
import { NodeTextStore } from './node-texts.js';

/** HELP/TYPE lines per family, in LEADER_FAMILIES, GROUP_FAMILIES and NODE_FAMILIES order. */
export interface FamilyHeaders {
  leader: readonly string[];
  group: readonly string[];
  node: readonly string[];
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

/** What to build: leaders in body order. */
export interface AssembleRequest {
  readonly generation: number;
  readonly leaders: readonly LeaderPart[];
}

/** A built body. Every buffer owns its ArrayBuffer alone (or shares it only with buffers of the same body). */
export interface AssembledBody {
  readonly generation: number;
  /** Undefined when larger than `identityCacheMaxBytes`. */
  readonly identity: Buffer[] | undefined;
  readonly identityBytes: number;
  readonly gzip: Buffer[];
  readonly gzipBytes: number;
}

/** A copy in memory of its own (never a slice of Node's shared pool: those cannot be transferred). */
function ownCopy(bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafeSlow(bytes.length);
  out.set(bytes);
  return out;
}

/** The node texts of every leader and the assembly of bodies from them. */
export class BodyAssembler {
  readonly #o: Required<AssemblerOptions>;
  readonly #headers: { leader: Buffer[]; group: Buffer[]; node: Buffer[] };
  readonly #stores = new Map<number, NodeTextStore>();

  constructor(options: AssemblerOptions) {
    this.#o = {
      gzipLevel: zlibConstants.Z_BEST_SPEED,
      chunkBytes: 1 << 20,
      identityCacheMaxBytes: 32 << 20,
      ...options,
    };
    const encode = (texts: readonly string[]): Buffer[] => texts.map((t) => Buffer.from(t, 'utf8'));
    this.#headers = {
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
    const put = async (bytes: Buffer): Promise<void> => {
      if (pos + bytes.length > chunkBytes) await flush();
      // A text larger than a chunk (a hostile label value) travels as a chunk of its own.
      if (bytes.length > chunkBytes) return ship(ownCopy(bytes));
      bytes.copy(chunk, pos);
      pos += bytes.length;
    };

    // Small families first: leader and group texts come with the request.
    const fixed: [Buffer[], (l: LeaderPart) => readonly string[]][] = [
      [this.#headers.leader, (l) => l.leaderTexts],
      [this.#headers.group, (l) => l.groupTexts],
    ];
    for (const [headers, texts] of fixed) {
      for (const [f, header] of headers.entries()) {
        const samples = request.leaders.map((l) => texts(l)[f] ?? '').join('');
        if (!samples) continue;
        await put(header);
        await put(Buffer.from(samples, 'utf8'));
      }
    }

    // Per-node families: a family's series from every leader, contiguous; header only when non-empty.
    // Batches may be applied between the awaits (texts re-written in place, nodes added or deleted);
    // each copy reads the node's offsets right before it, synchronously, so it copies a whole family.
    for (let f = 0; f < this.#headers.node.length; f++) {
      const header = this.#headers.node[f] ?? Buffer.alloc(0);
      let headerDone = false;
      for (const leader of request.leaders) {
        const store = this.#stores.get(leader.id);
        if (!store) continue;
        for (const node of store.nodes()) {
          const start = node.offsets[f] ?? 0;
          const end = node.offsets[f + 1] ?? 0;
          if (start === end) continue;
          if (!headerDone) {
            await put(header);
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
    gzip.end();
    await finished;
    return { generation: request.generation, identity, identityBytes, gzip: gzipped, gzipBytes };
  }
}
