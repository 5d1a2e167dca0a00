/** Request statistics of the simulator, as GET /_sim/stats serves them. */
export interface SimulatorStats {
  /** Epoch ms when the simulator started (windows count from here). */
  startedAt: number;
  uptimeMs: number;
  totalRequests: number;
  /** route template (or "(unmatched)") → status code (or "reset" for a dropped connection) → count. */
  requests: Record<string, Record<string, number>>;
  inFlight: number;
  peakConcurrent: number;
  /** Answers that carried a Retry-After header. */
  retryAfterSent: number;
  /** Requests that arrived while a Retry-After sent to the same client was still running. */
  retryAfterViolations: number;
  /** Same, per client: "token:<12 hex of sha256(token)>" for bearer requests, "addr:<ip>" otherwise. */
  retryAfterViolationsByClient: Record<string, number>;
  /**
   * Faults injected so far, by kind (ratelimit, login-ratelimit, unavailable, leader-420, reset, truncated, malformed,
   * oversized, drip, slow).
   */
  faultsInjected: Record<string, number>;
  /** Epoch ms the counters count from: the start, or the last reset. */
  since: number;
  /** Milliseconds since `since`. */
  elapsedMs: number;
  /** Finished requests by status over every route (HTTP codes, "reset", "aborted"). */
  statuses: Record<string, number>;
  /** Requests answered with an HTTP status other than 429, since `since`. */
  accepted: number;
  /** Requests answered 429 since `since`. */
  rateLimited: number;
  /** accepted / elapsed seconds (0 before any time has passed). */
  acceptedPerSecond: number;
  /** rateLimited / answered requests (0 when none). */
  share429: number;
  /**
   * Per whole second of the clock (epoch seconds), the last 600 seconds with traffic: requests finished, accepted
   * and rate-limited. For limits over any one-second window.
   */
  perSecond: { second: number; requests: number; accepted: number; rateLimited: number }[];
}

/** Seconds of per-second history kept. */
const PER_SECOND_KEPT = 600;

/** Counts requests; cheap on the hot path (two map lookups per request). */
export class StatsRecorder {
  readonly #now: () => number;
  readonly #startedAt: number;
  #requests = new Map<string, Map<string, number>>();
  #total = 0;
  #inFlight = 0;
  #peak = 0;
  #retryAfterSent = 0;
  #violations = 0;
  #violationsByClient = new Map<string, number>();
  #faults = new Map<string, number>();
  /** client → epoch ms until which its last Retry-After runs. */
  readonly #retryUntil = new Map<string, number>();
  #checks = 0;
  #since: number;
  #accepted = 0;
  #rateLimited = 0;
  #perSecond = new Map<number, { second: number; requests: number; accepted: number; rateLimited: number }>();

  constructor(now: () => number) {
    this.#now = now;
    this.#startedAt = now();
    this.#since = this.#startedAt;
  }

  /** A request arrived. */
  begin(): void {
    this.#total++;
    if (++this.#inFlight > this.#peak) this.#peak = this.#inFlight;
  }

  /** A request finished (answered or dropped). */
  end(route: string, status: string): void {
    this.#inFlight--;
    let byStatus = this.#requests.get(route);
    if (!byStatus) this.#requests.set(route, (byStatus = new Map<string, number>()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    const second = Math.floor(this.#now() / 1000);
    let bucket = this.#perSecond.get(second);
    if (!bucket) {
      this.#perSecond.set(second, (bucket = { second, requests: 0, accepted: 0, rateLimited: 0 }));
      if (this.#perSecond.size > PER_SECOND_KEPT) this.#perSecond.delete(this.#perSecond.keys().next().value as number);
    }
    bucket.requests++;
    if (status === '429') {
      this.#rateLimited++;
      bucket.rateLimited++;
    } else if (/^\d{3}$/.test(status)) {
      this.#accepted++;
      bucket.accepted++;
    }
  }

  /** A fault was injected. */
  fault(kind: string): void {
    this.#faults.set(kind, (this.#faults.get(kind) ?? 0) + 1);
  }

  /** True when some client has a Retry-After running (so the caller must compute client keys). */
  get watching(): boolean {
    if (this.#retryUntil.size === 0) return false;
    // Clients that never come back would otherwise keep every request paying for client keys.
    if (++this.#checks % 1024 === 0) {
      const now = this.#now();
      for (const [client, until] of this.#retryUntil) if (until <= now) this.#retryUntil.delete(client);
    }
    return this.#retryUntil.size > 0;
  }

  /** Counts a violation when `client` is still inside a Retry-After we sent it. */
  checkRetryAfter(client: string): void {
    const until = this.#retryUntil.get(client);
    if (until === undefined) return;
    if (this.#now() < until) {
      this.#violations++;
      this.#violationsByClient.set(client, (this.#violationsByClient.get(client) ?? 0) + 1);
    } else {
      this.#retryUntil.delete(client);
    }
  }

  /** We told `client` to come back no earlier than `until` (epoch ms). */
  sentRetryAfter(client: string, until: number): void {
    this.#retryAfterSent++;
    const prev = this.#retryUntil.get(client) ?? 0;
    this.#retryUntil.set(client, Math.max(prev, until));
  }

  /** Clears the counters; Retry-After periods still running keep running. */
  reset(): void {
    this.#requests = new Map();
    this.#total = 0;
    this.#peak = this.#inFlight;
    this.#retryAfterSent = 0;
    this.#violations = 0;
    this.#violationsByClient = new Map();
    this.#faults = new Map();
    this.#since = this.#now();
    this.#accepted = 0;
    this.#rateLimited = 0;
    this.#perSecond = new Map();
  }

  /** A JSON-ready copy. */
  snapshot(): SimulatorStats {
    const requests: Record<string, Record<string, number>> = {};
    const statuses: Record<string, number> = {};
    for (const [route, byStatus] of this.#requests) {
      requests[route] = Object.fromEntries(byStatus);
      for (const [status, n] of byStatus) statuses[status] = (statuses[status] ?? 0) + n;
    }
    const now = this.#now();
    const elapsedMs = now - this.#since;
    const answered = this.#accepted + this.#rateLimited;
    return {
      startedAt: this.#startedAt,
      uptimeMs: now - this.#startedAt,
      totalRequests: this.#total,
      requests,
      inFlight: this.#inFlight,
      peakConcurrent: this.#peak,
      retryAfterSent: this.#retryAfterSent,
      retryAfterViolations: this.#violations,
      retryAfterViolationsByClient: Object.fromEntries(this.#violationsByClient),
      faultsInjected: Object.fromEntries(this.#faults),
      since: this.#since,
      elapsedMs,
      statuses,
      accepted: this.#accepted,
      rateLimited: this.#rateLimited,
      acceptedPerSecond: elapsedMs > 0 ? (this.#accepted * 1000) / elapsedMs : 0,
      share429: answered > 0 ? this.#rateLimited / answered : 0,
      perSecond: [...this.#perSecond.values()],
    };
  }
}
