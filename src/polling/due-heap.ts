/** An item of a DueHeap: when it is due, and where it sits in the heap (-1 when not in one). */
export interface Due {
  due: number;
  heapIndex: number;
}

/** How a heap reads an item's key and keeps its position in the item (-1 when not in the heap). */
export interface HeapKey<T> {
  key(item: T): number;
  index(item: T): number;
  setIndex(item: T, i: number): void;
}

/**
 * A binary min-heap of items by a key, indexed so that an item's key can change in place (O(log n)): the poller's
 * per-node schedule by due time and its due nodes by turn (50,000 nodes: 16 levels).
 */
export class KeyHeap<T> {
  readonly #items: T[] = [];
  readonly #k: HeapKey<T>;

  constructor(k: HeapKey<T>) {
    this.#k = k;
  }

  get size(): number {
    return this.#items.length;
  }

  /** The item with the lowest key, without removing it. */
  peek(): T | undefined {
    return this.#items[0];
  }

  /** Whether the item is in this heap. */
  has(item: T): boolean {
    const i = this.#k.index(item);
    return i >= 0 && this.#items[i] === item;
  }

  push(item: T): void {
    this.#k.setIndex(item, this.#items.length);
    this.#items.push(item);
    this.#up(this.#items.length - 1);
  }

  /** Restores the order after the item's key changed. */
  update(item: T): void {
    if (!this.has(item)) return;
    this.#up(this.#k.index(item));
    this.#down(this.#k.index(item));
  }

  remove(item: T): void {
    if (!this.has(item)) return;
    const i = this.#k.index(item);
    const last = this.#items.pop()!;
    this.#k.setIndex(item, -1);
    if (last === item) return;
    this.#items[i] = last;
    this.#k.setIndex(last, i);
    this.#up(i);
    this.#down(this.#k.index(last));
  }

  #up(i: number): void {
    const items = this.#items;
    const k = this.#k;
    const item = items[i]!;
    const key = k.key(item);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = items[p]!;
      if (k.key(parent) <= key) break;
      items[i] = parent;
      k.setIndex(parent, i);
      i = p;
    }
    items[i] = item;
    k.setIndex(item, i);
  }

  #down(i: number): void {
    const items = this.#items;
    const k = this.#k;
    const n = items.length;
    const item = items[i]!;
    const key = k.key(item);
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && k.key(items[r]!) < k.key(items[l]!) ? r : l;
      const child = items[c]!;
      if (k.key(child) >= key) break;
      items[i] = child;
      k.setIndex(child, i);
      i = c;
    }
    items[i] = item;
    k.setIndex(item, i);
  }
}

const BY_DUE: HeapKey<Due> = {
  key: (d) => d.due,
  index: (d) => d.heapIndex,
  setIndex: (d, i) => (d.heapIndex = i),
};

/** A KeyHeap of items by due time. */
export class DueHeap<T extends Due> extends KeyHeap<T> {
  constructor() {
    super(BY_DUE);
  }
}
