// Small pure helpers for the benchmark: quantiles and number formatting.

/** Nearest-rank quantile of `values` (0 < p ≤ 1); NaN for an empty list. */
export function quantile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1];
}

/** p50, p99, max and count of a list of samples. */
export function summarize(values) {
  return {
    n: values.length,
    p50: quantile(values, 0.5),
    p99: quantile(values, 0.99),
    max: values.length ? Math.max(...values) : Number.NaN,
  };
}

/** "12.3 ms" (or "n/a"). */
export function fmtMs(ms, digits = 1) {
  return Number.isFinite(ms) ? `${ms.toFixed(digits)} ms` : 'n/a';
}

/** "1.23 s" (or "n/a"). */
export function fmtS(ms, digits = 2) {
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(digits)} s` : 'n/a';
}

/** Bytes as MiB with one decimal ("n/a" when unknown). */
export function fmtMiB(bytes, digits = 1) {
  return Number.isFinite(bytes) ? `${(bytes / 1048576).toFixed(digits)} MiB` : 'n/a';
}

/** A ratio as "1.23×" ("n/a" when unknown). */
export function fmtRatio(x, digits = 2) {
  return Number.isFinite(x) ? `${x.toFixed(digits)}×` : 'n/a';
}

/** A whole number with thousands separators ("n/a" when unknown). */
export function fmtInt(x) {
  return Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a';
}

/** Node counts as written in flags and headings: 1000 → "1k", 50000 → "50k", 1500 → "1500". */
export function sizeLabel(n) {
  return n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

/** Parses a size list such as "1k,10k,50000" into node counts; throws one line naming the flag on a bad entry. */
export function parseSizes(text, flag = '--sizes') {
  const sizes = String(text)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const m = /^(\d+)(k?)$/i.exec(s);
      const n = m ? Number(m[1]) * (m[2] ? 1000 : 1) : Number.NaN;
      if (!Number.isInteger(n) || n < 1 || n > 1_000_000)
        throw new Error(`${flag}: "${s}" is not a node count between 1 and 1000k (e.g. 1k,10k,50k)`);
      return n;
    });
  if (sizes.length === 0) throw new Error(`${flag}: no sizes given (e.g. 1k,10k,50k)`);
  return sizes;
}
