import { describe, expect, it } from 'vitest';
import { parseBytes } from '@cribl-exporter/api/size';

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
