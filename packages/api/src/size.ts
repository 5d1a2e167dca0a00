import { ValueError } from './errors.js';

// SI units are powers of 1000 and IEC units powers of 1024, as their names say (unlike kingpin's Base2Bytes).
const BYTE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

const BYTES_RE = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i;

/**
 * Parses a size (`64MiB`, `512KiB`, `1.5GB`, `1048576`) into whole bytes: KB/MB/GB are powers of 1000,
 * KiB/MiB/GiB powers of 1024. Throws ValueError otherwise.
 */
export function parseBytes(text: string): number {
  const match = BYTES_RE.exec(text.trim());
  const factor = match ? BYTE_UNITS[(match[2] ?? '').toLowerCase()] : undefined;
  if (!match || factor === undefined) {
    throw new ValueError(`${JSON.stringify(text)} is not a size (use e.g. 64MiB, 512KiB, 1GB)`);
  }
  const bytes = Math.floor(Number(match[1]) * factor);
  if (!Number.isSafeInteger(bytes)) throw new ValueError(`${JSON.stringify(text)} is too large a size`);
  return bytes;
}
