import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration, parseGoDuration } from '@cribl-exporter/api/duration';

describe('parseDuration', () => {
  it.each([
    ['0', 0],
    ['1ms', 1],
    ['500ms', 500],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['1d', 86_400_000],
    ['2w', 14 * 86_400_000],
    ['1y', 365 * 86_400_000],
    ['1h0m5s10ms', 3_605_010],
    ['90s', 90_000],
  ])('%s → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '30', '30x', '-5s', '1.5h', '5m1h', '1h1h', ' 5s', '5 s', 's', '1M', '99999999999999999y'])(
    'rejects %j',
    (text) => {
      expect(() => parseDuration(text)).toThrow(/is not a duration|too long/);
    },
  );

  it('names the value and shows examples', () => {
    expect(() => parseDuration('30x')).toThrow('"30x" is not a duration (use e.g. 30s, 5m, 1h30m)');
  });
});

describe('formatDuration', () => {
  it.each([
    [500, '500ms'],
    [1500, '1s500ms'],
    [30_000, '30s'],
    [60_000, '1m'],
    [3_601_000, '1h1s'],
    [90_000, '1m30s'],
    [5_400_000, '1h30m'],
    [86_400_000, '1d'],
  ])('%d → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });

  it('formats nothing as 0s (HELP texts never show an empty duration)', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(-1)).toBe('0s');
    expect(formatDuration(Number.NaN)).toBe('0s');
  });
});

describe('parseGoDuration', () => {
  it.each([
    ['1s', 1000],
    ['250ms', 250],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['0', 0],
    ['', undefined],
    ['5', undefined],
    ['1x', undefined],
  ])('%s', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });
});
