/** Small helpers the collectors' sample functions share: reading remote data defensively and quoting it. */
import { escapeLabelValue, formatValue, labelText } from '../format/escape.js';
import { series, type Family, type Source } from '../format/family.js';

/** `"escaped value"` of anything the leader sent. */
export function q(value: unknown): string {
  return `"${escapeLabelValue(labelText(value))}"`;
}

/** The number, when it is a finite one. */
export function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The value as a record, when it is an object (decoders check shapes, but the data is remote). */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

/** One gauge line `name{base} value`, or '' when the value is not a finite number. */
export function gauge(name: string, base: string, value: unknown, divisor = 1): string {
  const n = finite(value);
  return n === undefined ? '' : `${series(name, base)} ${formatValue(n / divisor)}\n`;
}

/** One `name{base,extra} 1` line (an info or state series). */
export function one(name: string, base: string, extra: string): string {
  return `${series(name, base, extra)} 1\n`;
}

/** A family of one gauge line per item, `read(item) / divisor`, with no labels of its own. */
export function gaugeFamily<S>(
  name: string,
  source: Source,
  what: string,
  read: (state: S) => unknown,
  divisor = 1,
): Family<S> {
  return { name, source, what, labels: [], sample: (s, base) => gauge(name, base, read(s), divisor) };
}
