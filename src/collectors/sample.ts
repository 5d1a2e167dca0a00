/** Small helpers the collectors' families share: reading remote data defensively, quoting it, writing sample lines. */
import { escapeLabelValue, formatValue, labelText } from '../format/escape.js';
import { series, type Family } from '../format/family.js';

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

/** 1 for true, 0 for false; undefined stays undefined (no sample). */
export function bit(value: boolean | undefined): number | undefined {
  return value === undefined ? undefined : value ? 1 : 0;
}

/** One sample line `name{base,extra} value` (an info line: value 1). */
export function line(name: string, base: string, extra: string, value: number | string = 1): string {
  return `${series(name, base, extra)} ${value}\n`;
}

/** One gauge line `name{base} value`, or '' when the value is not a finite number. */
export function gauge(name: string, base: string, value: unknown, divisor = 1): string {
  const n = finite(value);
  return n === undefined ? '' : line(name, base, '', formatValue(n / divisor));
}

/** A family of one gauge line per item, `read(item) / divisor`, with no labels of its own. */
export function gaugeOf<S, C = unknown>(
  name: string,
  what: string,
  read: (state: S, context: C) => unknown,
  divisor = 1,
): Family<S, C> {
  return { name, what, labels: [], sample: (s, base, c) => gauge(name, base, read(s, c), divisor) };
}

/** A `reason` info family: one line (value 1) while the item's last attempt failed, none otherwise. */
export function failureInfo<S, C = unknown>(
  name: string,
  what: string,
  reason: (item: S) => string | undefined,
): Family<S, C> {
  return {
    name,
    what,
    labels: ['reason'],
    sample: (item, base) => {
      const r = reason(item);
      return r === undefined ? '' : line(name, base, `reason=${q(r)}`);
    },
  };
}

/** The lines `sample` gives for each item (with its index), joined; '' for none. */
export function each<T>(items: readonly T[] | undefined, sample: (item: T, index: number) => string): string {
  let lines = '';
  for (const [i, item] of (items ?? []).entries()) lines += sample(item, i);
  return lines;
}

/**
 * The lines of a state set: one series per state, `label="state"`, the one at `current` 1 and the others 0; none
 * when `current` is undefined.
 */
export function stateSet(
  name: string,
  base: string,
  label: string,
  states: readonly string[],
  current: string | undefined,
): string {
  if (current === undefined) return '';
  let lines = '';
  for (const state of states) lines += line(name, base, `${label}="${state}"`, state === current ? 1 : 0);
  return lines;
}
