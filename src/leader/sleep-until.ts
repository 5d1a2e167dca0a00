import type { Clock } from '../util/clock.js';

// setTimeout fires at once for delays above 2^31−1 ms, so long waits (a Retry-After of weeks) go in steps.
const MAX_STEP_MS = 2 ** 31 - 1;

/** Resolves once `clock.now() >= atMs` (at once when it already is); rejects when `signal` aborts. */
export async function sleepUntil(clock: Clock, atMs: number, signal?: AbortSignal): Promise<void> {
  for (;;) {
    const left = atMs - clock.now();
    if (!(left > 0)) {
      if (signal?.aborted) throw signal.reason;
      return;
    }
    await clock.sleep(Math.min(left, MAX_STEP_MS), signal);
  }
}
