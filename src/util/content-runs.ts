/**
 * Cuts a sequence of keyed items into runs whose ends depend on the keys around them, not on their positions
 * (content-defined chunking): after an item is added or removed, the run that held it changes (and at times the
 * next), and every other run holds the same items as before. A run ends after an item whose key hashes to 0 modulo
 * `target` (so runs are about `target` items long), once it has at least a quarter of that; it is cut at twice
 * `target` at most. The body's builds cut each leader's nodes so (exposition/assemble.ts, RUN_NODES).
 */

/** FNV-1a (32 bits) of the string's UTF-16 code units. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The end (exclusive) of each run of items 0 … length − 1, whose keys `key(i)` gives; the last end is `length`. */
export function contentRuns(length: number, key: (i: number) => string, target: number): number[] {
  const ends: number[] = [];
  const min = Math.max(1, target >> 2);
  const max = Math.max(1, target * 2);
  let start = 0;
  for (let i = 0; i < length; i++) {
    const size = i + 1 - start;
    if (size >= max || (size >= min && fnv1a(key(i)) % target === 0)) {
      ends.push(i + 1);
      start = i + 1;
    }
  }
  if (start < length) ends.push(length);
  return ends;
}
