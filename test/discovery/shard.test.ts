import { describe, expect, it } from 'vitest';
import { fnv1a64, jumpHash, ordinalFromPodName, shardOf } from '../../src/discovery/shard.js';

describe('fnv1a64', () => {
  it.each([
    ['', 0xcbf29ce484222325n],
    ['a', 0xaf63dc4c8601ec8cn],
    ['foobar', 0x85944171f73967e8n],
  ])('hashes %j like the reference', (s, want) => {
    expect(fnv1a64(s)).toBe(want);
  });
});

describe('jumpHash', () => {
  // Reference values from the paper's C++ implementation (and Go's github.com/dgryski/go-jump).
  it.each([
    [0n, 1, 0],
    [1n, 1, 0],
    [0xdeadbeefn, 1, 0],
    [1n, 2, 0],
    [0n, 10, 0],
    [42n, 57, 43],
    [0xdead10ccn, 666, 361],
    [256n, 1024, 520],
  ])('jumpHash(%s, %i) = %i', (key, buckets, want) => {
    expect(jumpHash(key, buckets)).toBe(want);
  });

  it('spreads keys evenly and moves only ~1/n of them when a shard is added', () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => `node-${i}-${(i * 2654435761) % 1000003}`);
    const before = ids.map((id) => shardOf(id, 4));
    const counts = [0, 0, 0, 0];
    for (const s of before) counts[s]!++;
    for (const c of counts) expect(c).toBeGreaterThan(4500);
    const after = ids.map((id) => shardOf(id, 5));
    const moved = ids.filter((_, i) => before[i] !== after[i]).length;
    // Ideal is 1/5 of the keys; every moved key must land on the new shard.
    expect(moved / ids.length).toBeGreaterThan(0.17);
    expect(moved / ids.length).toBeLessThan(0.23);
    ids.forEach((_, i) => {
      if (before[i] !== after[i]) expect(after[i]).toBe(4);
    });
  });

  it('rejects a bucket count below one', () => {
    expect(() => jumpHash(1n, 0)).toThrow(RangeError);
  });
});

describe('ordinalFromPodName', () => {
  it.each([
    ['cribl-exporter-0', 0],
    ['cribl-exporter-12', 12],
    ['exporter', undefined],
    ['cribl-exporter-abc', undefined],
  ])('%s → %s', (name, want) => {
    expect(ordinalFromPodName(name)).toBe(want);
  });
});
