/**
 * Measurements the request budget adapts to: the leader's median response time against its recent baseline,
 * and the rate at which requests were actually sent over the last seconds.
 */

/** Responses per median: small enough to react within a second at a few dozen requests/s, big enough to be stable. */
const LATENCY_WINDOW = 32;
/** A median this many times the baseline (and LATENCY_RISE_MIN_MS above it) is a rise. */
const LATENCY_RISE_FACTOR = 2;
/**
 * Below this much above the baseline a rise is noise, whatever the factor (a leader answering in 2 ms that
 * answers in 5 ms is not overloaded).
 */
const LATENCY_RISE_MIN_MS = 25;
/** How fast the baseline follows a higher median (per window); a lower median replaces it at once. */
const BASELINE_FOLLOW = 0.1;

/**
 * The leader's median response time over windows of LATENCY_WINDOW answers, and its baseline: the lowest
 * recent median, drifting up slowly when the leader stays slower (so a leader that is slower for good stops
 * being cut after a while).
 */
export class LatencyMonitor {
  readonly #window = new Float64Array(LATENCY_WINDOW);
  #n = 0;
  #median: number | undefined;
  #baseline: number | undefined;
  #rising = false;

  /** Adds one response time; true when it completed a window whose median rose well above the baseline. */
  add(ms: number): boolean {
    this.#window[this.#n++] = ms;
    if (this.#n < LATENCY_WINDOW) return false;
    this.#n = 0;
    // Sorting 32 numbers once per 32 answers: far cheaper than the answers themselves.
    const sorted = this.#window.slice().sort();
    const median = ((sorted[LATENCY_WINDOW / 2 - 1] ?? 0) + (sorted[LATENCY_WINDOW / 2] ?? 0)) / 2;
    this.#median = median;
    const base = this.#baseline;
    this.#rising = base !== undefined && median > base * LATENCY_RISE_FACTOR && median > base + LATENCY_RISE_MIN_MS;
    if (base === undefined || median < base) this.#baseline = median;
    else this.#baseline = base + BASELINE_FOLLOW * (median - base);
    return this.#rising;
  }

  /** Median of the last complete window (ms), once there is one. */
  get median(): number | undefined {
    return this.#median;
  }

  /** The baseline median (ms), once there is one. */
  get baseline(): number | undefined {
    return this.#baseline;
  }

  /** True while the last window's median was a rise. */
  get rising(): boolean {
    return this.#rising;
  }
}

/** Width of one bucket of the send meter. */
const BUCKET_MS = 100;
/** Buckets kept: the send rate is measured over the last BUCKETS × BUCKET_MS at most. */
const BUCKETS = 30;

/** Counts events (sends, or answers) in 100 ms buckets over the last 3 s (or `buckets` × 100 ms). */
export class SendMeter {
  readonly #counts: Float64Array;
  readonly #slots: Float64Array;

  constructor(buckets = BUCKETS) {
    this.#counts = new Float64Array(buckets);
    this.#slots = new Float64Array(buckets).fill(-1);
  }

  /** One request sent at `now`. */
  add(now: number): void {
    const slot = Math.floor(now / BUCKET_MS);
    const i = slot % this.#counts.length;
    if (this.#slots[i] !== slot) {
      this.#slots[i] = slot;
      this.#counts[i] = 0;
    }
    this.#counts[i]!++;
  }

  /**
   * Requests per second sent from `since` (clamped to the last 3 s) to `now`, or undefined when that span is
   * shorter than `minSpanMs` (too short to say).
   */
  rate(now: number, since: number, minSpanMs = 300): number | undefined {
    const n = this.#counts.length;
    const first = Math.floor(Math.max(since, now - (n - 1) * BUCKET_MS) / BUCKET_MS);
    const span = now - first * BUCKET_MS;
    if (span < minSpanMs) return undefined;
    let sent = 0;
    for (let i = 0; i < n; i++) if (this.#slots[i]! >= first) sent += this.#counts[i]!;
    return (sent * 1000) / span;
  }
}
