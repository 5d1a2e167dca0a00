/**
 * Per-node rendered texts on their way from the snapshot store (main thread) to the body builder
 * (a worker thread, or the same thread in tests). The snapshot renders a node when its data changes
 * and appends the UTF-8 text to a `NodeBatch`; the body builder applies batches to its `NodeTextStore`
 * and assembles the body from there. The main thread keeps no text: at 50,000 nodes the texts are about
 * 120 MB, and keeping them twice (main and builder) would double that.
 */

import { NODE_FAMILIES } from '../collectors/families.js';
import type { NodeTexts } from '../collectors/render.js';

/** Offsets per node: one per family plus the end. */
export const OFFSETS_PER_NODE = NODE_FAMILIES.length + 1;

/**
 * Node texts written since the last batch, in write order (a later entry for the same key wins).
 * Both typed arrays own their ArrayBuffers, so a batch can be transferred to a worker without a copy.
 */
export interface NodeBatch {
  readonly keys: string[];
  /** 1 where the entry deletes the node. */
  readonly deleted: Uint8Array;
  /** OFFSETS_PER_NODE offsets into `bytes` per entry (all equal for a deletion). */
  readonly offsets: Uint32Array;
  readonly bytes: Uint8Array;
}

/**
 * Collects node texts into one growing buffer. Every `put` is written: a node is written after a poll
 * or a listing, and both always bring a new timestamp (the 53-bit hash this once compared cost 40 % of
 * `setNode` at 50,000 nodes and never found an unchanged node).
 */
export class NodeBatchWriter {
  #keys: string[] = [];
  #deleted: number[] = [];
  #offsets: number[] = [];
  #bytes: Buffer;
  #pos = 0;
  readonly #initialBytes: number;

  constructor(initialBytes = 256 * 1024) {
    this.#initialBytes = initialBytes;
    this.#bytes = Buffer.allocUnsafeSlow(initialBytes);
  }

  /** Entries written since the last `take`. */
  get count(): number {
    return this.#keys.length;
  }

  /** Bytes written since the last `take`. */
  get byteLength(): number {
    return this.#pos;
  }

  put(key: string, texts: NodeTexts): void {
    const joined = texts.join('');
    const start = this.#pos;
    this.#reserve(joined.length * 3);
    const size = this.#bytes.write(joined, start, 'utf8');
    // ASCII text (the usual case) has as many bytes as characters.
    const ascii = size === joined.length;
    const offsets = this.#offsets;
    let offset = start;
    offsets.push(offset);
    for (const text of texts) {
      offset += ascii ? text.length : Buffer.byteLength(text);
      offsets.push(offset);
    }
    this.#keys.push(key);
    this.#deleted.push(0);
    this.#pos = start + size;
  }

  delete(key: string): void {
    this.#keys.push(key);
    this.#deleted.push(1);
    for (let i = 0; i < OFFSETS_PER_NODE; i++) this.#offsets.push(this.#pos);
  }

  /** The batch so far (undefined when empty); the writer starts a new one. */
  take(): NodeBatch | undefined {
    if (this.#keys.length === 0) return undefined;
    const batch: NodeBatch = {
      keys: this.#keys,
      deleted: Uint8Array.from(this.#deleted),
      offsets: Uint32Array.from(this.#offsets),
      // A copy of the used part: the batch owns exactly its bytes (transferable), and the writer's
      // buffer is reused rather than handed away with its unused tail.
      bytes: new Uint8Array(this.#bytes.subarray(0, this.#pos)),
    };
    this.#keys = [];
    this.#deleted = [];
    this.#offsets = [];
    this.#pos = 0;
    if (this.#bytes.length > 4 * this.#initialBytes) this.#bytes = Buffer.allocUnsafeSlow(this.#initialBytes);
    return batch;
  }

  #reserve(extra: number): void {
    if (this.#pos + extra <= this.#bytes.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.#bytes.length * 2, this.#pos + extra));
    this.#bytes.copy(grown, 0, 0, this.#pos);
    this.#bytes = grown;
  }
}

const EMPTY = Buffer.alloc(0);

/** A node's text in the store: family f is `bytes[offsets[f]..offsets[f+1])`. */
export interface StoredNode {
  bytes: Buffer;
  readonly offsets: number[];
}

/**
 * The builder's copy of one leader's node texts, in first-write order (the order of the body).
 * Texts are re-written in place when they fit, so a health cycle does not free and allocate 50,000
 * small buffers (that fragments the C heap; RSS grows by the size of all texts).
 */
export class NodeTextStore {
  readonly #nodes = new Map<string, StoredNode>();

  get size(): number {
    return this.#nodes.size;
  }

  apply(batch: NodeBatch): void {
    const { keys, deleted, offsets } = batch;
    // Batches that crossed a thread arrive as plain Uint8Arrays.
    const bytes = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] ?? '';
      if (deleted[i]) {
        this.#nodes.delete(key);
        continue;
      }
      const base = i * OFFSETS_PER_NODE;
      const start = offsets[base] ?? 0;
      const end = offsets[base + OFFSETS_PER_NODE - 1] ?? start;
      const size = end - start;
      let node = this.#nodes.get(key);
      if (!node) {
        node = { bytes: EMPTY, offsets: new Array<number>(OFFSETS_PER_NODE).fill(0) };
        this.#nodes.set(key, node);
      }
      // Room for the usual growth (longer timestamps, a state set replacing a failure line).
      if (node.bytes.length < size) node.bytes = Buffer.allocUnsafeSlow(size + 32 + (size >> 4));
      bytes.copy(node.bytes, 0, start, end);
      for (let f = 0; f < OFFSETS_PER_NODE; f++) node.offsets[f] = (offsets[base + f] ?? start) - start;
    }
  }

  nodes(): IterableIterator<StoredNode> {
    return this.#nodes.values();
  }

  /** The text of one node (all families), for tests. */
  text(key: string): string | undefined {
    const node = this.#nodes.get(key);
    if (!node) return undefined;
    return node.bytes.toString('utf8', 0, node.offsets[OFFSETS_PER_NODE - 1]);
  }

  keys(): IterableIterator<string> {
    return this.#nodes.keys();
  }
}
