/**
 * Escaping and number formatting shared by both exposition formats (Prometheus text 0.0.4 and
 * OpenMetrics 1.0.0). Everything here is pure and allocation-light: it runs once per label value
 * when a node's data changes, not per scrape.
 */

import type { Format } from './format.js';

// One test per value keeps the common case (nothing to escape) to a single regex scan.
const NEEDS_ESCAPE = /[\\"\n\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const LABEL_SPECIALS = /[\\"\n]/g;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '"': '\\"', '\n': '\\n' };

/**
 * Escapes a label value for both formats: backslash, double quote and line feed are escaped, and
 * lone UTF-16 surrogates become U+FFFD so that the UTF-8 body is always valid.
 */
export function escapeLabelValue(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(LONE_SURROGATE, '\uFFFD').replace(LABEL_SPECIALS, (c) => ESCAPES[c] ?? c);
}

/**
 * Escapes HELP text: text 0.0.4 escapes backslash and line feed only; OpenMetrics also escapes the
 * double quote (there a bare `"` is not allowed).
 */
export function escapeHelp(text: string, format: Format): string {
  const clean = text.replace(LONE_SURROGATE, '\uFFFD').replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  return format === 'openmetrics' ? clean.replace(/"/g, '\\"') : clean;
}

/** Formats a sample value: shortest round-trip decimal, `NaN`, `+Inf` or `-Inf`. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/**
 * Turns whatever the leader sent into label text without ever float-formatting it: strings as
 * they are, integers in plain digits (never `1e+21`), other values as empty text.
 */
export function labelText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) {
    const s = String(value);
    // Large or tiny numbers print in exponent form; spell out the digits instead.
    return s.includes('e') ? value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 }) : s;
  }
  return '';
}

/** Renders `name="value",…` pairs (values escaped), without braces. */
export function labelPairs(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}="${escapeLabelValue(v)}"`)
    .join(',');
}
