/**
 * The rate half of the request budget: the token rate in force, how it drops when the leader says it is
 * overloaded, how it learns a leader's rate limit from its 429s and how it recovers. The token bucket that spends
 * this rate is src/leader/budget.ts.
 */
import { SendMeter } from './meters.js';

// After an overload the rate creeps back up by this share of maxRps per second of saturated demand:
// slow on purpose, so that a leader at its limit sees a rare 429, not a sawtooth of them.
const RATE_RECOVERY_PER_S = 0.01;
const RATE_FLOOR_SHARE = 0.01;
// A leader's limit is what it accepted per second over the last seconds of sending before its 429 (at least this
// long since sending resumed; the meter holds 3 s): its rate, plus what its bucket still held.
const LEARN_MEASURE_MS = 2_000;
const LEARN_WINDOW_MS = 10_000;
// After a 429 (or 503 with Retry-After) the rate resumes this far below the learned limit...
const LEARN_RESUME = 0.95;
// ...returns (this share of the learned rate per second) to just below it, and stays there for LEARN_HOLD_MS:
// against a leader with Retry-After 2 s every 429 costs 2 s of its capacity, 10 % of a 20 s window, so probing past
// a known limit often costs more than it can find. A limit a little above the leader's drains its bucket slowly:
// the next 429 measures it again, and the rate settles below it.
const LEARN_RETURN_PER_S = 0.02;
const LEARN_CAP = 0.97;
// Then it probes upward, by this share of the rate per second (compounding: from a fifth of the need back to it in
// about 35 s), until the next 429 measures the limit anew. How long it stays first: LEARN_HOLD_MIN_MS after a limit
// first learnt, doubled each time a probe ends in a 429 (it found a limit), up to LEARN_HOLD_MAX_MS. A throttle
// that stopped then costs well under 2 minutes of slow refreshes, and a leader whose limit stays is probed at most
// every 5 minutes after a few probes, each probe one 429 and one Retry-After (BENCHMARKS.md, "Leader-imposed rate
// limit").
const LEARN_HOLD_MIN_MS = 20_000;
const LEARN_HOLD_MAX_MS = 5 * 60_000;
const LEARN_PROBE_PER_S = 0.05;
// A 429 while requests went out below this share of the rate in force is a burst refused, not a rate measured.
const DEMAND_LIMITED = 0.5;
// A learned limit is forgotten this long after its last 429 (the status page, `learnedRps`), or as soon as probing
// takes the rate back to its bound.
const LEARN_MEMORY_MS = 10 * 60_000;
// Reports of the rate in force are skipped for changes smaller than this share.
const RATE_REPORT_STEP = 0.01;

/** A learned limit, as the status page and the log tell it. */
export interface LearnedLimit {
  /** The leader's limit (requests per second) as its last 429 measured it. */
  rps: number;
  /** When that 429 came (epoch ms). */
  at: number;
  /** When the rate starts probing upward past it, demand permitting (epoch ms). */
  probeFrom: number;
  /** When it is forgotten at the latest, without a 429 before (epoch ms); probing back to the bound drops it sooner. */
  until: number;
}

/** Why a learned limit was dropped. */
export type LearnedDrop = 'probed' | 'expired';

/**
 * The token rate of one leader's budget. Starts at `maxRps`. On a rate limit (429, or 503 with Retry-After) it
 * resumes just below what the leader accepted per second over the last seconds (its limit), returns to just below
 * that and stays for a while, then probes upward (`#learn`); the limit is dropped when probing takes the rate back to
 * its bound, or 10 minutes after its last 429. On other overloads it drops to what the leader accepted since the
 * previous overload (50–90 % of the rate) and creeps back by 1 % of maxRps per second.
 */
export class RateControl {
  #maxRps: number;
  #rate: number;
  #okSinceCut = 0;
  #lastCutAt: number;
  /** When sending last resumed after a pause or hold (the send rate is measured from here). */
  #resumedAt: number;
  /** The one before: a 429 pauses the budget before it is learned from, which moves #resumedAt past it. */
  #previousResumedAt: number;
  #learned: { rps: number; at: number } | undefined;
  /** How long the rate stays below the learned limit before probing (doubles with each probe that finds it). */
  #holdMs = LEARN_HOLD_MIN_MS;
  readonly #sends = new SendMeter();
  readonly #accepts = new SendMeter(LEARN_WINDOW_MS / 100);
  #reported = 0;
  readonly #onChange: (rps: number) => void;
  readonly #onDrop: ((l: LearnedLimit, why: LearnedDrop) => void) | undefined;

  constructor(
    maxRps: number,
    now: number,
    onChange: (rps: number) => void,
    onDrop?: (l: LearnedLimit, why: LearnedDrop) => void,
  ) {
    this.#maxRps = maxRps;
    this.#rate = maxRps;
    this.#lastCutAt = now;
    this.#resumedAt = now;
    this.#previousResumedAt = now;
    this.#onChange = onChange;
    this.#onDrop = onDrop;
    this.#report(true);
  }

  /** The rate in force (requests per second). */
  get rate(): number {
    return this.#rate;
  }

  get maxRps(): number {
    return this.#maxRps;
  }

  /** The leader's rate limit as last learned from its 429s, while that is remembered. */
  learned(now: number): number | undefined {
    return this.learnedLimit(now)?.rps;
  }

  /** The learned limit with when probing starts and when it is forgotten; dropped (and told) once it expired. */
  learnedLimit(now: number): LearnedLimit | undefined {
    const l = this.#learned;
    if (!l) return undefined;
    const told = { ...l, probeFrom: l.at + this.#holdMs, until: l.at + LEARN_MEMORY_MS };
    if (now < told.until) return told;
    this.#drop(told, 'expired');
    return undefined;
  }

  #drop(l: LearnedLimit, why: LearnedDrop): void {
    this.#learned = undefined;
    this.#holdMs = LEARN_HOLD_MIN_MS;
    this.#onDrop?.(l, why);
  }

  /** A new upper bound: a rate at the old bound follows it; a rate lowered by the leader stays below it. */
  setMax(maxRps: number): void {
    const atMax = this.#rate >= this.#maxRps;
    this.#maxRps = maxRps;
    this.#rate = atMax ? maxRps : Math.min(this.#rate, maxRps);
    this.#report(true);
  }

  /** A request was sent. */
  sent(now: number): void {
    this.#sends.add(now);
  }

  /** The leader answered a request (not an overload). */
  accepted(now: number): void {
    this.#okSinceCut++;
    this.#accepts.add(now);
  }

  /** Sending resumes at `at` after a pause or hold. */
  resumed(at: number): void {
    this.#previousResumedAt = this.#resumedAt;
    this.#resumedAt = at;
  }

  /** `dtMs` passed while callers were waiting for the rate: grow back towards the bound. */
  grow(now: number, dtMs: number): void {
    if (this.#rate >= this.#maxRps) return;
    const l = this.learnedLimit(now);
    const learned = l?.rps;
    if (l === undefined || learned === undefined) {
      this.#rate = Math.min(this.#maxRps, this.#rate + (this.#maxRps * RATE_RECOVERY_PER_S * dtMs) / 1000);
    } else if (now >= l.probeFrom) {
      this.#rate = Math.min(this.#maxRps, this.#rate * (1 + (LEARN_PROBE_PER_S * dtMs) / 1000));
      // The leader took all of it: there is no limit below the bound to remember.
      if (this.#rate >= this.#maxRps) this.#drop(l, 'probed');
    } else if (this.#rate < learned * LEARN_CAP) {
      const next = this.#rate + (learned * LEARN_RETURN_PER_S * dtMs) / 1000;
      this.#rate = Math.min(this.#maxRps, learned * LEARN_CAP, next);
    }
    this.#report(false);
  }

  /** The leader said it is overloaded; `limit` when it was a 429 or a 503 with Retry-After. */
  overload(now: number, limit: boolean): void {
    if (limit) this.#learn(now);
    else this.#cut(now);
    this.#okSinceCut = 0;
    this.#lastCutAt = now;
    this.#report(true);
  }

  /**
   * A rate limit answered. Its limit is what it accepted per second over the last seconds of sending (measured over
   * 2–3 s since sending last resumed), never more than the rate requests went out at: the rate resumes just below it,
   * returns to just below that, stays (20 s, doubling with each probe that ends in a 429, up to 5 minutes),
   * then probes upward. A 429 too soon after resuming to measure
   * (the leader's bucket had not refilled) resumes below the limit already learned, or, before any, at half the send
   * rate. A 429 while sending far below the rate in force (DEMAND_LIMITED) is a refused burst: nothing is learned.
   * (Against 40 requests/s, bucket 10, Retry-After 2 s, a fleet needing twice that: ≥ 90 % accepted in every 20 s
   * window after 30 s, test/leader/budget-adaptive.test.ts; against a real rate limit: BENCHMARKS.md, "Leader-imposed
   * rate limit".)
   */
  #learn(now: number): void {
    const since = this.#resumedAt > now ? this.#previousResumedAt : this.#resumedAt;
    const sendRate = this.#sends.rate(now, since);
    if (sendRate !== undefined && sendRate < this.#rate * DEMAND_LIMITED) {
      // Sending well below the rate in force, the leader refused a burst, not a rate: what it accepted is our
      // demand, not its limit (20 nodes need 0.7/s; learning that would starve them). Spread the bursts instead.
      this.#rate = Math.max(Math.min(this.#rate, sendRate * 2), this.#maxRps * RATE_FLOOR_SHARE);
      return;
    }
    const sent = Math.min(this.#rate, sendRate ?? this.#rate);
    const measured = this.#accepts.rate(now, since, LEARN_MEASURE_MS);
    const previous = this.learned(now);
    const limit =
      measured !== undefined ? Math.min(sent, measured) : previous !== undefined ? Math.min(sent, previous) : undefined;
    if (limit === undefined) {
      this.#rate = Math.max(sent * 0.5, this.#maxRps * RATE_FLOOR_SHARE);
      return;
    }
    // A probe that ended in a 429 found a limit: probe half as often. (A 429 while holding below the limit is a
    // lower limit, a throttle: the hold stays as it is.) A limit dropped starts again from LEARN_HOLD_MIN_MS.
    const l = this.#learned;
    if (l !== undefined && previous !== undefined && now >= l.at + this.#holdMs)
      this.#holdMs = Math.min(LEARN_HOLD_MAX_MS, this.#holdMs * 2);
    this.#learned = { rps: limit, at: now };
    this.#rate = Math.max(limit * LEARN_RESUME, this.#maxRps * RATE_FLOOR_SHARE);
  }

  /** Lowers the rate towards what the leader accepted since the previous overload. */
  #cut(now: number): void {
    const accepted = (this.#okSinceCut * 1000) / Math.max(now - this.#lastCutAt, 1);
    const next = Math.min(this.#rate * 0.9, Math.max(this.#rate * 0.5, accepted));
    this.#rate = Math.max(next, this.#maxRps * RATE_FLOOR_SHARE);
  }

  #report(force: boolean): void {
    const r = this.#rate;
    if (!force && Math.abs(r - this.#reported) < this.#reported * RATE_REPORT_STEP) return;
    this.#reported = r;
    this.#onChange(r);
  }
}
