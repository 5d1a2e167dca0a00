import { inflateRawSync } from 'node:zlib';

/**
 * What a reader that stops after the first gzip member gets (curl 7.88's `--compressed` does): the member's text
 * and how many bytes follow the member. Expects the 10-byte header without optional fields that zlib writes.
 */
export function firstGzipMember(bytes: Buffer): { text: string; bytesAfter: number } {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b || bytes[2] !== 8 || bytes[3] !== 0) {
    throw new Error('not a gzip member with a plain 10-byte header');
  }
  // `info: true` returns the engine too; its bytesWritten is the deflate bytes the stream took, up to its final block.
  const { buffer, engine } = inflateRawSync(bytes.subarray(10), { info: true }) as unknown as {
    buffer: Buffer;
    engine: { bytesWritten: number };
  };
  return { text: buffer.toString('utf8'), bytesAfter: bytes.length - 10 - engine.bytesWritten - 8 };
}
