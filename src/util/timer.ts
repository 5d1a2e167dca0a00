import type { Clock } from '@cribl-exporter/api/clock';

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

// Reason for cancelling our own timers: abort() without one builds a DOMException (with a stack) each time.
const CANCELLED = new Error('timer cancelled');

/**
 * One timer on the injected clock that calls `fire` by the earliest time asked of it: the budget's, the poller's
 * and the watchdog's one timer for many wake-ups (a timer started and cancelled per request or per finished poll
 * costs more than the work it wakes). A timer already set for the same or an earlier time is kept.
 */
export class Alarm {
  readonly #clock: Clock;
  readonly #fire: () => void;
  #set: { at: number; ac: AbortController } | undefined;

  constructor(clock: Clock, fire: () => void) {
    this.#clock = clock;
    this.#fire = fire;
  }

  /** Fires by `at` (epoch ms). */
  set(at: number): void {
    if (this.#set && this.#set.at <= at) return;
    this.cancel();
    const entry = { at, ac: new AbortController() };
    this.#set = entry;
    sleepUntil(this.#clock, at, entry.ac.signal).then(
      () => {
        if (this.#set !== entry) return;
        this.#set = undefined;
        this.#fire();
      },
      () => undefined,
    );
  }

  cancel(): void {
    this.#set?.ac.abort(CANCELLED);
    this.#set = undefined;
  }
}
