/**
 * The duration grammars of the project, in one place: Prometheus durations (`30s`, `1h30m`, `2w`) for every
 * setting and for HELP texts, and Go's `time.ParseDuration` (`1.5s`, `250ms`) where a Prometheus
 * exporter-toolkit file uses it (`rate_limit.interval`).
 */
import { ValueError } from './errors.js';

const UNITS_MS = {
  y: 365 * 24 * 3600_000,
  w: 7 * 24 * 3600_000,
  d: 24 * 3600_000,
  h: 3600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
} as const;

// Prometheus model.ParseDuration: units in this order, each at most once, integers only.
const PROMETHEUS_RE = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;
const ORDER = ['y', 'w', 'd', 'h', 'm', 's', 'ms'] as const;

/** Parses a Prometheus duration (`30s`, `5m`, `1h30m`, `2w`, `0`) into milliseconds; throws ValueError otherwise. */
export function parseDuration(text: string): number {
  const bad = (): ValueError => new ValueError(`${JSON.stringify(text)} is not a duration (use e.g. 30s, 5m, 1h30m)`);
  if (text === '0') return 0;
  const match = PROMETHEUS_RE.exec(text);
  if (text === '' || !match) throw bad();
  let ms = 0;
  ORDER.forEach((unit, i) => {
    const digits = match[i + 1];
    if (digits !== undefined) ms += Number(digits) * UNITS_MS[unit];
  });
  if (!Number.isSafeInteger(ms)) throw new ValueError(`${JSON.stringify(text)} is too long a duration`);
  return ms;
}

/**
 * Formats milliseconds as a Prometheus duration, the way parseDuration reads them (`90000` → `1m30s`); `0s` for zero.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '0s';
  let rest = Math.round(ms);
  let out = '';
  for (const unit of ORDER) {
    const n = Math.floor(rest / UNITS_MS[unit]);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * UNITS_MS[unit];
    }
  }
  return out;
}

const GO_UNITS_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Parses a Go duration (`1s`, `250ms`, `1m30s`, `1.5h`) into milliseconds; undefined when malformed. */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    total += Number(m[1]) * (GO_UNITS_MS[m[2] ?? ''] ?? NaN);
    end = re.lastIndex;
  }
  return end === text.length && end > 0 && Number.isFinite(total) ? total : undefined;
}
