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
// After a 429 (or 503 with Retry-After) the rate resumes this far below the learned limit...
const LEARN_RESUME = 0.95;
// ...returns quickly (this share of the learned rate per second) to just below it...
const LEARN_RETURN_PER_S = 0.02;
const LEARN_NEAR = 0.98;
// ...and probes past it slowly: a leader whose bucket holds one second of its rate sees one 429 in ~20 s.
const LEARN_PROBE_PER_S = 0.002;
// A learned limit older than this is forgotten (the rate then recovers as after any overload).
const LEARN_MEMORY_MS = 10 * 60_000;
// An estimate from the answers since the previous 429 counts only over at least this span...
const LEARN_MIN_SPAN_MS = 1_000;
// ...and replaces the send rate as the learned limit only over at least this span (over shorter ones the pause
// that follows a 429 weighs too much in it).
const LEARN_TRUST_SPAN_MS = 10_000;
// Reports of the rate in force are skipped for changes smaller than this share.
const RATE_REPORT_STEP = 0.01;

/**
 * The token rate of one leader's budget. Starts at `maxRps`. On a rate limit (429, or 503 with Retry-After) it
 * resumes a little below the rate at which requests were going out, returns quickly to just below that learned
 * limit and probes past it slowly (measured against a token-bucket leader: ≥ 90 % of its limit accepted, < 1 %
 * answered 429; test/leader/budget-adaptive.test.ts). On other overloads it drops to what the leader accepted since
 * the previous overload (50–90 % of the rate) and creeps back by 1 % of maxRps per second.
 */
export class RateControl {
  #maxRps: number;
  #rate: number;
  #okSinceCut = 0;
  #lastCutAt: number;
  /** When sending last resumed after a pause or hold (the send rate is measured from here). */
  #resumedAt: number;
  #learned: { rps: number; at: number } | undefined;
  #lastLimitAt: number | undefined;
  readonly #sends = new SendMeter();
  #reported = 0;
  readonly #onChange: (rps: number) => void;

  constructor(maxRps: number, now: number, onChange: (rps: number) => void) {
    this.#maxRps = maxRps;
    this.#rate = maxRps;
    this.#lastCutAt = now;
    this.#resumedAt = now;
    this.#onChange = onChange;
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
    const l = this.#learned;
    return l && now - l.at < LEARN_MEMORY_MS ? l.rps : undefined;
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
  accepted(): void {
    this.#okSinceCut++;
  }

  /** Sending resumes at `at` after a pause or hold. */
  resumed(at: number): void {
    this.#resumedAt = at;
  }

  /** `dtMs` passed while callers were waiting for the rate: grow back towards the bound. */
  grow(now: number, dtMs: number): void {
    if (this.#rate >= this.#maxRps) return;
    const learned = this.learned(now);
    const perS =
      learned === undefined
        ? this.#maxRps * RATE_RECOVERY_PER_S
        : learned * (this.#rate < learned * LEARN_NEAR ? LEARN_RETURN_PER_S : LEARN_PROBE_PER_S);
    this.#rate = Math.min(this.#maxRps, this.#rate + (perS * dtMs) / 1000);
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
   * A rate limit answered. Resume a little below the rate at which requests were going out when it came, or,
   * since the previous such answer, at what the leader accepted per second over that whole round of pause and
   * sending when that is lower (its bucket let no more through); never below half the send rate. Over a long enough
   * round that estimate is the learned limit, else the send rate is: the rate returns quickly to just below it and
   * then probes past it slowly.
   */
  #learn(now: number): void {
    const sent = Math.min(this.#rate, this.#sends.rate(now, this.#resumedAt) ?? this.#rate);
    const span = now - this.#lastCutAt;
    const previous = this.#lastLimitAt !== undefined && now - this.#lastLimitAt < LEARN_MEMORY_MS;
    const accepted = previous && span >= LEARN_MIN_SPAN_MS ? (this.#okSinceCut * 1000) / span : undefined;
    const resume =
      accepted === undefined ? sent * LEARN_RESUME : Math.max(sent * 0.5, Math.min(sent * LEARN_RESUME, accepted));
    this.#rate = Math.max(resume, this.#maxRps * RATE_FLOOR_SHARE);
    const trusted = accepted !== undefined && span >= LEARN_TRUST_SPAN_MS && accepted >= sent * 0.5;
    this.#learned = { rps: trusted ? Math.min(sent, accepted / LEARN_RESUME) : sent, at: now };
    this.#lastLimitAt = now;
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
