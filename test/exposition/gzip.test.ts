import { crc32, deflateRawSync, gunzipSync, inflateRawSync, constants as zlibConstants } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { firstGzipMember } from '../helpers/gzip.js';
import {
  crc32Combine,
  deflatePiece,
  GZIP_HEADER,
  gzipEnd,
  PieceDeflater,
  type DeflatedPiece,
} from '../../src/exposition/body/gzip.js';

/** Pieces under one gzip header and an end whose CRC is combined from theirs, as the body cache joins them. */
function gzipMember(pieces: readonly DeflatedPiece[]): Buffer {
  let crc = 0;
  let length = 0;
  for (const p of pieces) {
    crc = crc32Combine(crc, p.crc, p.length);
    length += p.length;
  }
  return Buffer.concat([GZIP_HEADER, ...pieces.map((p) => p.deflated), gzipEnd(crc, length)]);
}

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
    const body = gzipMember(pieces);
    expect(gunzipSync(body).toString('utf8')).toBe(texts.join(''));
    // A single member: a reader that stops after the first gets everything, and no byte follows it.
    expect(firstGzipMember(body)).toEqual({ text: texts.join(''), bytesAfter: 0 });
  });
});

describe('PieceDeflater', () => {
  /** Texts of many sizes: empty, a byte, one zlib output chunk and several (random, so that they barely compress). */
  const texts = (): Buffer[] => {
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const sizes = [0, 1, 100, 70_000, 200_000, 5, 300_000, 64 * 1024, 12_345];
    return sizes.map((n, i) =>
      i % 2 === 0
        ? Buffer.from(Array.from({ length: n }, () => String.fromCharCode(33 + Math.floor(rnd() * 90))).join(''))
        : Buffer.from(`m{i="${i}"} 1\n`.repeat(Math.ceil(n / 12)).slice(0, n)),
    );
  };

  it('gives each piece as raw deflate that inflates on its own to the same bytes, CRC and length', async () => {
    // Used at once after construction (not a tick later), with more pieces than lanes, all in flight together.
    const deflater = new PieceDeflater(1);
    const input = [...texts(), ...texts()];
    const pieces = await Promise.all(input.map((b) => deflater.deflate(b)));
    deflater.close();
    pieces.forEach((p, i) => {
      const want = input[i] as Buffer;
      // Each piece alone: a later piece must not refer to the bytes of one before it on the same stream.
      expect(inflateRawSync(p.deflated, { finishFlush: zlibConstants.Z_SYNC_FLUSH }).equals(want)).toBe(true);
      expect(p.crc).toBe(crc32(want));
      expect(p.length).toBe(want.length);
    });
  });

  it('writes the same bytes as a stream of its own per piece (deflatePiece)', async () => {
    const deflater = new PieceDeflater(1, 2);
    for (const b of texts()) {
      const fresh = deflateRawSync(b, { level: 1, finishFlush: zlibConstants.Z_SYNC_FLUSH });
      expect((await deflater.deflate(b)).deflated.equals(fresh)).toBe(true);
    }
    deflater.close();
  });

  it('joins pieces from its lanes into one gzip member', async () => {
    const deflater = new PieceDeflater(1);
    const input = texts();
    const pieces = await Promise.all(input.map((b) => deflater.deflate(b)));
    deflater.close();
    const body = gzipMember(pieces);
    expect(gunzipSync(body).equals(Buffer.concat(input))).toBe(true);
  });
});
