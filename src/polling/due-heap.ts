/** An item of a DueHeap: when it is due, and where it sits in the heap (-1 when not in one). */
export interface Due {
  due: number;
  heapIndex: number;
}

/**
 * A binary min-heap of items by due time, indexed so that an item's due time can change in place (O(log n)):
 * the poller's per-node schedule (50,000 nodes: 16 levels).
 */
export class DueHeap<T extends Due> {
  readonly #items: T[] = [];

  /** The item due first, without removing it. */
  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    item.heapIndex = this.#items.length;
    this.#items.push(item);
    this.#up(item.heapIndex);
  }

  /** Restores the order after `item.due` changed. */
  update(item: T): void {
    const i = item.heapIndex;
    if (i < 0 || this.#items[i] !== item) return;
    this.#up(i);
    this.#down(item.heapIndex);
  }

  remove(item: T): void {
    const i = item.heapIndex;
    if (i < 0 || this.#items[i] !== item) return;
    const last = this.#items.pop()!;
    item.heapIndex = -1;
    if (last === item) return;
    this.#items[i] = last;
    last.heapIndex = i;
    this.#up(i);
    this.#down(last.heapIndex);
  }

  #up(i: number): void {
    const items = this.#items;
    const item = items[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = items[p]!;
      if (parent.due <= item.due) break;
      items[i] = parent;
      parent.heapIndex = i;
      i = p;
    }
    items[i] = item;
    item.heapIndex = i;
  }

  #down(i: number): void {
    const items = this.#items;
    const n = items.length;
    const item = items[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && items[r]!.due < items[l]!.due ? r : l;
      const child = items[c]!;
      if (child.due >= item.due) break;
      items[i] = child;
      child.heapIndex = i;
      i = c;
    }
    items[i] = item;
    item.heapIndex = i;
  }
}
