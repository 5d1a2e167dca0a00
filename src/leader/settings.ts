/** The configured request budget and per-request limits of one leader (built by src/config/). */
export interface BudgetConfig extends Omit<LeaderClientLimits, 'healthProbeMaxMs' | 'maxAttempts'> {
  /** A pinned rate, or `auto`: what the fleet needs, bounded by `maxRpsCeiling` (src/polling/rate.ts). */
  maxRps: number | 'auto';
  maxRpsCeiling: number;
  /** Token bucket size; undefined: one second of the rate in force. */
  burst: number | undefined;
  maxConcurrency: number;
}

/** Per-request limits and retry pacing of a leader client (defaults: DEFAULT_CLIENT_LIMITS). */
export interface LeaderClientLimits {
  /** Time to connect; with `headersTimeoutMs` it bounds the wait for response headers. */
  connectTimeoutMs: number;
  /** Time from sending to the response headers. */
  headersTimeoutMs: number;
  /** Longest silence between two chunks of the body (as --leader.timeout.body). */
  bodyTimeoutMs: number;
  /** Larger bodies fail the request (reason `too_large`). */
  maxResponseBytes: number;
  /** The same for a node's health and metadata (host context, `/w/{id}/…`), at most `maxResponseBytes`. */
  maxNodeResponseBytes: number;
  /** Backoff for retries of 502, 504, timeouts and connection errors, and for 429/503 without Retry-After. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** First GET /health probe after a 420; doubles up to `healthProbeMaxMs` (15 s, or the interval when longer). */
  healthProbeIntervalMs: number;
  healthProbeMaxMs: number;
  /** Tries per request, the first included (a 401 refresh is not counted). */
  maxAttempts: number;
  /** Longest pause a leader's Retry-After may impose (longer ones are cut to this). */
  maxPauseMs: number;
}

/**
 * A node's health or metadata body (host context) must end this long after its headers, whatever its chunks: one
 * that drips is a `timeout` then, and its concurrency slot is free. Such bodies are a few KB, sent at once.
 */
export const NODE_BODY_DEADLINE_MS = 5_000;

/** The 420 hold's probe never backs off past this (it is one anonymous GET /health): a serving leader is seen soon. */
export const HEALTH_PROBE_MAX_MS = 15_000;

export const DEFAULT_CLIENT_LIMITS: Readonly<LeaderClientLimits> = Object.freeze({
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
  maxResponseBytes: 64 * 1024 * 1024,
  maxNodeResponseBytes: 256 * 1024,
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  healthProbeIntervalMs: 5_000,
  healthProbeMaxMs: HEALTH_PROBE_MAX_MS,
  maxAttempts: 4,
  maxPauseMs: 600_000,
});

/** Client limits from a leader's configured budget settings (the budget's own four are not limits). */
export function clientLimitsFromConfig(b: BudgetConfig): LeaderClientLimits {
  const { maxRps: _rps, maxRpsCeiling: _ceiling, burst: _burst, maxConcurrency: _concurrency, ...limits } = b;
  return {
    ...DEFAULT_CLIENT_LIMITS,
    ...limits,
    healthProbeMaxMs: Math.max(b.healthProbeIntervalMs, HEALTH_PROBE_MAX_MS),
  };
}
