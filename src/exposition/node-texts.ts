/**
 * The body builder's copy of the node texts the snapshots send as batches (src/store/node-batch.ts).
 */

import type { NodeBatch } from '../store/node-batch.js';

/**
 * A node's text in the store: family f is `bytes[offsets[f]..offsets[f+1])`. `bytes` is a slab shared with other
 * nodes (the offsets are absolute); both change together, synchronously, when the node is re-written or moved.
 */
export interface StoredNode {
  bytes: Buffer;
  readonly offsets: number[];
  /** Bytes reserved for the node at `offsets[0]` (its text and room to grow). */
  capacity: number;
}

/**
 * Size of a slab. Texts are a few hundred bytes to a few KB per node; a slab holds hundreds of nodes, and with
 * MALLOC_MMAP_THRESHOLD_=128 KiB (the image's setting) a freed slab goes back to the OS at once.
 */
export const SLAB_BYTES = 1 << 20;

/**
 * Re-packs the slabs when they hold more than this many times the bytes the nodes reserve (moved or deleted nodes).
 * Every node moves once when its first metadata arrives (its text grows by two families); measured with 50,000
 * nodes of 2.5 KB that all grow once (/tmp micro-benchmark, MALLOC_MMAP_THRESHOLD_=131072): RSS 261 MB, against
 * 314 MB with one buffer per node; at a factor of 2 the slabs held up to three times the texts before a re-pack.
 */
const WASTE_FACTOR = 1.25;

/**
 * The builder's copy of one leader's node texts, in first-write order (the order of the body).
 *
 * Texts live in slabs (1 MiB buffers) rather than one buffer per node: at 50,000 nodes one ArrayBuffer per node
 * costs its backing store, its JS objects and a malloc chunk each (about 300 bytes a node besides the text) and
 * fragments the C heap as nodes are re-written. A node is re-written in place when its new text fits its reserved
 * room (the usual case: a poll changes a timestamp); otherwise it moves to the end of the current slab, and the old
 * room is wasted until the store re-packs every node into fresh slabs (when the slabs hold a quarter more than the
 * nodes reserve; the old slabs are then freed by the GC).
 */
export class NodeTextStore {
  readonly #nodes = new Map<string, StoredNode>();
  #slab: Buffer = Buffer.alloc(0);
  #slabPos = 0;
  /** Bytes of the slabs allocated since the last re-pack (the slabs the nodes may point into). */
  #slabBytes = 0;
  /** Bytes the nodes reserve. */
  #reserved = 0;
  readonly #slabSize: number;

  constructor(slabBytes = SLAB_BYTES) {
    this.#slabSize = slabBytes;
  }

  get size(): number {
    return this.#nodes.size;
  }

  /** Bytes of slab memory held (what the nodes reserve, plus wasted room until the next re-pack). */
  get slabBytes(): number {
    return this.#slabBytes;
  }

  /** Bytes the nodes reserve in the slabs. */
  get reservedBytes(): number {
    return this.#reserved;
  }

  apply(batch: NodeBatch): void {
    const { keys, deleted, offsets } = batch;
    if (keys.length === 0) return;
    // One offset per family plus the end, per entry: the family count travels with the batch.
    const perNode = offsets.length / keys.length;
    // Batches that crossed a thread arrive as plain Uint8Arrays.
    const bytes = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] ?? '';
      if (deleted[i]) {
        const gone = this.#nodes.get(key);
        if (gone) {
          this.#reserved -= gone.capacity;
          this.#nodes.delete(key);
        }
        continue;
      }
      const base = i * perNode;
      const start = offsets[base] ?? 0;
      const end = offsets[base + perNode - 1] ?? start;
      const size = end - start;
      let node = this.#nodes.get(key);
      if (!node) {
        node = { bytes: this.#slab, offsets: new Array<number>(perNode).fill(0), capacity: 0 };
        this.#nodes.set(key, node);
      }
      // Room for the usual growth (longer timestamps, a state set replacing a failure line).
      if (node.capacity < size) this.#place(node, size + 32 + (size >> 4));
      const at = node.offsets[0] ?? 0;
      bytes.copy(node.bytes, at, start, end);
      for (let f = 0; f < perNode; f++) node.offsets[f] = at + (offsets[base + f] ?? start) - start;
    }
    if (this.#slabBytes > WASTE_FACTOR * this.#reserved + 2 * this.#slabSize) this.#repack();
  }

  nodes(): IterableIterator<StoredNode> {
    return this.#nodes.values();
  }

  /** The text of one node (all families), for tests. */
  text(key: string): string | undefined {
    const node = this.#nodes.get(key);
    if (!node) return undefined;
    return node.bytes.toString('utf8', node.offsets[0], node.offsets[node.offsets.length - 1]);
  }

  keys(): IterableIterator<string> {
    return this.#nodes.keys();
  }

  /** Reserves `capacity` bytes for `node` in the current slab (a new one when full); its text is not copied. */
  #place(node: StoredNode, capacity: number): void {
    if (this.#slabPos + capacity > this.#slab.length) {
      // A text larger than a slab (a hostile label value) gets a slab of its own size.
      const size = Math.max(this.#slabSize, capacity);
      this.#slab = Buffer.allocUnsafeSlow(size);
      this.#slabPos = 0;
      this.#slabBytes += size;
    }
    this.#reserved += capacity - node.capacity;
    node.bytes = this.#slab;
    node.capacity = capacity;
    node.offsets[0] = this.#slabPos;
    this.#slabPos += capacity;
  }

  /** Copies every node into fresh slabs, in store order; the old slabs are left to the GC. */
  #repack(): void {
    this.#slab = Buffer.alloc(0);
    this.#slabPos = 0;
    this.#slabBytes = 0;
    this.#reserved = 0;
    for (const node of this.#nodes.values()) {
      const { bytes: from, offsets } = node;
      const start = offsets[0] ?? 0;
      const end = offsets[offsets.length - 1] ?? start;
      const capacity = node.capacity;
      node.capacity = 0;
      this.#place(node, capacity);
      const at = node.offsets[0] ?? 0;
      from.copy(node.bytes, at, start, end);
      for (let f = 1; f < offsets.length; f++) offsets[f] = at + (offsets[f] ?? start) - start;
    }
  }
}
