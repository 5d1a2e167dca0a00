/**
 * The body builder's copy of the node texts the snapshots send as batches (src/store/node-batch.ts).
 */

import type { NodeBatch } from '../store/node-batch.js';

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
    if (keys.length === 0) return;
    // One offset per family plus the end, per entry: the family count travels with the batch.
    const perNode = offsets.length / keys.length;
    // Batches that crossed a thread arrive as plain Uint8Arrays.
    const bytes = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] ?? '';
      if (deleted[i]) {
        this.#nodes.delete(key);
        continue;
      }
      const base = i * perNode;
      const start = offsets[base] ?? 0;
      const end = offsets[base + perNode - 1] ?? start;
      const size = end - start;
      let node = this.#nodes.get(key);
      if (!node) {
        node = { bytes: EMPTY, offsets: new Array<number>(perNode).fill(0) };
        this.#nodes.set(key, node);
      }
      // Room for the usual growth (longer timestamps, a state set replacing a failure line).
      if (node.bytes.length < size) node.bytes = Buffer.allocUnsafeSlow(size + 32 + (size >> 4));
      bytes.copy(node.bytes, 0, start, end);
      for (let f = 0; f < perNode; f++) node.offsets[f] = (offsets[base + f] ?? start) - start;
    }
  }

  nodes(): IterableIterator<StoredNode> {
    return this.#nodes.values();
  }

  /** The text of one node (all families), for tests. */
  text(key: string): string | undefined {
    const node = this.#nodes.get(key);
    if (!node) return undefined;
    return node.bytes.toString('utf8', 0, node.offsets[node.offsets.length - 1]);
  }

  keys(): IterableIterator<string> {
    return this.#nodes.keys();
  }
}
