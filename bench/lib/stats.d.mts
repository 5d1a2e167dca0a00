// Types of stats.mjs (for the TypeScript tests in test/bench).

/** Nearest-rank quantile of `values` (0 < p ≤ 1); NaN for an empty list. */
export function quantile(values: readonly number[], p: number): number;
/** p50, p99, max and count of a list of samples. */
export function summarize(values: readonly number[]): { n: number; p50: number; p99: number; max: number };
/** "12.3 ms" (or "n/a"). */
export function fmtMs(ms: number | undefined, digits?: number): string;
/** "1.23 s" (or "n/a"). */
export function fmtS(ms: number | undefined, digits?: number): string;
/** Bytes as MiB with one decimal ("n/a" when unknown). */
export function fmtMiB(bytes: number | undefined, digits?: number): string;
/** A ratio as "1.23×" ("n/a" when unknown). */
export function fmtRatio(x: number | undefined, digits?: number): string;
/** A whole number with thousands separators ("n/a" when unknown). */
export function fmtInt(x: number | undefined): string;
/** Node counts as written in flags and headings: 1000 → "1k", 50000 → "50k", 1500 → "1500". */
export function sizeLabel(n: number): string;
/** Parses a size list such as "1k,10k,50000" into node counts; throws one line naming the flag on a bad entry. */
export function parseSizes(text: string, flag?: string): number[];
