// Event-loop gaps measured from JavaScript: a 1 ms interval timer notes the time between its ticks. A
// gap is the longest the loop went without reaching its timers (the longest block, or the process not
// being scheduled). Unlike monitorEventLoopDelay, whose reset() forgets a block that is already under
// way, windows here can start and end at any moment and still see every block that overlaps them.

import { performance } from 'node:perf_hooks';

/** Starts the ticking timer (unref'd); returns a factory of measuring windows. */
export function createGapMonitor(intervalMs = 1) {
  let last = performance.now();
  const open = new Set();
  const timer = setInterval(() => {
    const now = performance.now();
    const gap = now - last;
    last = now;
    for (const w of open) if (gap > w.max) w.max = gap;
  }, intervalMs);
  timer.unref();
  return {
    intervalMs,
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
