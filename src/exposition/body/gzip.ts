/**
 * One gzip member from independently compressed pieces, as pigz builds one: each piece is raw deflate ending in a
 * sync flush (byte-aligned, not final), so pieces compressed apart concatenate into one deflate stream; the stream
 * gets one gzip header, a final empty block and a trailer whose CRC-32 is combined from the pieces' CRCs.
 *
 * Why one member: the /metrics body is compressed in pieces on zlib's threads (render.ts) and the self-metrics
 * are appended per scrape. As a series of gzip members (valid gzip, RFC 1952 §2.2) Prometheus, Python and gunzip
 * read it whole, but curl's `--compressed` (7.88) stops after the first member and printed 6 KB of a 180 KB body.
 */
import {
  crc32,
  createDeflateRaw,
  deflateRaw,
  deflateRawSync,
  constants as zlibConstants,
  type DeflateRaw,
} from 'node:zlib';

/** The 10-byte gzip header: deflate, no name, no time, unknown OS (as `zlib.gzip` writes it, OS 255). */
export const GZIP_HEADER: Buffer = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

/** A final fixed-Huffman block with no data (BFINAL=1, BTYPE=01, end-of-block): ends a deflate stream. */
const FINAL_BLOCK: Buffer = Buffer.from([0x03, 0x00]);

/** A piece of the stream: its raw deflate bytes, the CRC-32 and length of what they inflate to. */
export interface DeflatedPiece {
  readonly deflated: Buffer;
  readonly crc: number;
  readonly length: number;
}

/** One piece compressed on zlib's threads, with a stream of its own (a scrape's self-metrics). */
export function deflatePiece(bytes: Buffer, level: number): Promise<DeflatedPiece> {
  const crc = crc32(bytes);
  return new Promise((resolve, reject) =>
    deflateRaw(bytes, { level, finishFlush: zlibConstants.Z_SYNC_FLUSH }, (err, deflated) =>
      err ? reject(err) : resolve({ deflated, crc, length: bytes.length }),
    ),
  );
}

/**
 * Streams of a PieceDeflater: as many as libuv's default thread pool has threads, so that pieces are compressed in
 * parallel as with a stream per piece (a build keeps a few pieces in flight).
 */
const DEFLATE_LANES = 4;

/**
 * zlib's output chunk of a lane: one piece (at most 256 KiB of text, about 50 KiB compressed at level 1) fits in one,
 * so a piece takes two trips to zlib's threads (its bytes, then the sync flush) instead of one per 16 KiB of output.
 */
const LANE_CHUNK_BYTES = 64 << 10;

/** One long-lived raw deflate stream that compresses pieces one after the other, reset before each. */
class Lane {
  readonly #stream: DeflateRaw;
  #out: Buffer[] = [];
  #tail: Promise<unknown> = Promise.resolve();
  #error: Error | undefined;
  #fail: ((err: Error) => void) | undefined;

  constructor(level: number) {
    this.#stream = createDeflateRaw({ level, chunkSize: LANE_CHUNK_BYTES });
    this.#stream.on('data', (b: Buffer) => this.#out.push(b));
    this.#stream.on('error', (err: Error) => {
      this.#error = err;
      this.#fail?.(err);
    });
  }

  deflate(bytes: Buffer): Promise<Buffer> {
    const run = this.#tail.then(
      () =>
        new Promise<Buffer>((resolve, reject) => {
          if (this.#error) return reject(this.#error);
          this.#fail = reject;
          // A fresh start (deflateReset): the piece refers to no byte of the one before, so pieces stay independent.
          this.#stream.reset();
          this.#out = [];
          this.#stream.write(bytes);
          // The flush's write callback runs once its output is pushed ('data' above), which follows the piece's own.
          this.#stream.flush(zlibConstants.Z_SYNC_FLUSH, () => {
            this.#fail = undefined;
            if (this.#error) return reject(this.#error);
            const out = this.#out;
            resolve(out.length === 1 ? (out[0] as Buffer) : Buffer.concat(out));
          });
        }),
    );
    this.#tail = run.catch(() => undefined);
    return run;
  }

  close(): void {
    void this.#tail.then(() => this.#stream.destroy());
  }
}

/**
 * Raw deflate ending in a sync flush, for many pieces, on a few zlib streams kept for the deflater's life (a build)
 * and reset between pieces. A stream per piece (deflatePiece) sets up and frees zlib's state each time, which costs
 * more than the compression itself (BENCHMARKS.md, "Mechanisms": deflate lanes).
 */
export class PieceDeflater {
  readonly #lanes: Lane[];
  #next = 0;

  constructor(level: number, lanes = DEFLATE_LANES) {
    this.#lanes = Array.from({ length: lanes }, () => new Lane(level));
  }

  /** The CRC is computed at once (it is an order of magnitude faster than deflate at level 1). */
  deflate(bytes: Buffer): Promise<DeflatedPiece> {
    const crc = crc32(bytes);
    const lane = this.#lanes[this.#next] as Lane;
    this.#next = (this.#next + 1) % this.#lanes.length;
    return lane.deflate(bytes).then((deflated) => ({ deflated, crc, length: bytes.length }));
  }

  /** Frees the streams once the pieces given so far are compressed. */
  close(): void {
    for (const lane of this.#lanes) lane.close();
  }
}

/** One piece on the calling thread (small texts: the families' HELP and TYPE lines). */
export function deflatePieceSync(bytes: Buffer, level: number): DeflatedPiece {
  const deflated = deflateRawSync(bytes, { level, finishFlush: zlibConstants.Z_SYNC_FLUSH });
  return { deflated, crc: crc32(bytes), length: bytes.length };
}

const POLY = 0xedb88320;

/** a × b modulo the CRC-32 polynomial (reflected), as zlib's multmodp. */
function multmodp(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0…31 (zlib's x2n_table). */
const X2N: number[] = [];
{
  let p = 0x40000000; // x^1
  for (let k = 0; k < 32; k++) {
    X2N.push(p);
    p = multmodp(p, p);
  }
}

/** x^(n × 2^k) modulo the polynomial. */
function x2nmodp(n: number, k: number): number {
  let p = 0x80000000; // x^0
  while (n) {
    if (n & 1) p = multmodp(X2N[k & 31] as number, p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** The CRC-32 of A followed by B, from CRC(A), CRC(B) and B's length (zlib's crc32_combine). */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multmodp(x2nmodp(lengthB, 3), crcA) ^ crcB) >>> 0;
}

/**
 * The 10 bytes that close a member: the final empty block, then the trailer (CRC-32 and length modulo 2^32 of the
 * whole uncompressed text, little-endian), in a buffer of its own.
 */
export function gzipEnd(crc: number, length: number): Buffer {
  const end = Buffer.allocUnsafeSlow(FINAL_BLOCK.length + 8);
  FINAL_BLOCK.copy(end, 0);
  end.writeUInt32LE(crc >>> 0, FINAL_BLOCK.length);
  end.writeUInt32LE(length % 2 ** 32, FINAL_BLOCK.length + 4);
  return end;
}
