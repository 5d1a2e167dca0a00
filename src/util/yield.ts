import { performance } from 'node:perf_hooks';

/** Lets the event loop run (timers, I/O, scrapes) before continuing. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Time-sliced loops now paused at a yield (sliced, below). */
let paused = 0;

/**
 * How many time-sliced loops are paused at a yield now: each is mid-way through its work and goes on at a later turn
 * of the event loop. Slices are cut on the real clock, so how many turns such a loop spans follows the machine's
 * speed; a test on a fake clock waits for none to be paused before it moves time on
 * (test/helpers/fake-time-exporter.ts), or a loaded machine moved the clock on in the middle of a listing's decoding.
 */
export function slicedPaused(): number {
  return paused;
}

/**
 * For long synchronous loops: returns a check to call once per item, which gives a promise to await
 * once `sliceMs` of work has passed since the last yield (undefined otherwise). Slices are timed on the
 * real monotonic clock: they are about the event loop, not about the injected time.
 */
export function timeSlicer(sliceMs: number): () => Promise<void> | undefined {
  let start = performance.now();
  let count = 0;
  return () => {
    // Reading the clock costs more than a small item: only every 16th item looks at it.
    if ((++count & 15) !== 0 || performance.now() - start < sliceMs) return undefined;
    paused++;
    return yieldToLoop().then(() => {
      paused--;
      start = performance.now();
    });
  };
}
