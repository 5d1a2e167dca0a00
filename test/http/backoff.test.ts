import { describe, expect, it } from 'vitest';
import { backoffDelay, retryDelay } from '../../src/http/backoff.js';

const fixed = (r: number) => () => r;

describe('backoffDelay', () => {
  it.each([
    // attempt, base, cap, random, want
    [1, 500, 30_000, 0.5, 250],
    [2, 500, 30_000, 0.5, 500],
    [3, 500, 30_000, 0.5, 1_000],
    [7, 500, 30_000, 0.5, 15_000],
    [8, 500, 30_000, 0.5, 15_000], // capped: ceiling 30 000
    [50, 500, 30_000, 0.5, 15_000],
    [5_000, 500, 30_000, 0.5, 15_000], // 2^4999 overflows to Infinity; the cap still holds
    [1, 500, 30_000, 0, 0], // full jitter reaches 0
    [3, 500, 30_000, 0.999_999, 1_999],
    [3, 500, 30_000, 1, 1_999], // a random source returning 1 stays below the ceiling
    [3, 500, 30_000, -1, 0],
    [0, 500, 30_000, 0.5, 250], // attempt 0 treated as the first
    [4, 500, 1_000, 0.5, 500],
    [1, 0, 30_000, 0.5, 0],
  ])('attempt %i base %i cap %i random %d → %i', (attempt, baseMs, capMs, r, want) => {
    expect(backoffDelay({ attempt, baseMs, capMs, random: fixed(r) })).toBe(want);
  });

  it('stays within [0, min(cap, base·2^(n−1))) for any random value', () => {
    for (let attempt = 1; attempt <= 12; attempt++) {
      for (const r of [0, 0.1, 0.5, 0.9, 0.999]) {
        const d = backoffDelay({ attempt, baseMs: 100, capMs: 10_000, random: fixed(r) });
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThan(Math.min(10_000, 100 * 2 ** (attempt - 1)));
      }
    }
  });
});

describe('retryDelay', () => {
  it.each([
    ['server delay wins, without jitter', 12_000, 1, 0.1, 12_000],
    ['server delay above the cap is kept, never shortened', 3_600_000, 1, 0.9, 3_600_000],
    ['server delay of 0', 0, 5, 0.9, 0],
    ['server delay shorter than backoff is still exact', 10, 6, 0.9, 10],
    ['no server delay: backoff with jitter', undefined, 3, 0.5, 1_000],
  ])('%s', (_name, serverDelayMs, attempt, r, want) => {
    expect(retryDelay({ attempt, baseMs: 500, capMs: 30_000, random: fixed(r), serverDelayMs })).toBe(want);
  });
});
