// Types of report.mjs (for the TypeScript tests in test/bench). Results are bench/run.mjs's raw JSON.

/** One size's raw result, as bench/run.mjs records it (loosely typed: it is JSON). */
export type SizeResult = Record<string, unknown> & { nodes: number };

/** One verdict on a target of the issue. */
export interface Verdict {
  target: string;
  status: 'met' | 'NOT met' | 'not measured';
  detail: string;
}

/** Longest stretch of a [ms, cumulative count] series in which the count did not grow. */
export function longestIdle(series: readonly (readonly [number, number])[] | undefined): number | undefined;
/** Figures derived from one size's raw result. */
export function derive(r: SizeResult): Record<string, unknown>;
/** One verdict per target of the issue, for the given size. */
export function judgeTargets(r: SizeResult): Verdict[];
/** A verdict of issue 17: also "not run" (a size absent from the run) and "see" (judged in another section). */
export interface Verdict17 {
  target: string;
  status: 'met' | 'NOT met' | 'not measured' | 'not run' | 'see';
  detail: string;
}
/** Issue 17's targets judged per size from the run's results: RSS, CPU per request vs undici, steady CPU at 50k. */
export function judgeIssue17(results: readonly SizeResult[]): Verdict17[];
/** Verdicts of fair polling (issue 14): 20k default-flags coverage time, leader-imposed limit accepted share. */
export function judgeFair(fair: Record<string, unknown> | undefined): Verdict[];
/** The whole BENCHMARKS.md from a run's raw results. */
export function renderReport(run: Record<string, unknown>, options?: { analysis?: string }): string;
