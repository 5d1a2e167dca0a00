/**
 * Per-node rendered texts on their way from the snapshot store (main thread) to the body builder
 * (a worker thread, or the same thread in tests). The snapshot renders a node when its data changes
 * and appends the UTF-8 text to a `NodeBatch`; the body builder applies batches to its `NodeTextStore`
 * (src/exposition/node-texts.ts) and assembles the body from there. The main thread keeps no text: at 50,000
 * nodes the texts are about 120 MB, and keeping them twice (main and builder) would double that.
 */

/**
 * Node texts written since the last batch, in write order (a later entry for the same key wins).
 * Both typed arrays own their ArrayBuffers, so a batch can be transferred to a worker without a copy.
 */
export interface NodeBatch {
  readonly keys: string[];
  /** 1 where the entry deletes the node. */
  readonly deleted: Uint8Array;
  /** Offsets into `bytes` per entry, one per family plus the end (all equal for a deletion). */
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
  readonly #offsetsPerNode: number;

  /** `families` is the number of texts per node (one per per-node family). */
  constructor(families: number, initialBytes = 256 * 1024) {
    this.#offsetsPerNode = families + 1;
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

  put(key: string, texts: readonly string[]): void {
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
    for (let i = 0; i < this.#offsetsPerNode; i++) this.#offsets.push(this.#pos);
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
