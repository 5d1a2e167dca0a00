// Types of rate-limit.mjs (for the TypeScript tests in test/bench).

/** One second of the simulator's counters (GET /_sim/stats, perSecond). */
export interface SecondCounts {
  second: number;
  requests?: number;
  accepted: number;
  rateLimited: number;
}

/** Whole seconds strictly between fromMs and toMs (epoch ms), missing seconds as 0. */
export function perSecondSeries(
  perSecond: readonly SecondCounts[] | undefined,
  fromMs: number,
  toMs: number,
): { seconds: number; accepted: number[]; rateLimited: number[] };

/** Worst sliding window, whole-part figures and fixed windows against a limit; undefined when shorter than a window. */
export function rateLimitFigures(
  series: { accepted: readonly number[]; rateLimited: readonly number[] },
  options: { limitRps: number; windowS: number },
):
  | {
      seconds: number;
      acceptedPerSecond: number;
      share429: number;
      worstWindow: { fromS: number; accepted: number; share: number };
      windows: { fromS: number; acceptedPerSecond: number; share: number; share429: number }[];
    }
  | undefined;
