/**
 * Deadlines of the exchanges in flight (an exchange's headers, then its body's idle timeout, re-armed on every chunk;
 * a budget permit's deadline), each a timer of its own on the injected clock: undici's own timers cannot be driven by
 * tests. One shared timer for every deadline did not pay for itself (BENCHMARKS.md, "Mechanisms": watchdog).
 */

import type { Clock } from '@cribl-exporter/api/clock';
import { sleepUntil } from '../util/timer.js';

/** One watched exchange. */
export interface Watch {
  /** The duration last armed (for the timeout message). */
  phaseMs: number;
  readonly onExpire: (phaseMs: number) => void;
}

// Reason for cancelling our own timers: abort() without one builds a DOMException (with a stack) each time.
const CANCELLED = new Error('deadline cancelled');

export class Watchdog {
  readonly #clock: Clock;
  readonly #timers = new Map<Watch, AbortController>();
  #closed = false;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Watches a new exchange for `ms` from now. */
  add(ms: number, onExpire: (phaseMs: number) => void): Watch {
    const w: Watch = { phaseMs: ms, onExpire };
    this.arm(w, ms);
    return w;
  }

  /** Moves a watch's deadline to `ms` from now. */
  arm(w: Watch, ms: number): void {
    this.remove(w);
    if (this.#closed) return;
    w.phaseMs = ms;
    const timer = new AbortController();
    this.#timers.set(w, timer);
    sleepUntil(this.#clock, this.#clock.now() + ms, timer.signal).then(
      () => {
        if (this.#timers.get(w) !== timer) return;
        this.#timers.delete(w);
        w.onExpire(w.phaseMs);
      },
      () => undefined,
    );
  }

  remove(w: Watch): void {
    this.#timers.get(w)?.abort(CANCELLED);
    this.#timers.delete(w);
  }

  /** Stops every timer; watches still registered never expire. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers.values()) timer.abort(CANCELLED);
    this.#timers.clear();
  }
}
