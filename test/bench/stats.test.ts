import { describe, expect, it } from 'vitest';
import { fmtMs, fmtRatio, parseSizes, quantile, sizeLabel, summarize } from '../../bench/lib/stats.mjs';

describe('quantile (nearest rank)', () => {
  it.each([
    [[5], 0.5, 5],
    [[1, 2, 3, 4], 0.5, 2],
    [[4, 3, 2, 1], 0.99, 4],
    [[10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 0.9, 90],
    [[10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 0.91, 100],
  ])('%j at %d → %d', (values, p, want) => {
    expect(quantile(values, p)).toBe(want);
  });

  it('is NaN for no samples', () => {
    expect(quantile([], 0.5)).toBeNaN();
  });

  it('does not reorder its input', () => {
    const values = [3, 1, 2];
    quantile(values, 0.5);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('summarize', () => {
  it('gives count, p50, p99 and max', () => {
    expect(summarize([1, 2, 3, 100])).toEqual({ n: 4, p50: 2, p99: 100, max: 100 });
  });
});

describe('parseSizes', () => {
  it.each([
    ['1k,10k,50k', [1000, 10_000, 50_000]],
    ['50000', [50_000]],
    [' 1K , 2k ', [1000, 2000]],
    ['1500,', [1500]],
  ])('%j → %j', (text, want) => {
    expect(parseSizes(text)).toEqual(want);
  });

  it.each([['ten'], ['0'], ['1m'], ['2000k'], [''], ['1k,,x']])('rejects %j with one line naming the flag', (text) => {
    expect(() => parseSizes(text, 'BENCH_SIZES')).toThrow(/^BENCH_SIZES: /);
  });
});

describe('labels and formats', () => {
  it.each([
    [1000, '1k'],
    [50_000, '50k'],
    [1500, '1500'],
    [999, '999'],
  ])('sizeLabel(%d) = %s', (n, want) => {
    expect(sizeLabel(n)).toBe(want);
  });

  it.each([
    [fmtMs(12.345), '12.3 ms'],
    [fmtMs(undefined), 'n/a'],
    [fmtMs(Number.NaN), 'n/a'],
    [fmtRatio(1.5), '1.50×'],
  ])('%s = %s', (got, want) => {
    expect(got).toBe(want);
  });
});
