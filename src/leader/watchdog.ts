/**
 * Deadlines of the exchanges in flight, watched by one timer on the injected clock instead of one
 * timer, one AbortController and one abort listener per exchange (that machinery was about 15 % of the
 * exporter's CPU at 5,000 leader requests/s). The timer sleeps until the earliest deadline; a deadline
 * pushed later (the body's idle timeout is re-armed on every chunk) is only a field update.
 */

import type { Clock } from '../util/clock.js';
import { sleepUntil } from './sleep-until.js';

/** One watched exchange. */
export interface Watch {
  /** Epoch ms at which `onExpire` runs unless re-armed or removed first. */
  expiresAt: number;
  /** The duration last armed (for the timeout message). */
  phaseMs: number;
  readonly onExpire: (phaseMs: number) => void;
}

export class Watchdog {
  readonly #clock: Clock;
  readonly #watches = new Set<Watch>();
  #timer: AbortController | undefined;
  /** Epoch ms the timer sleeps until (Infinity while it runs the watches). */
  #sleepingUntil = Infinity;
  #expiring = false;
  #closed = false;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Watches a new exchange for `ms` from now. */
  add(ms: number, onExpire: (phaseMs: number) => void): Watch {
    const w: Watch = { expiresAt: this.#clock.now() + ms, phaseMs: ms, onExpire };
    this.#watches.add(w);
    this.#ensure(w.expiresAt);
    return w;
  }

  /** Moves a watch's deadline to `ms` from now. */
  arm(w: Watch, ms: number): void {
    w.expiresAt = this.#clock.now() + ms;
    w.phaseMs = ms;
    this.#ensure(w.expiresAt);
  }

  /** A timer that wakes by `at` at the latest: started, or restarted when it sleeps past `at`. */
  #ensure(at: number): void {
    if (this.#closed || this.#expiring) return;
    if (this.#timer && at >= this.#sleepingUntil) return;
    this.#timer?.abort(RESCHEDULED);
    void this.#run();
  }

  remove(w: Watch): void {
    this.#watches.delete(w);
  }

  /** Stops the timer; watches still registered never expire. */
  close(): void {
    this.#closed = true;
    this.#timer?.abort(CLOSED);
  }

  async #run(): Promise<void> {
    const timer = new AbortController();
    this.#timer = timer;
    try {
      while (this.#watches.size > 0 && !timer.signal.aborted) {
        const now = this.#clock.now();
        // Callbacks may add or re-arm watches: this loop accounts for them below, no second timer.
        this.#expiring = true;
        try {
          for (const w of this.#watches) {
            if (w.expiresAt <= now) {
              this.#watches.delete(w);
              w.onExpire(w.phaseMs);
            }
          }
        } finally {
          this.#expiring = false;
        }
        let next = Infinity;
        for (const w of this.#watches) if (w.expiresAt < next) next = w.expiresAt;
        if (next === Infinity) break;
        if (next <= now) continue;
        this.#sleepingUntil = next;
        await sleepUntil(this.#clock, next, timer.signal);
        this.#sleepingUntil = Infinity;
      }
    } catch {
      // Closed, or replaced by a timer for an earlier deadline.
    } finally {
      if (this.#timer === timer) {
        this.#timer = undefined;
        this.#sleepingUntil = Infinity;
      }
    }
  }
}

const CLOSED = new Error('watchdog closed');
const RESCHEDULED = new Error('watchdog rescheduled');
