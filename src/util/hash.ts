/** FNV-1a 64, in two 32-bit halves: shards (src/discovery/shard.ts) and the poller's slots hash node ids with it. */

/**
 * FNV-1a 64 of the UTF-8 bytes of `s` as its two 32-bit halves, `[high, low]`, in plain numbers: the poller hashes
 * every new node's key, and the BigInt loop this replaces allocated about 4 KB a key (four BigInts a byte), 200 MB
 * in a 50,000-node start-up burst.
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

/** `h mod n` of the FNV-1a 64 hash h of `key`, for n under 2^20 (exact from the halves' residues). */
export function hashBucket(key: string, n: number): number {
  const [hi, lo] = fnv1a64Halves(key);
  return ((hi % n) * (0x1_0000_0000 % n) + lo) % n;
}
