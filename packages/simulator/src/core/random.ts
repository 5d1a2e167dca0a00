import type { Random } from '@cribl-exporter/api/clock';

/** A seeded PRNG (mulberry32): the same seed always yields the same fleet and the same fault rolls. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [min, max]. */
export function randomInt(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** One element of a non-empty list, optionally weighted. */
export function pick<T>(random: Random, items: readonly T[], weights?: readonly number[]): T {
  if (weights) {
    const total = weights.reduce((a, b) => a + b, 0);
    let r = random() * total;
    for (let i = 0; i < items.length; i++) {
      r -= weights[i] ?? 0;
      if (r < 0) return items[i] as T;
    }
  }
  return items[Math.floor(random() * items.length)] as T;
}

/** `n` lowercase hex digits. */
export function randomHex(random: Random, n: number): string {
  let s = '';
  while (s.length < n)
    s += Math.floor(random() * 0x10000)
      .toString(16)
      .padStart(4, '0');
  return s.slice(0, n);
}

/** A GUID-shaped id (8-4-4-4-12 hex), the form real node ids take. */
export function randomGuid(random: Random): string {
  const h = randomHex(random, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
