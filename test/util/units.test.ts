import { describe, expect, it } from 'vitest';
import { formatDuration, parseBytes, parseDuration } from '../../src/util/units.js';

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
    [0, '0'],
    [500, '500ms'],
    [90_000, '1m30s'],
    [5_400_000, '1h30m'],
    [86_400_000, '1d'],
  ])('%d → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });
});

describe('parseBytes', () => {
  it.each([
    ['0', 0],
    ['1048576', 1_048_576],
    ['512B', 512],
    ['1KB', 1000],
    ['1KiB', 1024],
    ['64MiB', 64 * 1024 * 1024],
    ['64mib', 64 * 1024 * 1024],
    ['500MB', 500_000_000],
    ['1.5GiB', 1.5 * 2 ** 30],
    ['1GB', 1e9],
    ['2TiB', 2 * 2 ** 40],
    ['10 MiB', 10 * 2 ** 20],
  ])('%s → %d bytes', (text, bytes) => {
    expect(parseBytes(text)).toBe(bytes);
  });

  it.each(['', 'MiB', '-1MiB', '64XB', '1e6', '64 MiB extra', '1PiB'])('rejects %j', (text) => {
    expect(() => parseBytes(text)).toThrow(`${JSON.stringify(text)} is not a size (use e.g. 64MiB, 512KiB, 1GB)`);
  });
});
