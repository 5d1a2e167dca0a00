import { describe, expect, it } from 'vitest';
import { fnv1a64, jumpHash, shardOf } from '../../src/discovery/shard.js';
import { fnv1a64Halves } from '../../src/util/hash.js';

describe('fnv1a64', () => {
  it.each([
    ['', 0xcbf29ce484222325n],
    ['a', 0xaf63dc4c8601ec8cn],
    ['foobar', 0x85944171f73967e8n],
  ])('hashes %j like the reference', (s, want) => {
    expect(fnv1a64(s)).toBe(want);
  });

  /** The textbook loop in BigInt (what shard.ts computed before it moved to two 32-bit halves). */
  function reference(s: string): bigint {
    let h = 0xcbf29ce484222325n;
    for (const byte of Buffer.from(s, 'utf8')) h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
    return h;
  }

  // Bytes that carry into the high half, long keys, every ASCII byte, and UTF-8 beyond ASCII (2, 3 and 4 bytes).
  const keys = [
    '',
    '\u0000',
    '\u007f',
    'worker/default/1f0c3c2e-5e9b-4d6f-9b1a-6f2d3c4b5a69',
    'edge/fleet-eu-west-1/host-0042.example.internal',
    Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)).join(''),
    'x'.repeat(10_000),
    'nœud-é',
    '节点-東京',
    'node-😀-𝔘',
    'a\u0080b',
    ...Array.from({ length: 200 }, (_, i) => `node-${i}-${(i * 2654435761) % 1000003}`),
  ];
  it.each(keys.map((k) => [k.length > 60 ? `${k.slice(0, 20)}… (${k.length} chars)` : k, k]))(
    'hashes %j as the BigInt reference does',
    (_, key) => {
      const want = reference(key);
      expect(fnv1a64(key)).toBe(want);
      const [hi, lo] = fnv1a64Halves(key);
      expect(BigInt(hi)).toBe(want >> 32n);
      expect(BigInt(lo)).toBe(want & 0xffffffffn);
    },
  );
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
