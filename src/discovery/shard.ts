/**
 * Consistent assignment of nodes to shards: FNV-1a 64 of the node id, then jump consistent hash
 * (Lamping & Veach), as kube-state-metrics does. Growing the shard count moves only 1/n of the nodes.
 */

import { fnv1a64Halves } from '../util/hash.js';

const MASK64 = 0xffffffffffffffffn;

/** FNV-1a 64-bit hash of the UTF-8 bytes of `s`. */
export function fnv1a64(s: string): bigint {
  const [hi, lo] = fnv1a64Halves(s);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** Jump consistent hash: the bucket in [0, buckets) for a 64-bit key. */
export function jumpHash(key: bigint, buckets: number): number {
  if (!Number.isInteger(buckets) || buckets < 1)
    throw new RangeError(`buckets must be a positive integer, got ${buckets}`);
  let k = key & MASK64;
  let b = -1;
  let j = 0;
  while (j < buckets) {
    b = j;
    k = (k * 2862933555777941757n + 1n) & MASK64;
    j = Math.floor(((b + 1) * 2 ** 31) / (Number(k >> 33n) + 1));
  }
  return b;
}

/** The shard that owns a node. */
export function shardOf(nodeId: string, total: number): number {
  return total <= 1 ? 0 : jumpHash(fnv1a64(nodeId), total);
}
