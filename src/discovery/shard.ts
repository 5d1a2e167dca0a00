/**
 * Consistent assignment of nodes to shards: FNV-1a 64 of the node id, then jump consistent hash
 * (Lamping & Veach), as kube-state-metrics does. Growing the shard count moves only 1/n of the nodes.
 */

const MASK64 = 0xffffffffffffffffn;

/**
 * FNV-1a 64 of the UTF-8 bytes of `s` as its two 32-bit halves, `[high, low]`, in plain numbers: the poller hashes
 * every new node's key, and the BigInt loop this replaces allocated about 4 KB a key (four BigInts a byte), 200 MB
 * in a 50,000-node start-up burst (bench/notes-gc.md, sixteenth round).
 */
export function fnv1a64Halves(s: string): [hi: number, lo: number] {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return fnvBytes(Buffer.from(s, 'utf8'));
  return fnvBytes(s);
}

/**
 * The FNV-1a loop over bytes: `s`'s char codes when all are ASCII (the same bytes as its UTF-8). Each step xors the
 * byte in and multiplies by the prime 2^40 + 0x1b3 modulo 2^64: the low half times 0x1b3 is under 2^41 (exact in a
 * double); its carry, the high half times 0x1b3 and the low half shifted by 40 make the new high half modulo 2^32.
 */
function fnvBytes(s: string | Uint8Array): [hi: number, lo: number] {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  const ascii = typeof s === 'string';
  for (let i = 0; i < s.length; i++) {
    const x = (lo ^ (ascii ? s.charCodeAt(i) : s[i]!)) >>> 0;
    const low = x * 0x1b3;
    hi = (Math.imul(hi, 0x1b3) + Math.floor(low / 0x1_0000_0000) + (x << 8)) >>> 0;
    lo = low >>> 0;
  }
  return [hi, lo];
}

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

/** Parses the ordinal of a StatefulSet pod name (`cribl-exporter-3` → 3); undefined when there is none. */
export function ordinalFromPodName(podName: string): number | undefined {
  const m = /-(\d+)$/.exec(podName.trim());
  return m?.[1] === undefined ? undefined : Number(m[1]);
}
