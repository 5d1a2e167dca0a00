import { describe, expect, it } from 'vitest';
import { parseHttpDate, parseRetryAfter } from '../../src/http/retry-after.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0); // Sun, 22 Nov 2026 12:00:00 GMT

describe('parseRetryAfter', () => {
  it.each([
    ['no header', {}, undefined],
    ['delta-seconds', { 'retry-after': '120' }, 120_000],
    ['delta-seconds zero', { 'retry-after': '0' }, 0],
    ['delta-seconds with spaces', { 'retry-after': ' 7 ' }, 7_000],
    ['fractional seconds (lenient), rounded up', { 'retry-after': '1.0005' }, 1_001],
    ['seconds far above undici’s 30 s clamp', { 'retry-after': '3600' }, 3_600_000],
    ['IMF-fixdate in the future', { 'retry-after': 'Sun, 22 Nov 2026 12:01:30 GMT' }, 90_000],
    ['IMF-fixdate, lower case', { 'retry-after': 'sun, 22 nov 2026 12:00:05 gmt' }, 5_000],
    ['IMF-fixdate in the past', { 'retry-after': 'Sat, 21 Nov 2026 12:00:00 GMT' }, 0],
    ['RFC 850 date', { 'retry-after': 'Sunday, 22-Nov-26 12:00:10 GMT' }, 10_000],
    ['asctime date (read as GMT, not local time)', { 'retry-after': 'Sun Nov 22 12:00:20 2026' }, 20_000],
    ['asctime date with padded day', { 'retry-after': 'Mon Nov  2 12:00:00 2026' }, 0],
    ['retry-after-ms', { 'retry-after-ms': '1500' }, 1_500],
    ['retry-after-ms fractional', { 'retry-after-ms': '1.2' }, 2],
    ['both: the longer wins (ms longer)', { 'retry-after-ms': '5000', 'retry-after': '2' }, 5_000],
    ['both: the longer wins (seconds longer)', { 'retry-after-ms': '100', 'retry-after': '2' }, 2_000],
    ['garbage ms falls back to seconds', { 'retry-after-ms': 'soon', 'retry-after': '3' }, 3_000],
    ['repeated header: the longest', { 'retry-after': ['1', '9', '4'] }, 9_000],
    ['repeated header joined by commas', { 'retry-after': '1, 9' }, 9_000],
    ['header name in mixed case', { 'Retry-After': '4' }, 4_000],
    ['garbage', { 'retry-after': 'later' }, undefined],
    ['empty', { 'retry-after': '' }, undefined],
    ['negative', { 'retry-after': '-5' }, undefined],
    ['hex', { 'retry-after': '0x10' }, undefined],
    ['exponent', { 'retry-after': '1e3' }, undefined],
    ['a bare number is delta-seconds, never a year', { 'retry-after': '2026' }, 2_026_000],
    ['date-like garbage', { 'retry-after': 'abc 2' }, undefined],
    ['impossible date', { 'retry-after': 'Tue, 31 Feb 2026 12:00:00 GMT' }, undefined],
    ['impossible hour', { 'retry-after': 'Sun, 22 Nov 2026 25:00:00 GMT' }, undefined],
    ['ISO 8601 is not an HTTP-date', { 'retry-after': '2026-11-22T12:01:00Z' }, undefined],
    ['non-finite seconds', { 'retry-after': '9'.repeat(400) }, undefined],
  ] as const)('%s', (_name, headers, want) => {
    expect(parseRetryAfter(headers, NOW)).toBe(want);
  });

  it('never shortens: a date far ahead gives its full distance', () => {
    expect(parseRetryAfter({ 'retry-after': 'Wed, 22 Nov 2028 12:00:00 GMT' }, NOW)).toBe(
      Date.UTC(2028, 10, 22, 12) - NOW,
    );
  });
});

describe('parseHttpDate', () => {
  it.each([
    ['Sun, 06 Nov 1994 08:49:37 GMT', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['Sunday, 06-Nov-94 08:49:37 GMT', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['Sun Nov  6 08:49:37 1994', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['Friday, 06-Nov-76 08:49:37 GMT', Date.UTC(2076, 10, 6, 8, 49, 37)],
    ['Sun, 06 Nov 1994 08:49:37 UTC', undefined],
    ['06 Nov 1994', undefined],
  ])('%s', (value, want) => {
    expect(parseHttpDate(value, NOW)).toBe(want);
  });
});
