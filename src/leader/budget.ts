// Over 400 lines: one class whose three gates (token bucket, AIMD window, pause) share state and change together.
import type { Clock } from '@cribl-exporter/api/clock';
import type { PermitOutcome } from '../http/classify.js';
import { LatencyMonitor } from './meters.js';
import type { Logger } from 'pino';
import { RateControl, type LearnedDrop, type LearnedLimit } from './rate-control.js';
import { Alarm } from '../util/timer.js';
import { Watchdog, type Watch } from './watchdog.js';
import { onAbort, type Abortable } from './abort-fanout.js';

/**
 * How a request ended, for the budget: a PermitOutcome, or `node_timeout`: a host-context request (`/w/{id}/…`)
 * timed out. That is the node's state (the leader waits on the node): a latency sample, but no cut.
 */
export type ReleaseOutcome = PermitOutcome | 'node_timeout';

/**
 * `limit`: the overload was a 429, or a 503 with Retry-After: the leader has a rate limit, and the rate resumes a
 * little below the rate at which it answered so (instead of being cut towards half).
 */
export type ReleaseHint = 'limit';

/** The right to send one request now. Release it exactly once, when the response is complete. */
export interface Permit {
  readonly granted: true;
  /** Returns the concurrency slot and feeds the outcome to the AIMD window. Later calls are ignored. */
  release(outcome: ReleaseOutcome, hint?: ReleaseHint): void;
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
  /** The token rate in force changed (`cribl_exporter_leader_rate_limit_requests_per_second`). */
  onRateChange?(rps: number): void;
}

/** A snapshot of the budget, for metrics, logs and tests. */
export interface BudgetState {
  limit: number;
  /** Upper bound of the window (`--leader.max-concurrency`). */
  maxConcurrency: number;
  inFlight: number;
  waiting: number;
  paused: boolean;
  /** True while the leader is not serving (420 hold). */
  held: boolean;
  /** Epoch ms the pause ends; `Infinity` while held; 0 when not paused. */
  pauseUntil: number;
  /** Current token rate (requests per second), at most maxRps. */
  rate: number;
  /** The configured (or automatic) upper bound of the rate. */
  maxRps: number;
  /** The rate at which the leader last answered 429 (or 503 with Retry-After), while that is remembered. */
  learnedRps: number | undefined;
  /** That limit with when the rate probes past it and when it is dropped at the latest. */
  learned?: LearnedLimit | undefined;
  /** Slow host-context requests that gave their concurrency slot back while still in flight. */
  detached: number;
  /** Median response time of the last window of answers (ms), and its recent baseline. */
  latencyMs: number | undefined;
  baselineMs: number | undefined;
  /** Milliseconds paused or held since the budget was created (grows while paused). */
  pausedMs: number;
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
   * whatever the leader does. @default 10000: far above one health cycle of a large fleet, a few MB at most.
   */
  maxWaiters?: number;
  clock: Clock;
  observer?: BudgetObserver;
  /** Where the budget says that a learned rate limit was dropped (the leader's logger). */
  logger?: Logger;
}

interface Waiter {
  detachable: boolean;
  priority: boolean;
  /** May use the lane beyond a full window (discovery's listings, the leader's own health). */
  lane: boolean;
  deadline: number | undefined;
  resolve: (r: Permit | Denial) => void;
  watch: Watch | undefined;
  /** Registered with the signal's fan-out (src/leader/abort-fanout.ts) while waiting. */
  onAbort: Abortable | undefined;
  abortSet: Set<Abortable> | undefined;
}

export const noopObserver: BudgetObserver = {
  onConcurrencyChange: () => undefined,
  onInFlight: () => undefined,
  onPauseChange: () => undefined,
};

// Float refills can land a hair under a whole token after sleeping exactly the computed time.
const TOKEN_EPSILON = 1e-9;
const LATENCY_WEIGHT = 0.2;
// A rise of the median response time cuts the window by this factor.
const LATENCY_CUT = 0.8;
// A host-context request in flight this long (or 10 medians, if more) gives its concurrency slot back.
const DETACH_AFTER_MIN_MS = 2_000;
const DETACH_AFTER_MEDIANS = 10;
/**
 * Slow requests given their slots back, at most, in windows (`maxConcurrency` each): what the leader holds open for
 * nodes that do not answer. One window was not enough: with more timing-out nodes than that in flight (15 of a
 * 300-node fleet, test/integration/starved-budget.test.ts), the rest kept their slots, a 429 then cut the window
 * below them, and nothing was sent for seconds, until one timed out (13 healthy nodes' answers 1.5 rounds old).
 */
const DETACHED_WINDOWS = 2;
/**
 * Lane requests (discovery's listings, the leader's own /health) that may be in flight beyond a window full of node
 * polls: whatever node polls hold (slow or dripping answers), the listing is sent. The collectors' reads have
 * priority but no lane: beyond the window they would take the starved fleet's share of the rate.
 */
const PRIORITY_LANE = 2;

/** A granted permit of a host-context request, watched for detaching while it is slow. */
interface Held {
  readonly at: number;
  detached: boolean;
}

/**
 * The request budget of one leader: every request to it (listing, groups, health, metadata, login) takes a
 * permit here first. Three gates, all of which must be open:
 * - a token bucket (`burst`) bounds the rate: at most `maxRps` (which `setRateLimit` may move, e.g. with the fleet
 *   size), lowered on overloads and learnt from a leader's rate limit (src/leader/rate-control.ts);
 * - an AIMD window in [1, maxConcurrency] bounds concurrency: +1 after a good answer while the window is in
 *   use (in-flight ≥ limit/2, as Netflix AIMDLimit), halved on overload (−10 % on a rate limit the rate already
 *   follows), −10 % on timeouts, −20 % when the median response time rises well above its recent baseline (a
 *   slow leader, before it says 429), at most one cut per round of requests (permits granted before a cut do not
 *   cut again). A host-context request that stays in flight far longer than the median (a slow node: the leader
 *   only waits for it) gives its slot back, up to maxConcurrency such requests;
 * - a pause blocks everyone: timed (`pause`, from Retry-After or backoff; only ever extended) or indefinite
 *   (`hold`, while the leader answers 420).
 * Waiters are served first come, first served, those with priority (discovery, the leader's own requests) before the
 * others (node polls): below the fleet's need, node freshness degrades, never the listing. Priority requests also
 * have a lane of their own: up to PRIORITY_LANE of them may be in flight beyond a window that node polls fill (slow
 * nodes, dripping answers), so that discovery is never left waiting for the fleet's answers. Every wait uses the
 * injected Clock.
 */
export class RequestBudget {
  readonly #clock: Clock;
  readonly #deadlines: Watchdog;
  readonly #observer: BudgetObserver;
  #burst: number;
  readonly #maxConcurrency: number;
  readonly #maxWaiters: number;

  // Set keeps insertion order (FIFO) and deletes from the middle in O(1) (deadline, abort). Priority waiters first.
  readonly #urgent = new Set<Waiter>();
  readonly #queue = new Set<Waiter>();
  #tokens: number;
  #lastRefill: number;
  readonly #rates: RateControl;
  #limit: number;
  #inFlight = 0;
  /** Priority permits in flight (among #inFlight). */
  #urgentInFlight = 0;
  #pauseUntil = 0;
  #held = false;
  #closed = false;
  #epoch = 0;
  #latencyMs: number | undefined;
  readonly #wake: Alarm;
  #reported: { paused: boolean; until: number } = { paused: false, until: 0 };
  readonly #latency = new LatencyMonitor();
  readonly #slow = new Set<Held>();
  #detached = 0;
  #pausedMs = 0;
  #pausedSince: number | undefined;
  #heldEndedAt = 0;

  constructor(opts: RequestBudgetOptions) {
    this.#deadlines = new Watchdog(opts.clock);
    this.#wake = new Alarm(opts.clock, () => this.#pump());
    if (!(opts.maxRps > 0)) throw new RangeError(`request budget: maxRps must be > 0, got ${opts.maxRps}`);
    if (!(opts.burst >= 1)) throw new RangeError(`request budget: burst must be >= 1, got ${opts.burst}`);
    if (!(Number.isInteger(opts.maxConcurrency) && opts.maxConcurrency >= 1)) {
      throw new RangeError(`request budget: maxConcurrency must be an integer >= 1, got ${opts.maxConcurrency}`);
    }
    this.#clock = opts.clock;
    this.#observer = opts.observer ?? noopObserver;
    this.#burst = opts.burst;
    this.#maxConcurrency = opts.maxConcurrency;
    this.#maxWaiters = Math.max(0, opts.maxWaiters ?? 10_000);
    this.#limit = clampInt(opts.initialConcurrency ?? Math.min(opts.maxConcurrency, 4), 1, opts.maxConcurrency);
    this.#tokens = opts.burst;
    this.#lastRefill = opts.clock.now();
    this.#observer.onConcurrencyChange(this.#limit);
    this.#observer.onInFlight(0);
    this.#observer.onPauseChange(false, 0);
    const log = opts.logger;
    this.#rates = new RateControl(
      opts.maxRps,
      this.#lastRefill,
      (r) => this.#observer.onRateChange?.(r),
      log ? (l, why) => logDrop(log, l, why, this.#clock.now()) : undefined,
    );
  }

  /**
   * Moves the rate's upper bound and the bucket size (`--leader.max-rps auto` follows the fleet after each
   * discovery). A rate at the old bound follows the new one; a rate lowered by the leader's throttling stays,
   * below the new bound, and recovers as before.
   */
  setRateLimit(maxRps: number, burst: number): void {
    if (!(maxRps > 0) || !(burst >= 1)) throw new RangeError(`request budget: bad rate limit ${maxRps}/${burst}`);
    this.#refill(this.#clock.now());
    this.#rates.setMax(maxRps);
    this.#burst = burst;
    this.#tokens = Math.min(this.#tokens, burst);
    this.#pump();
  }

  /**
   * Waits for a permit. Resolves with a Denial (never rejects) when the deadline passes first, when a pause
   * runs past the deadline, when the leader is held unavailable and there is no deadline to wait for,
   * when `maxWaiters` are already waiting, on abort, or on close.
   */
  acquire(
    opts: { deadline?: number; signal?: AbortSignal; detachable?: boolean; priority?: boolean; lane?: boolean } = {},
  ): Promise<Permit | Denial> {
    const { deadline, signal, detachable = false, priority = false } = opts;
    const useLane = priority && opts.lane === true;
    const lane = priority ? this.#urgent : this.#queue;
    if (this.#closed) return Promise.resolve(deny('closed'));
    if (signal?.aborted) return Promise.resolve(deny('aborted'));
    const now = this.#clock.now();
    // A node poll does not wait out a hold: the leader is not serving, which is what the node's state then says.
    const early = this.#held && detachable ? 'unavailable' : this.#refuseEarly(deadline, now);
    if (early) return Promise.resolve(deny(early));
    // Node polls filling the queue never keep a priority request out.
    const ahead = this.#urgent.size + (priority ? 0 : this.#queue.size);
    if (ahead === 0 && this.#canGrant(now, useLane)) return Promise.resolve(this.#grant(now, detachable, useLane));
    if (ahead >= this.#maxWaiters) return Promise.resolve(deny('queue_full'));

    return new Promise<Permit | Denial>((resolve) => {
      const w: Waiter = {
        detachable,
        priority,
        lane: useLane,
        deadline,
        resolve,
        watch: undefined,
        onAbort: undefined,
        abortSet: undefined,
      };
      lane.add(w);
      // One timer for every waiter's deadline (a timer and an AbortController per waiter, cancelled on
      // every grant, were about 15 % of the exporter's CPU at 5,000 requests/s).
      if (deadline !== undefined)
        w.watch = this.#deadlines.add(deadline - now, () => this.#settle(w, deny(this.#lateReason())));
      if (signal) {
        w.onAbort = { abort: () => this.#settle(w, deny('aborted')) };
        w.abortSet = onAbort(signal, w.onAbort);
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
    this.#rates.resumed(untilMs);
    this.#tokens = 0;
    this.#lastRefill = Math.max(this.#lastRefill, untilMs);
    for (const w of [...this.#urgent, ...this.#queue]) {
      if (w.deadline !== undefined && w.deadline <= untilMs) this.#settle(w, deny('paused'));
    }
    this.#report(now);
    this.#pump();
  }

  /**
   * Blocks every acquisition until `resume()`: the leader is not serving (420). Waiters without a deadline, and
   * node polls (`detachable`), are denied (`unavailable`) at once, and so are later such callers: the hold has no
   * known end, and a node's state meanwhile is that its leader is not serving.
   */
  hold(): void {
    if (this.#closed || this.#held) return;
    this.#held = true;
    for (const w of [...this.#urgent, ...this.#queue]) {
      if (w.deadline === undefined || w.detachable) this.#settle(w, deny('unavailable'));
    }
    this.#report(this.#clock.now());
  }

  /** Ends a hold. A timed pause that is still running keeps running. */
  resume(): void {
    if (this.#closed || !this.#held) return;
    const now = this.#clock.now();
    this.#held = false;
    this.#heldEndedAt = now;
    this.#rates.resumed(Math.max(now, this.#pauseUntil));
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
    const rate = this.#rates.rate;
    if (this.#latencyMs === undefined) return rate;
    return Math.min(rate, (this.#limit * 1000) / Math.max(this.#latencyMs, 1));
  }

  /** True while a pause or hold runs: nothing may be sent, even with a permit granted just before it began. */
  blocked(): boolean {
    return this.#held || this.#clock.now() < this.#pauseUntil;
  }

  /** The current state, for metrics and tests. */
  state(): BudgetState {
    const now = this.#clock.now();
    const timed = now < this.#pauseUntil;
    const learned = this.#rates.learnedLimit(now);
    return {
      limit: this.#limit,
      maxConcurrency: this.#maxConcurrency,
      inFlight: this.#inFlight,
      waiting: this.#urgent.size + this.#queue.size,
      paused: this.#held || timed,
      held: this.#held,
      pauseUntil: this.#held ? Infinity : timed ? this.#pauseUntil : 0,
      rate: this.#rates.rate,
      maxRps: this.#rates.maxRps,
      learnedRps: learned?.rps,
      learned,
      detached: this.#detached,
      latencyMs: this.#latency.median,
      baselineMs: this.#latency.baseline,
      pausedMs: this.#pausedMs + (this.#pausedSince === undefined ? 0 : now - this.#pausedSince),
    };
  }

  /** Denies every waiter (`closed`) and later acquisitions, and stops the budget's timer. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#wake.cancel();
    for (const w of [...this.#urgent, ...this.#queue]) this.#settle(w, deny('closed'));
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

  #canGrant(now: number, lane: boolean): boolean {
    if (this.#held || now < this.#pauseUntil || !this.#hasSlot(lane)) return false;
    this.#refill(now);
    return this.#tokens >= 1 - TOKEN_EPSILON;
  }

  #refill(now: number): void {
    if (now <= this.#lastRefill) return;
    const dt = now - this.#lastRefill;
    this.#tokens = Math.min(this.#bucket(now), this.#tokens + (dt * this.#rates.rate) / 1000);
    this.#lastRefill = now;
    // Only grow while the rate is what holds callers back.
    if (this.#queue.size > 0 || this.#urgent.size > 0) this.#rates.grow(now, dt);
  }

  /**
   * Tokens the bucket holds at most: `burst`, or while a limit learnt from the leader's 429s is in force a tenth of a
   * second of the rate (at least 1): tokens saved while the event loop lagged or the window was full must not go out
   * as a burst that the leader's own bucket refuses (a 429 that then teaches a limit below the leader's).
   */
  #bucket(now: number): number {
    return this.#rates.learned(now) === undefined
      ? this.#burst
      : Math.min(this.#burst, Math.max(1, this.#rates.rate / 10));
  }

  /** A concurrency slot is free: in the window, or (a lane request) in the lane beyond a window node polls fill. */
  #hasSlot(lane: boolean): boolean {
    if (this.#inFlight < this.#limit) return true;
    return lane && this.#urgentInFlight < PRIORITY_LANE;
  }

  #grant(now: number, detachable: boolean, lane: boolean): Permit {
    this.#tokens = Math.max(0, this.#tokens - 1);
    this.#inFlight++;
    if (lane) this.#urgentInFlight++;
    this.#rates.sent(now);
    this.#observer.onInFlight(this.#inFlight);
    const epoch = this.#epoch;
    const held: Held | undefined = detachable ? { at: now, detached: false } : undefined;
    if (held) this.#slow.add(held);
    let released = false;
    return {
      granted: true,
      release: (outcome, hint) => {
        if (released) return;
        released = true;
        if (lane) this.#urgentInFlight--;
        this.#release(outcome, hint, epoch, this.#clock.now() - now, held);
      },
    };
  }

  #release(
    outcome: ReleaseOutcome,
    hint: ReleaseHint | undefined,
    epoch: number,
    latencyMs: number,
    held: Held | undefined,
  ): void {
    const inFlightBefore = this.#inFlight;
    if (held) this.#slow.delete(held);
    if (held?.detached) this.#detached--;
    else {
      this.#inFlight--;
      this.#observer.onInFlight(this.#inFlight);
    }
    if (outcome !== 'neutral') {
      this.#latencyMs =
        this.#latencyMs === undefined ? latencyMs : this.#latencyMs + LATENCY_WEIGHT * (latencyMs - this.#latencyMs);
    }
    // A window whose median rose well above the baseline: the leader slows down before it says 429.
    const answered = outcome === 'ok' || outcome === 'node_timeout';
    if (answered && this.#latency.add(latencyMs) && epoch === this.#epoch) {
      this.#epoch++;
      this.#setLimit(Math.floor(this.#limit * LATENCY_CUT));
    }
    if (outcome === 'ok') {
      this.#rates.accepted(this.#clock.now());
      const inUse = inFlightBefore * 2 >= this.#limit;
      if (inUse && !this.#latency.rising && this.#limit < this.#maxConcurrency) this.#setLimit(this.#limit + 1);
    } else if (outcome === 'overload' || outcome === 'timeout') {
      // Requests sent before the last cut saw the same congestion; one cut per round is enough.
      if (epoch === this.#epoch) {
        this.#epoch++;
        const learn = outcome === 'overload' && hint === 'limit';
        this.#setLimit(Math.floor(this.#limit * (outcome === 'overload' && !learn ? 0.5 : 0.9)));
        if (outcome === 'overload') this.#rates.overload(this.#clock.now(), learn);
      }
    }
    if (!this.#closed) this.#pump();
  }

  /**
   * Frees the concurrency slots of host-context requests in flight for far longer than the leader's median
   * (a slow node: the leader merely waits for it), so that a few slow nodes cannot block the window. Returns the
   * time the next one becomes slow, when some could still be detached.
   */
  #detachSlow(now: number): number | undefined {
    if (this.#slow.size === 0 || this.#detached >= DETACHED_WINDOWS * this.#maxConcurrency) return undefined;
    const after = Math.max(DETACH_AFTER_MIN_MS, DETACH_AFTER_MEDIANS * (this.#latency.median ?? 0));
    let next: number | undefined;
    for (const h of this.#slow) {
      if (h.detached) continue;
      if (now - h.at >= after) {
        if (this.#detached >= DETACHED_WINDOWS * this.#maxConcurrency) return undefined;
        h.detached = true;
        this.#detached++;
        this.#inFlight--;
        this.#observer.onInFlight(this.#inFlight);
      } else if (next === undefined || h.at + after < next) next = h.at + after;
    }
    return next;
  }

  #setLimit(limit: number): void {
    const next = clampInt(limit, 1, this.#maxConcurrency);
    if (next === this.#limit) return;
    this.#limit = next;
    this.#observer.onConcurrencyChange(next);
  }

  /** Grants permits to waiters in order, priority first, while every gate is open; otherwise arranges to look again. */
  #pump(): void {
    if (this.#closed) return;
    const now = this.#clock.now();
    this.#report(now);
    if (this.#serve(this.#urgent, now)) this.#serve(this.#queue, now);
    // Also without waiters: the end of a pause must be reported.
    if (!this.#held && now < this.#pauseUntil) this.#wake.set(this.#pauseUntil);
  }

  /** Grants permits to one lane's waiters in order; false when a gate closed before the lane was empty. */
  #serve(lane: Set<Waiter>, now: number): boolean {
    for (const w of lane) {
      if (this.#held || now < this.#pauseUntil) return false;
      if (!this.#hasSlot(w.lane)) {
        const next = this.#detachSlow(now);
        if (!this.#hasSlot(w.lane)) {
          if (next !== undefined) this.#wake.set(next);
          return false;
        }
      }
      this.#refill(now);
      if (this.#tokens < 1 - TOKEN_EPSILON) {
        this.#wake.set(now + Math.ceil(((1 - this.#tokens) * 1000) / this.#rates.rate));
        return false;
      }
      this.#settle(w, this.#grant(now, w.detachable, w.lane));
    }
    return true;
  }

  #settle(w: Waiter, result: Permit | Denial): void {
    if (!(w.priority ? this.#urgent : this.#queue).delete(w)) return;
    if (w.watch) this.#deadlines.remove(w.watch);
    if (w.abortSet && w.onAbort) w.abortSet.delete(w.onAbort);
    w.resolve(result);
  }

  #report(now: number): void {
    const paused = this.#held || now < this.#pauseUntil;
    const until = this.#held ? Infinity : paused ? this.#pauseUntil : 0;
    if (paused === this.#reported.paused && until === this.#reported.until) return;
    if (paused && this.#pausedSince === undefined) this.#pausedSince = now;
    if (!paused && this.#pausedSince !== undefined) {
      // A timed pause ended at its end and a hold at resume(), even when this report comes later.
      const since = this.#pausedSince;
      const timedEnd = this.#pauseUntil > since ? Math.min(now, this.#pauseUntil) : since;
      const heldEnd = this.#heldEndedAt > since ? this.#heldEndedAt : since;
      this.#pausedMs += Math.max(timedEnd, heldEnd) - since;
      this.#pausedSince = undefined;
    }
    this.#reported = { paused, until };
    this.#observer.onPauseChange(paused, until);
  }
}

/** One line when a learned limit is dropped: the rate goes back to its bound (or the need) as demand asks. */
function logDrop(log: Logger, l: LearnedLimit, why: LearnedDrop, now: number): void {
  log.info(
    { learnedRps: Math.round(l.rps * 10) / 10, learnedAt: new Date(l.at).toISOString(), why },
    why === 'probed'
      ? `the leader's rate limit learnt from its 429s (${Math.round(l.rps)} requests/s) is dropped: it accepted ` +
          `every request while the rate was raised back to --leader.max-rps, ` +
          `${Math.round((now - l.at) / 1000)} s after its last 429`
      : `the leader's rate limit learnt from its 429s (${Math.round(l.rps)} requests/s) is dropped: no 429 for ` +
          `${Math.round((now - l.at) / 60_000)} minutes`,
  );
}

function deny(denied: DenyReason): Denial {
  return { granted: false, denied };
}

function clampInt(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.floor(n)));
}
