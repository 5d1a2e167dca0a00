import { NodeBatchWriter, type NodeBatch } from '../../src/store/node-batch.js';
import { describe, expect, it } from 'vitest';
import { NodeTextStore } from '../../src/exposition/node-texts.js';

/** Families per node in these tests (the batch format does not depend on the real ones). */
const FAMILIES = 19;

/** `texts` padded to one string per node family. */
function family(...texts: string[]): string[] {
  return [...texts, ...new Array<string>(FAMILIES - texts.length).fill('')];
}

function familyOf(store: NodeTextStore, key: string, f: number): string {
  for (const k of store.keys()) if (k === key) break;
  const node = [...store.nodes()][[...store.keys()].indexOf(key)]!;
  return node.bytes.toString('utf8', node.offsets[f], node.offsets[f + 1]);
}

function roundTrip(writer: NodeBatchWriter, store = new NodeTextStore()): NodeTextStore {
  const batch = writer.take();
  if (batch) store.apply(batch);
  return store;
}

describe('NodeBatchWriter → NodeTextStore', () => {
  it.each([
    ['ascii', family('a\n', '', 'bc\n')],
    ['multi-byte', family('é\n', '東京🚀\n', '', 'x\n')],
    ['all empty', family()],
  ])('%s: each family arrives intact', (_name, texts) => {
    const w = new NodeBatchWriter(FAMILIES);
    w.put('n', texts);
    const store = roundTrip(w);
    texts.forEach((t, f) => expect(familyOf(store, 'n', f)).toBe(t));
    expect(store.text('n')).toBe(texts.join(''));
  });

  it('batches own their memory (transferable to a worker) and the writer starts afresh', () => {
    const w = new NodeBatchWriter(64);
    for (let i = 0; i < 20; i++) w.put(`n${i}`, family(`line ${i} ${'x'.repeat(i)}\n`));
    expect(w.count).toBe(20);
    const batch = w.take()!;
    for (const a of [batch.bytes, batch.offsets, batch.deleted]) {
      expect(a.byteOffset).toBe(0);
      expect(a.buffer.byteLength).toBe(a.byteLength);
    }
    expect(batch.keys).toHaveLength(20);
    expect(w.count).toBe(0);
    expect(w.byteLength).toBe(0);
    expect(w.take()).toBeUndefined();
    // The batch survives the writer's next use (it was copied out).
    w.put('other', family('zzzz\n'));
    const store = new NodeTextStore();
    store.apply(batch);
    expect(store.text('n19')).toBe(`line 19 ${'x'.repeat(19)}\n`);
  });

  it('a later entry for the same key wins; a deletion removes; order is first-write order', () => {
    const w = new NodeBatchWriter(FAMILIES);
    w.put('a', family('a1\n'));
    w.put('b', family('b1\n'));
    w.put('a', family('a2\n'));
    w.put('c', family('c1\n'));
    w.delete('b');
    const store = roundTrip(w);
    expect([...store.keys()]).toEqual(['a', 'c']);
    expect(store.text('a')).toBe('a2\n');
    w.put('b', family('b2\n'));
    roundTrip(w, store);
    expect([...store.keys()]).toEqual(['a', 'c', 'b']);
  });

  it('re-writes a node in place when the new text fits, and allocates when it does not', () => {
    const w = new NodeBatchWriter(FAMILIES);
    w.put('n', family('cribl_x 1717200000\n', 'y 1\n'));
    const store = roundTrip(w);
    const at = [...store.nodes()][0]!.offsets[0];
    const reserved = store.reservedBytes;
    w.put('n', family('cribl_x 1717200030.123\n', 'y 1\n'));
    roundTrip(w, store);
    expect([...store.nodes()][0]!.offsets[0]).toBe(at);
    expect(store.reservedBytes).toBe(reserved);
    expect(store.text('n')).toBe('cribl_x 1717200030.123\ny 1\n');
    w.put('n', family('h'.repeat(10_000)));
    roundTrip(w, store);
    expect([...store.nodes()][0]!.offsets[0]).not.toBe(at);
    expect(store.reservedBytes).toBeGreaterThan(10_000);
    expect(familyOf(store, 'n', 0)).toBe('h'.repeat(10_000));
    expect(familyOf(store, 'n', 1)).toBe('');
  });

  it('applies a batch that crossed a thread (plain Uint8Arrays)', () => {
    const w = new NodeBatchWriter(FAMILIES);
    w.put('n', family('é\n', 'x\n'));
    const b = w.take()!;
    const cloned: NodeBatch = structuredClone(b, { transfer: [b.bytes.buffer as ArrayBuffer] });
    expect(Buffer.isBuffer(cloned.bytes)).toBe(false);
    const store = new NodeTextStore();
    store.apply(cloned);
    expect(store.text('n')).toBe('é\nx\n');
  });

  it('keeps texts in shared slabs and re-packs them when moved nodes leave too much room unused', () => {
    const slab = 4096;
    const store = new NodeTextStore(slab);
    const w = new NodeBatchWriter(FAMILIES);
    for (let i = 0; i < 20; i++) w.put(`n${i}`, family(`a ${i}\n`, `b ${i}\n`));
    roundTrip(w, store);
    // 20 small nodes share one slab.
    expect(new Set([...store.nodes()].map((n) => n.bytes)).size).toBe(1);
    expect(store.slabBytes).toBe(slab);
    // Every node grows past its room, again and again: each move wastes the old room, re-packs bound it.
    for (let round = 1; round <= 30; round++) {
      for (let i = 0; i < 20; i++) w.put(`n${i}`, family(`a ${i} ${'x'.repeat(round * 8)}\n`, `b ${i}\n`));
      roundTrip(w, store);
      expect(store.slabBytes).toBeLessThanOrEqual(1.25 * store.reservedBytes + 3 * slab);
    }
    for (let i = 0; i < 20; i++) {
      expect(familyOf(store, `n${i}`, 0)).toBe(`a ${i} ${'x'.repeat(240)}\n`);
      expect(familyOf(store, `n${i}`, 1)).toBe(`b ${i}\n`);
    }
    // Deleting every node gives its room back; what is left fits the bound (at most two slabs besides it).
    for (let i = 0; i < 20; i++) w.delete(`n${i}`);
    w.put('last', family('z\n'));
    roundTrip(w, store);
    expect(store.size).toBe(1);
    expect(store.text('last')).toBe('z\n');
    expect(store.reservedBytes).toBeLessThan(64);
    expect(store.slabBytes).toBeLessThanOrEqual(1.25 * store.reservedBytes + 2 * slab);
  });

  it('gives a text larger than a slab a slab of its own', () => {
    const store = new NodeTextStore(1024);
    const w = new NodeBatchWriter(FAMILIES);
    w.put('small', family('s\n'));
    w.put('big', family('h'.repeat(5000), 'y\n'));
    roundTrip(w, store);
    expect(familyOf(store, 'big', 0)).toBe('h'.repeat(5000));
    expect(familyOf(store, 'big', 1)).toBe('y\n');
    expect(store.text('small')).toBe('s\n');
  });
});
