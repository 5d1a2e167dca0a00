/**
 * Deadlines of the exchanges in flight (an exchange's headers, then its body's idle timeout, re-armed on every chunk;
 * a budget permit's deadline), watched by one timer on the injected clock (undici's own timers cannot be driven by
 * tests) instead of one timer, one AbortController and one abort listener per deadline: at 50,000 nodes that
 * machinery cost more than a tenth of the exporter's steady CPU (BENCHMARKS.md, "Mechanisms": watchdog). The timer
 * sleeps until the earliest deadline; a deadline pushed later is only a field update.
 */

import type { Clock } from '@cribl-exporter/api/clock';
import { Alarm } from '../util/timer.js';

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
  readonly #alarm: Alarm;
  #expiring = false;
  #closed = false;

  constructor(clock: Clock) {
    this.#clock = clock;
    this.#alarm = new Alarm(clock, () => this.#expire());
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

  #ensure(at: number): void {
    // Callbacks may add or re-arm watches: #expire accounts for them, no second timer.
    if (!this.#closed && !this.#expiring) this.#alarm.set(at);
  }

  remove(w: Watch): void {
    this.#watches.delete(w);
  }

  /** Stops the timer; watches still registered never expire. */
  close(): void {
    this.#closed = true;
    this.#alarm.cancel();
  }

  #expire(): void {
    const now = this.#clock.now();
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
    if (next < Infinity) this.#ensure(next);
  }
}
