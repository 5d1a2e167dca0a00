import type { Random } from '@cribl-exporter/api/clock';

/** Inputs of one backoff computation. */
export interface BackoffInput {
  /** 1 for the first retry, 2 for the second, … */
  attempt: number;
  /** Upper bound of the first delay. */
  baseMs: number;
  /** Upper bound of every delay. */
  capMs: number;
  /** Uniform in [0, 1). */
  random: Random;
}

/**
 * Capped exponential backoff with full jitter (AWS "Exponential Backoff and Jitter"): a uniform delay in
 * [0, min(capMs, baseMs · 2^(attempt−1))). Full jitter spreads retries of many clients best.
 */
export function backoffDelay({ attempt, baseMs, capMs, random }: BackoffInput): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  if (!(ceiling > 0)) return 0;
  // Clamp a misbehaving random source into [0, 1) so the delay stays within its bounds.
  const r = Math.min(Math.max(random(), 0), 1 - Number.EPSILON);
  return Math.floor(r * ceiling);
}

/**
 * Delay before the next try: the server's delay when it gave one, exactly (never shortened, never capped,
 * no jitter: it knows its own state); otherwise `backoffDelay`.
 */
export function retryDelay(input: BackoffInput & { serverDelayMs: number | undefined }): number {
  if (input.serverDelayMs !== undefined) return input.serverDelayMs;
  return backoffDelay(input);
}
