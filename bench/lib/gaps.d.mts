// Types of gaps.mjs (for the TypeScript tests in test/bench).

/** The gap timer's interval (ms) in the windows that measure the exporter's steady CPU. */
export const STEADY_GAP_TIMER_MS: number;

/** A measuring window: the longest gap so far, the one under way included. */
export interface GapWindow {
  peek(): number;
  /** Closes the window; returns its longest gap. */
  end(): number;
}

/** A ticking timer and the windows that read its gaps. */
export interface GapMonitor {
  readonly intervalMs: number;
  /** Ticks every `ms` from now on; returns the previous interval. */
  setInterval(ms: number): number;
  window(): GapWindow;
  stop(): void;
}

/** Starts the ticking timer (unref'd). */
export function createGapMonitor(intervalMs?: number): GapMonitor;
