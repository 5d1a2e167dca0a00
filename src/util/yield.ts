import { performance } from 'node:perf_hooks';

/** Lets the event loop run (timers, I/O, scrapes) before continuing. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
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
    return yieldToLoop().then(() => {
      start = performance.now();
    });
  };
}
