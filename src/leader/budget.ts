// Over 400 lines: one class whose three gates (token bucket, AIMD window, pause) share state and change together.
import type { BudgetConfig } from './settings.js';
import type { Clock } from '../util/clock.js';
import type { PermitOutcome } from '../http/classify.js';
import { sleepUntil } from './sleep-until.js';
import { Watchdog, type Watch } from './watchdog.js';

/** The right to send one request now. Release it exactly once, when the response is complete. */
export interface Permit {
  readonly granted: true;
  /** Returns the concurrency slot and feeds the outcome to the AIMD window. Later calls are ignored. */
  release(outcome: PermitOutcome): void;
}

/**
 * Why no permit was given:
 * - `deadline`: the deadline passed while waiting (the budget could not fit the request in);
 * - `paused`: a pause the leader asked for runs past the deadline, so waiting is pointless;
 * - `unavailable`: the leader is not serving (420 hold), and the request could not wait for it;
 * - `queue_full`: `maxWaiters` callers are already waiting;
 * - `aborted`: the caller's signal aborted;
 * - `closed`: the budget was closed.
 */
export type DenyReason = 'deadline' | 'paused' | 'unavailable' | 'queue_full' | 'aborted' | 'closed';

/** A refused acquisition. */
export interface Denial {
  readonly granted: false;
  readonly denied: DenyReason;
}

/** Hooks for self-metrics; called on every change, and once at construction with the initial values. */
export interface BudgetObserver {
  /** The AIMD window changed (`cribl_exporter_leader_concurrency_limit`). */
  onConcurrencyChange(limit: number): void;
  /** Requests holding a permit (`cribl_exporter_leader_in_flight_requests`). */
  onInFlight(n: number): void;
  /**
   * A pause started, was extended or ended. `untilMs` is the epoch ms it ends, `Infinity` while the leader is
   * not serving (420: ends when /health answers 200), and 0 when not paused.
   */
  onPauseChange(paused: boolean, untilMs: number): void;
}

/** A snapshot of the budget, for metrics, logs and tests. */
export interface BudgetState {
  limit: number;
  inFlight: number;
  waiting: number;
  paused: boolean;
  /** True while the leader is not serving (420 hold). */
  held: boolean;
  /** Epoch ms the pause ends; `Infinity` while held; 0 when not paused. */
  pauseUntil: number;
  /** Current token rate (requests per second), at most maxRps. */
  rate: number;
}

/** Settings of one budget. */
export interface RequestBudgetOptions {
  /** Token bucket rate: sustained requests per second, at most. */
  maxRps: number;
  /** Token bucket size: requests that may start at once after a quiet spell. */
  burst: number;
  /** Upper bound of the AIMD concurrency window. */
  maxConcurrency: number;
  /** Window at start. @default min(maxConcurrency, 4) */
  initialConcurrency?: number;
  /**
   * Callers that may wait at once; later callers are denied (`queue_full`) at once, so memory stays bounded
   * whatever the leader does. @default 10000
   */
  maxWaiters?: number;
  clock: Clock;
  observer?: BudgetObserver;
}

/** Default bound on waiting callers: far above one health cycle of a large fleet, a few MB at most. */
export const DEFAULT_MAX_WAITERS = 10_000;

interface Waiter {
  deadline: number | undefined;
  resolve: (r: Permit | Denial) => void;
  watch: Watch | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

const noopObserver: BudgetObserver = {
  onConcurrencyChange: () => undefined,
  onInFlight: () => undefined,
  onPauseChange: () => undefined,
};

// Reason for cancelling our own timers: abort() without one builds a DOMException (with a stack) each time.
const WAKE = new Error('budget timer cancelled');

// Float refills can land a hair under a whole token after sleeping exactly the computed time.
const TOKEN_EPSILON = 1e-9;
const LATENCY_WEIGHT = 0.2;
// After an overload the rate creeps back up by this share of maxRps per second of saturated demand:
// slow on purpose, so that a leader at its limit sees a rare 429, not a sawtooth of them.
const RATE_RECOVERY_PER_S = 0.01;
const RATE_FLOOR_SHARE = 0.01;

/**
 * The request budget of one leader: every request to it (listing, groups, health, metadata, login) takes a
 * permit here first. Three gates, all of which must be open:
 * - a token bucket (`burst`) bounds the rate. The rate starts at `maxRps`; on an overload it drops to what the
 *   leader actually accepted since the previous overload (clamped to 50–90 % of the current rate), then
 *   creeps back by 1 % of maxRps per second while demand exceeds it;
 * - an AIMD window in [1, maxConcurrency] bounds concurrency: +1 after a good answer while the window is in
 *   use (in-flight ≥ limit/2, as Netflix AIMDLimit), halved on overload, −10 % on timeouts, at most one cut
 *   per round of requests (permits granted before a cut do not cut again);
 * - a pause blocks everyone: timed (`pause`, from Retry-After or backoff; only ever extended) or indefinite
 *   (`hold`, while the leader answers 420).
 * Waiters are served first come, first served. Every wait uses the injected Clock.
 */
export class RequestBudget {
  readonly #clock: Clock;
  readonly #deadlines: Watchdog;
  readonly #observer: BudgetObserver;
  readonly #maxRps: number;
  readonly #burst: number;
  readonly #maxConcurrency: number;
  readonly #maxWaiters: number;

  // Set keeps insertion order (FIFO) and deletes from the middle in O(1) (deadline, abort).
  readonly #queue = new Set<Waiter>();
  #tokens: number;
  #lastRefill: number;
  #rate: number;
  #okSinceCut = 0;
  #lastCutAt: number;
  #limit: number;
  #inFlight = 0;
  #pauseUntil = 0;
  #held = false;
  #closed = false;
  #epoch = 0;
  #latencyMs: number | undefined;
  #wake: { at: number; ac: AbortController } | undefined;
  #reported: { paused: boolean; until: number } = { paused: false, until: 0 };

  constructor(opts: RequestBudgetOptions) {
    this.#deadlines = new Watchdog(opts.clock);
    if (!(opts.maxRps > 0)) throw new RangeError(`request budget: maxRps must be > 0, got ${opts.maxRps}`);
    if (!(opts.burst >= 1)) throw new RangeError(`request budget: burst must be >= 1, got ${opts.burst}`);
    if (!(Number.isInteger(opts.maxConcurrency) && opts.maxConcurrency >= 1)) {
      throw new RangeError(`request budget: maxConcurrency must be an integer >= 1, got ${opts.maxConcurrency}`);
    }
    this.#clock = opts.clock;
    this.#observer = opts.observer ?? noopObserver;
    this.#maxRps = opts.maxRps;
    this.#burst = opts.burst;
    this.#maxConcurrency = opts.maxConcurrency;
    this.#maxWaiters = Math.max(0, opts.maxWaiters ?? DEFAULT_MAX_WAITERS);
    this.#limit = clampInt(opts.initialConcurrency ?? Math.min(opts.maxConcurrency, 4), 1, opts.maxConcurrency);
    this.#tokens = opts.burst;
    this.#rate = opts.maxRps;
    this.#lastRefill = opts.clock.now();
    this.#lastCutAt = this.#lastRefill;
    this.#observer.onConcurrencyChange(this.#limit);
    this.#observer.onInFlight(0);
    this.#observer.onPauseChange(false, 0);
  }

  /**
   * Waits for a permit. Resolves with a Denial (never rejects) when the deadline passes first, when a pause
   * runs past the deadline, when the leader is held unavailable and there is no deadline to wait for,
   * when `maxWaiters` are already waiting, on abort, or on close.
   */
  acquire(opts: { deadline?: number; signal?: AbortSignal } = {}): Promise<Permit | Denial> {
    const { deadline, signal } = opts;
    if (this.#closed) return Promise.resolve(deny('closed'));
    if (signal?.aborted) return Promise.resolve(deny('aborted'));
    const now = this.#clock.now();
    const early = this.#refuseEarly(deadline, now);
    if (early) return Promise.resolve(deny(early));
    if (this.#queue.size === 0 && this.#canGrant(now)) return Promise.resolve(this.#grant(now));
    if (this.#queue.size >= this.#maxWaiters) return Promise.resolve(deny('queue_full'));

    return new Promise<Permit | Denial>((resolve) => {
      const w: Waiter = { deadline, resolve, watch: undefined, signal, onAbort: undefined };
      this.#queue.add(w);
      // One timer for every waiter's deadline (a timer and an AbortController per waiter, cancelled on
      // every grant, were about 15 % of the exporter's CPU at 5,000 requests/s).
      if (deadline !== undefined)
        w.watch = this.#deadlines.add(deadline - now, () => this.#settle(w, deny(this.#lateReason())));
      if (signal) {
        w.onAbort = () => this.#settle(w, deny('aborted'));
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      this.#pump();
    });
  }

  /**
   * Blocks every acquisition until `untilMs` (epoch ms). Never shortens a running pause. The token bucket
   * starts empty when the pause ends, so requests resume at the sustained rate rather than in a burst.
   * Waiters whose deadline falls inside the pause are denied (`paused`) at once.
   */
  pause(untilMs: number): void {
    if (this.#closed || !(untilMs > this.#pauseUntil)) return;
    const now = this.#clock.now();
    if (untilMs <= now) return;
    this.#pauseUntil = untilMs;
    this.#tokens = 0;
    this.#lastRefill = Math.max(this.#lastRefill, untilMs);
    for (const w of [...this.#queue]) {
      if (w.deadline !== undefined && w.deadline <= untilMs) this.#settle(w, deny('paused'));
    }
    this.#report(now);
    this.#pump();
  }

  /**
   * Blocks every acquisition until `resume()`: the leader is not serving (420). Waiters without a deadline
   * are denied (`unavailable`) at once, and so are later callers without one: the hold has no known end.
   */
  hold(): void {
    if (this.#closed || this.#held) return;
    this.#held = true;
    for (const w of [...this.#queue]) {
      if (w.deadline === undefined) this.#settle(w, deny('unavailable'));
    }
    this.#report(this.#clock.now());
  }

  /** Ends a hold. A timed pause that is still running keeps running. */
  resume(): void {
    if (this.#closed || !this.#held) return;
    const now = this.#clock.now();
    this.#held = false;
    // The leader has just come back: start with at most one token rather than a full burst.
    this.#refill(now);
    this.#tokens = Math.min(this.#tokens, 1);
    this.#report(now);
    this.#pump();
  }

  /**
   * Requests per second this budget can sustain now: the current token rate, or less when the concurrency window
   * divided by the recent request latency (EWMA) is lower. Ignores pauses. A poller compares
   * `requests / capacityPerSecond()` with its interval to tell whether a cycle fits or must stretch.
   */
  capacityPerSecond(): number {
    if (this.#latencyMs === undefined) return this.#rate;
    return Math.min(this.#rate, (this.#limit * 1000) / Math.max(this.#latencyMs, 1));
  }

  /** True while a pause or hold runs: nothing may be sent, even with a permit granted just before it began. */
  blocked(): boolean {
    return this.#held || this.#clock.now() < this.#pauseUntil;
  }

  /** The current state, for metrics and tests. */
  state(): BudgetState {
    const now = this.#clock.now();
    const timed = now < this.#pauseUntil;
    return {
      limit: this.#limit,
      inFlight: this.#inFlight,
      waiting: this.#queue.size,
      paused: this.#held || timed,
      held: this.#held,
      pauseUntil: this.#held ? Infinity : timed ? this.#pauseUntil : 0,
      rate: this.#rate,
    };
  }

  /** Denies every waiter (`closed`) and later acquisitions, and stops the budget's timer. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#wake?.ac.abort(WAKE);
    this.#wake = undefined;
    for (const w of [...this.#queue]) this.#settle(w, deny('closed'));
    this.#deadlines.close();
  }

  #refuseEarly(deadline: number | undefined, now: number): DenyReason | undefined {
    if (deadline === undefined) return this.#held ? 'unavailable' : undefined;
    if (deadline <= now) return this.#lateReason();
    if (this.#pauseUntil > now && this.#pauseUntil >= deadline) return 'paused';
    return undefined;
  }

  #lateReason(): DenyReason {
    if (this.#held) return 'unavailable';
    return this.#clock.now() < this.#pauseUntil ? 'paused' : 'deadline';
  }

  #canGrant(now: number): boolean {
    if (this.#held || now < this.#pauseUntil || this.#inFlight >= this.#limit) return false;
    this.#refill(now);
    return this.#tokens >= 1 - TOKEN_EPSILON;
  }

  #refill(now: number): void {
    if (now <= this.#lastRefill) return;
    const dt = now - this.#lastRefill;
    this.#tokens = Math.min(this.#burst, this.#tokens + (dt * this.#rate) / 1000);
    this.#lastRefill = now;
    // Only grow while the rate is what holds callers back.
    if (this.#rate < this.#maxRps && this.#queue.size > 0) {
      this.#rate = Math.min(this.#maxRps, this.#rate + (this.#maxRps * RATE_RECOVERY_PER_S * dt) / 1000);
    }
  }

  /** Lowers the rate towards what the leader accepted since the previous overload. */
  #cutRate(now: number): void {
    const accepted = (this.#okSinceCut * 1000) / Math.max(now - this.#lastCutAt, 1);
    const next = Math.min(this.#rate * 0.9, Math.max(this.#rate * 0.5, accepted));
    this.#rate = Math.max(next, this.#maxRps * RATE_FLOOR_SHARE);
    this.#okSinceCut = 0;
    this.#lastCutAt = now;
  }

  #grant(now: number): Permit {
    this.#tokens = Math.max(0, this.#tokens - 1);
    this.#inFlight++;
    this.#observer.onInFlight(this.#inFlight);
    const epoch = this.#epoch;
    let released = false;
    return {
      granted: true,
      release: (outcome) => {
        if (released) return;
        released = true;
        this.#release(outcome, epoch, this.#clock.now() - now);
      },
    };
  }

  #release(outcome: PermitOutcome, epoch: number, latencyMs: number): void {
    const inFlightBefore = this.#inFlight;
    this.#inFlight--;
    this.#observer.onInFlight(this.#inFlight);
    if (outcome !== 'neutral') {
      this.#latencyMs =
        this.#latencyMs === undefined ? latencyMs : this.#latencyMs + LATENCY_WEIGHT * (latencyMs - this.#latencyMs);
    }
    if (outcome === 'ok') {
      this.#okSinceCut++;
      if (inFlightBefore * 2 >= this.#limit && this.#limit < this.#maxConcurrency) this.#setLimit(this.#limit + 1);
    } else if (outcome === 'overload' || outcome === 'timeout') {
      // Requests sent before the last cut saw the same congestion; one cut per round is enough.
      if (epoch === this.#epoch) {
        this.#epoch++;
        this.#setLimit(Math.floor(this.#limit * (outcome === 'overload' ? 0.5 : 0.9)));
        if (outcome === 'overload') this.#cutRate(this.#clock.now());
      }
    }
    if (!this.#closed) this.#pump();
  }

  #setLimit(limit: number): void {
    const next = clampInt(limit, 1, this.#maxConcurrency);
    if (next === this.#limit) return;
    this.#limit = next;
    this.#observer.onConcurrencyChange(next);
  }

  /** Grants permits to waiters in order while every gate is open; otherwise arranges to look again. */
  #pump(): void {
    if (this.#closed) return;
    const now = this.#clock.now();
    this.#report(now);
    for (const w of this.#queue) {
      if (this.#held) break;
      if (now < this.#pauseUntil) break;
      if (this.#inFlight >= this.#limit) break;
      this.#refill(now);
      if (this.#tokens < 1 - TOKEN_EPSILON) {
        this.#wakeAt(now + Math.ceil(((1 - this.#tokens) * 1000) / this.#rate));
        break;
      }
      this.#settle(w, this.#grant(now));
    }
    // Also without waiters: the end of a pause must be reported.
    if (!this.#held && now < this.#pauseUntil) this.#wakeAt(this.#pauseUntil);
  }

  #wakeAt(at: number): void {
    const now = this.#clock.now();
    if (this.#wake && this.#wake.at <= at && this.#wake.at > now) return;
    this.#wake?.ac.abort(WAKE);
    const entry = { at, ac: new AbortController() };
    this.#wake = entry;
    sleepUntil(this.#clock, at, entry.ac.signal).then(
      () => {
        if (this.#wake === entry) this.#wake = undefined;
        this.#pump();
      },
      () => undefined,
    );
  }

  #settle(w: Waiter, result: Permit | Denial): void {
    if (!this.#queue.delete(w)) return;
    if (w.watch) this.#deadlines.remove(w.watch);
    if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
    w.resolve(result);
  }

  #report(now: number): void {
    const paused = this.#held || now < this.#pauseUntil;
    const until = this.#held ? Infinity : paused ? this.#pauseUntil : 0;
    if (paused === this.#reported.paused && until === this.#reported.until) return;
    this.#reported = { paused, until };
    this.#observer.onPauseChange(paused, until);
  }
}

/** A budget from the leader's configured limits. */
export function createRequestBudget(
  config: Pick<BudgetConfig, 'maxRps' | 'burst' | 'maxConcurrency'>,
  clock: Clock,
  observer?: BudgetObserver,
): RequestBudget {
  return new RequestBudget({ ...config, clock, ...(observer ? { observer } : {}) });
}

function deny(denied: DenyReason): Denial {
  return { granted: false, denied };
}

function clampInt(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.floor(n)));
}
