// Event-loop gaps measured from JavaScript: a 1 ms interval timer notes the time between its ticks. A
// gap is the longest the loop went without reaching its timers (the longest block, or the process not
// being scheduled). Unlike monitorEventLoopDelay, whose reset() forgets a block that is already under
// way, windows here can start and end at any moment and still see every block that overlaps them.

/**
 * The gap timer's interval in the windows that measure the exporter's steady CPU (run.mjs, steady-probe.mjs): a gap
 * there reads up to this much long. The 1 ms timer is not free: at 2,000 nodes the exporter's main thread used
 * 0.045–0.059 cores with it and 0.024–0.040 with a 50 ms or 1 s one (`steady-probe --gap-timer MS`, four
 * runs each, alternated; the whole process 0.067–0.079 against 0.042–0.077, the GC threads being noisier). But a
 * full `npm run bench` with 50 ms here measured no lower steady CPU (0.040 / 0.052 / 0.174 / 0.457 cores at 1k / 2k /
 * 10k / 50k against 0.044 / 0.051 / 0.112 / 0.458 with 1 ms; bench/notes-gc.md, ninth round, in git history at bbf1e93), and its gaps read up to
 * 50 ms long: kept at 1 ms until a measurement shows the difference.
 */
export const STEADY_GAP_TIMER_MS = 1;

/**
 * Starts the ticking timer (unref'd); returns a factory of measuring windows. `setInterval(ms)` changes the interval
 * at once.
 */
export function createGapMonitor(intervalMs = 1) {
  let last = performance.now();
  const open = new Set();
  let every = intervalMs;
  const tick = () => {
    const now = performance.now();
    const gap = now - last;
    last = now;
    for (const w of open) if (gap > w.max) w.max = gap;
  };
  let timer = setInterval(tick, every);
  timer.unref();
  return {
    get intervalMs() {
      return every;
    },
    /** Ticks every `ms` from now on (the gap under way is kept); returns the previous interval. */
    setInterval(ms) {
      const was = every;
      clearInterval(timer);
      every = ms;
      timer = setInterval(tick, every);
      timer.unref();
      return was;
    },
    /** Opens a window: `peek()` is the longest gap so far (including the one under way), `end()` closes it. */
    window() {
      const w = { max: 0 };
      open.add(w);
      const peek = () => Math.max(w.max, performance.now() - last);
      return {
        peek,
        end() {
          open.delete(w);
          return peek();
        },
      };
    },
    stop() {
      clearInterval(timer);
    },
  };
}
