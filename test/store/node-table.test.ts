import { describe, expect, it } from 'vitest';
import { renderNode } from '../../src/collectors/index.js';
import { compactWorker, type ListedWorker } from '../../src/collectors/listing.js';
import type { NodeMetadata } from '../../src/collectors/node-metadata.js';
import type { NodeState } from '../../src/collectors/state.js';
import { NodeTable, packTransferList, unpackNodes } from '../../src/store/node-table.js';
import { worker } from '../exposition/fixtures.js';

/** A small seeded generator (mulberry32): the same states on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A state with each optional part present or absent at random (keys absent, never undefined). */
function randomState(r: () => number, i: number): NodeState {
  const maybe = <T>(v: T): T | undefined => (r() < 0.5 ? v : undefined);
  const w: ListedWorker = compactWorker(worker(`n${i}`, { group: maybe('g') ?? 'default' }));
  const opt = <O extends object, K extends keyof O>(o: O, k: K, v: O[K] | undefined): void => {
    if (v !== undefined) o[k] = v;
  };
  opt(w, 'status', maybe(r() < 0.5 ? 'healthy' : 'shutting down'));
  opt(w, 'disconnected', maybe(r() < 0.5));
  opt(w, 'deployable', maybe(r() < 0.5));
  opt(w, 'nodeUpgradeStatus', maybe({ state: (i % 4) as 0 | 1 | 2 | 3, timestamp: 1717200000000 + i }));
  opt(w.info, 'freeDiskSpace', maybe(1e11 + i));
  opt(w.info, 'totalDiskSpace', maybe(2e11));
  if (r() < 0.3) delete w.info.cribl.version;
  if (r() < 0.3) w.info.cribl.config = {};
  const s: NodeState = { product: r() < 0.5 ? 'stream' : 'edge', group: w.group, nodeId: w.id, worker: w };
  opt(
    s,
    'health',
    maybe({
      up: r() < 0.7,
      ...(r() < 0.5 ? { status: 'healthy' as const } : {}),
      ...(r() < 0.5 ? { lastSuccessMs: 1717200001000 + i } : {}),
      ...(r() < 0.5 ? { failure: 'timeout' as const } : {}),
      ...(r() < 0.5 ? { startTime: 1717100000000 } : {}),
    }),
  );
  const item: NodeMetadata = { timestamp: 1717200002000 + i };
  opt(item, 'cribl', maybe({ ...(r() < 0.5 ? { mode: 'worker' } : {}), ...(r() < 0.5 ? { group: 'g' } : {}) }));
  opt(item, 'os', maybe({ ...(r() < 0.5 ? { os_name: 'Ubuntu' } : {}), os_version: '24.04' }));
  const pod = r();
  opt(
    item,
    'kube',
    maybe({
      ...(r() < 0.5 ? { namespace: 'ns' } : {}),
      ...(pod < 0.3 ? { pod: `p-${i}` } : pod < 0.6 ? { pod: { name: `p-${i}` } } : pod < 0.7 ? { pod: {} } : {}),
    }),
  );
  opt(
    s,
    'metadata',
    maybe({
      ...(r() < 0.7 ? { item } : {}),
      ...(r() < 0.5 ? { lastSuccessMs: 1717200003000 } : {}),
      ...(r() < 0.3 ? { failure: 'http_5xx' as const } : {}),
    }),
  );
  opt(s, 'deployedConfigVersion', maybe('abc1234'));
  opt(s, 'restarts', maybe(1 + (i % 3)));
  return s;
}

/** Writes each state into a slot of its own; the slots, in the states' order. */
function writeAll(t: NodeTable, states: readonly NodeState[]): number[] {
  return states.map((s) => {
    const slot = t.alloc();
    t.write(slot, s);
    return slot;
  });
}

describe('NodeTable', () => {
  it('gives back every state it was given, and the same rendered text (2,000 seeded states)', () => {
    const r = random(17);
    const t = new NodeTable();
    const states = Array.from({ length: 2000 }, (_, i) => randomState(r, i));
    const slots = writeAll(t, states);
    states.forEach((s, i) => {
      const back = t.read(slots[i] as number);
      expect(back).toEqual(s);
      expect(renderNode(back, 'workspace="w"')).toEqual(renderNode(s, 'workspace="w"'));
    });
  });

  it('a freed slot comes back empty: nothing of its last node shows through', () => {
    const r = random(5);
    const t = new NodeTable();
    const full = randomState(r, 1);
    full.health = { up: true, status: 'healthy', lastSuccessMs: 1, startTime: 2 };
    full.metadata = { item: { timestamp: 1, kube: { pod: 'p' } }, lastSuccessMs: 1 };
    const a = t.alloc();
    t.write(a, full);
    t.free(a);
    const b = t.alloc();
    expect(b).toBe(a);
    const bare: NodeState = { product: 'edge', group: 'f', nodeId: 'x', worker: compactWorker(worker('x')) };
    t.write(b, bare);
    expect(t.read(b)).toEqual(bare);
    expect(t.health(b)).toBeUndefined();
    expect(t.metadata(b)).toBeUndefined();
  });

  it('packs slots as columns whose strings go once each, as codes; unpacked, the same states (saved rows too)', () => {
    const r = random(23);
    const t = new NodeTable();
    const states = Array.from({ length: 500 }, (_, i) => randomState(r, i));
    const slots = writeAll(t, states);
    // A saved row (a view's copy of a state since overwritten) is packed instead of the table's slot.
    const saved = new Map([[slots[7] as number, t.copyRow(slots[7] as number)]]);
    t.write(slots[7] as number, { ...(states[8] as NodeState), nodeId: 'overwritten' });
    const order = [...slots].reverse();
    const packed = t.pack(order, saved);
    expect(packed.length).toBe(500);
    expect(unpackNodes(packed).slice(0, 500)).toEqual([...states].reverse());
    expect(unpackNodes(packed).slice(498, 600)).toEqual([states[1], states[0]]);
    // Each distinct string once, whatever the number of slots and columns that hold it.
    expect(new Set(packed.dict).size).toBe(packed.dict.length);
    const groups = new Set(states.map((s) => s.group));
    expect(packed.dict.filter((v) => groups.has(v)).length).toBe(groups.size);
    expect(Math.min(...packed.codes)).toBe(-1);
    expect(Math.max(...packed.codes)).toBe(packed.dict.length - 1);
    // The typed arrays move to the worker; the codes are among them.
    expect(packTransferList(packed)).toEqual([packed.numbers.buffer, packed.flags.buffer, packed.codes.buffer]);
  });

  it('grows past its first capacity without losing a slot', () => {
    const t = new NodeTable();
    const r = random(9);
    const states = Array.from({ length: 300 }, (_, i) => randomState(r, i));
    for (const [i, s] of states.entries()) t.write(t.alloc(), { ...s, nodeId: `id-${i}` });
    expect(Array.from({ length: 300 }, (_, i) => t.nodeId(i))).toEqual(states.map((_, i) => `id-${i}`));
  });
});
