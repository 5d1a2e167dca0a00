import { describe, expect, it } from 'vitest';
import { contentRuns, fnv1a } from '../../src/util/content-runs.js';

/** The runs of `keys`, each as its keys joined. */
function runs(keys: readonly string[], target: number): string[] {
  let a = 0;
  return contentRuns(keys.length, (i) => keys[i] as string, target).map((b) => keys.slice(a, (a = b)).join(','));
}

describe('contentRuns', () => {
  const keys = Array.from({ length: 20_000 }, (_, i) => `node-${i}.example`);

  it.each([
    [0, []],
    [1, [1]],
    [3, [3]],
  ])('of %i items: %j', (length, ends) => {
    expect(contentRuns(length, (i) => `k${i}`, 1000)).toEqual(ends);
  });

  it('ends at the last item; runs of a quarter to twice the target, the last maybe shorter; about the target', () => {
    const ends = contentRuns(keys.length, (i) => keys[i] as string, 1000);
    expect(ends.at(-1)).toBe(keys.length);
    const sizes = ends.map((e, i) => e - (ends[i - 1] ?? 0));
    for (const size of sizes.slice(0, -1)) {
      expect(size).toBeGreaterThanOrEqual(250);
      expect(size).toBeLessThanOrEqual(2000);
    }
    expect(keys.length / sizes.length).toBeGreaterThan(500);
    expect(keys.length / sizes.length).toBeLessThan(1600);
  });

  it('an item added or removed anywhere changes the runs around it only', () => {
    const before = new Set(runs(keys, 1000));
    for (const at of [0, 1, 999, 5000, 12_345, 19_999]) {
      const removed = runs([...keys.slice(0, at), ...keys.slice(at + 1)], 1000);
      expect(removed.filter((r) => !before.has(r)).length).toBeLessThanOrEqual(2);
      const added = runs([...keys.slice(0, at), 'new-node', ...keys.slice(at)], 1000);
      expect(added.filter((r) => !before.has(r)).length).toBeLessThanOrEqual(2);
    }
  });

  it('hashes as FNV-1a', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
  });
});
