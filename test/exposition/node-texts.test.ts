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
    const memory = [...store.nodes()][0]!.bytes;
    w.put('n', family('cribl_x 1717200030.123\n', 'y 1\n'));
    roundTrip(w, store);
    expect([...store.nodes()][0]!.bytes).toBe(memory);
    expect(store.text('n')).toBe('cribl_x 1717200030.123\ny 1\n');
    w.put('n', family('h'.repeat(10_000)));
    roundTrip(w, store);
    expect([...store.nodes()][0]!.bytes).not.toBe(memory);
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
});
