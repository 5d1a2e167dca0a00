import { ValueError } from '../config/errors.js';

const DURATION_UNITS_MS = {
  y: 365 * 24 * 3600_000,
  w: 7 * 24 * 3600_000,
  d: 24 * 3600_000,
  h: 3600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
} as const;

// Prometheus model.ParseDuration: units in this order, each at most once, integers only.
const DURATION_RE = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;
const DURATION_ORDER = ['y', 'w', 'd', 'h', 'm', 's', 'ms'] as const;

/** Parses a Prometheus duration (`30s`, `5m`, `1h30m`, `2w`, `0`) into milliseconds; throws ValueError otherwise. */
export function parseDuration(text: string): number {
  const bad = (): ValueError => new ValueError(`${JSON.stringify(text)} is not a duration (use e.g. 30s, 5m, 1h30m)`);
  if (text === '0') return 0;
  const match = DURATION_RE.exec(text);
  if (text === '' || !match) throw bad();
  let ms = 0;
  DURATION_ORDER.forEach((unit, i) => {
    const digits = match[i + 1];
    if (digits !== undefined) ms += Number(digits) * DURATION_UNITS_MS[unit];
  });
  if (!Number.isSafeInteger(ms)) throw new ValueError(`${JSON.stringify(text)} is too long a duration`);
  return ms;
}

/** Formats milliseconds the way parseDuration reads them (`90000` → `1m30s`); `0` for zero. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0';
  let rest = ms;
  let out = '';
  for (const unit of DURATION_ORDER) {
    const n = Math.floor(rest / DURATION_UNITS_MS[unit]);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * DURATION_UNITS_MS[unit];
    }
  }
  return out;
}

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

/** Parses a size (`64MiB`, `512KiB`, `1.5GB`, `1048576`) into whole bytes; throws ValueError otherwise. */
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
