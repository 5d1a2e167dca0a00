import { crc32, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { firstGzipMember } from '../helpers/gzip.js';
import { crc32Combine, deflatePiece, GZIP_HEADER, gzipEnd } from '../../src/util/gzip-stream.js';

describe('crc32Combine', () => {
  it.each([
    ['', ''],
    ['a', ''],
    ['', 'b'],
    ['hello ', 'world'],
    ['x'.repeat(100_000), 'y'.repeat(70_001)],
  ])('CRC(%#) of A then B equals crc32 of the concatenation', (a, b) => {
    expect(crc32Combine(crc32(a), crc32(b), Buffer.byteLength(b))).toBe(crc32(a + b));
  });
});

describe('one gzip member from pieces compressed apart', () => {
  it('inflates whole with one member, also for curl-like readers that stop after the first', async () => {
    const texts = ['# HELP a A.\n', 'a{x="1"} 1\n'.repeat(5000), '', 'b 2\n'.repeat(30_000)];
    const pieces = await Promise.all(texts.map((t) => deflatePiece(Buffer.from(t), 1)));
    let crc = 0;
    let length = 0;
    for (const p of pieces) {
      crc = crc32Combine(crc, p.crc, p.length);
      length += p.length;
    }
    const body = Buffer.concat([GZIP_HEADER, ...pieces.map((p) => p.deflated), gzipEnd(crc, length)]);
    expect(gunzipSync(body).toString('utf8')).toBe(texts.join(''));
    // A single member: a reader that stops after the first gets everything, and no byte follows it.
    expect(firstGzipMember(body)).toEqual({ text: texts.join(''), bytesAfter: 0 });
  });
});
