// Types of report.mjs (for the TypeScript tests in test/bench). Results are bench/run.mjs's raw JSON.

/** One size's raw result, as bench/run.mjs records it (loosely typed: it is JSON). */
export type SizeResult = Record<string, unknown> & { nodes: number };

/** BENCHMARKS.md's size budget in bytes. */
export const REPORT_BUDGET_BYTES: number;
/** Room kept free under the budget for the hand-written Mechanisms section. */
export const REPORT_RESERVE_BYTES: number;
/** Issue 41's status page target: fleet size and milliseconds. */
export const STATUS_PAGE_TARGET: { nodes: number; ms: number };
/** Issue 17's steady-state target: fleet size and cores. */
export const STEADY_TARGET: { nodes: number; cores: number };

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
/** Verdicts of fair polling: 20k default-flags coverage time (issue 14), the leader-imposed limit (issue 40). */
export function judgeFair(fair: Record<string, unknown> | undefined): Verdict[];
/** Issue 41: the status page's full response p99 at 10,000 nodes. */
export function judgeStatusPage(results: readonly SizeResult[]): Verdict17;
/** Every verdict of a run, with the issue it belongs to. */
export function allVerdicts(run: Record<string, unknown>): (Verdict17 & { issue: number })[];
/** The Edge-heavy sizes (bench/scale.mjs, issue 51) as one table; undefined without any. */
export function scaleSection(scale: readonly Record<string, unknown>[] | undefined): string | undefined;
/** The sizing section from bench/sizing.json's object. */
export function sizingSection(sizing: import('./sizing.mjs').Sizing): string;
/** The whole BENCHMARKS.md from a run's raw results and the kept blocks of the file it replaces. */
export function renderReport(run: Record<string, unknown>, options?: { kept?: Record<string, string> }): string;
