import type { Logger } from 'pino';
import type { Clock } from '@cribl-exporter/api/clock';
import { AuthError } from './errors.js';
import type { AuthMetrics, AuthMode, AuthProvider } from './types.js';

/** A freshly obtained token and when it expires (epoch ms; the fetcher applies any fallback TTL). */
export interface ObtainedToken {
  token: string;
  expiresAt: number;
}

/** When to renew and how long to wait after a failure. */
const timing = {
  /** Renew at most this long before expiry… */
  renewBeforeMaxMs: 60_000,
  /** …or this fraction of the token's lifetime before it, whichever is smaller. */
  renewBeforeFraction: 0.1,
  /** Wait after a failed attempt, doubled per consecutive failure. */
  minRetryDelayMs: 5_000,
  /** Cap of that wait; keeps wrong passwords from locking accounts. */
  maxRetryDelayMs: 300_000,
};

/** What a renewing provider needs besides its fetcher. */
export interface RenewingDeps {
  clock: Clock;
  logger: Logger;
  metrics?: AuthMetrics;
}

interface Current {
  token: string;
  expiresAt: number;
  renewAt: number;
  obtainedAt: number;
  /** Obtained because a 401 dropped the previous token. */
  after401: boolean;
}

/**
 * An AuthProvider around a token fetcher (login, OAuth): caches the token until shortly before it expires,
 * shares one in-flight fetch between concurrent callers, keeps using a still-valid token while a renewal runs
 * and when it fails, and waits (exponentially longer) after failures instead of retrying in a loop.
 */
export function createRenewingProvider(
  mode: AuthMode,
  fetchToken: (signal: AbortSignal) => Promise<ObtainedToken>,
  deps: RenewingDeps,
): AuthProvider {
  const { clock, logger, metrics } = deps;
  const closer = new AbortController();
  let current: Current | undefined;
  let inflight: Promise<string> | undefined;
  let failures = 0;
  let nextAttemptAt = 0;
  let lastError: AuthError | undefined;
  let dropped401 = false;

  const obtain = async (): Promise<string> => {
    const previous = current;
    const after401 = dropped401;
    try {
      const got = await fetchToken(closer.signal);
      const now = clock.now();
      const lifetime = got.expiresAt - now;
      const before = Math.min(timing.renewBeforeMaxMs, lifetime * timing.renewBeforeFraction);
      // A token that is (by our clock) already expired must not make every call renew.
      const renewAt = lifetime > 0 ? got.expiresAt - before : now + timing.minRetryDelayMs;
      current = { token: got.token, expiresAt: got.expiresAt, renewAt, obtainedAt: now, after401 };
      failures = 0;
      nextAttemptAt = 0;
      lastError = undefined;
      dropped401 = false;
      metrics?.onTokenExpiry(mode, got.expiresAt);
      logger.info({ mode, expiresAt: new Date(got.expiresAt).toISOString() }, 'obtained a leader API token');
      return got.token;
    } catch (e) {
      if (closer.signal.aborted) throw e;
      const err =
        e instanceof AuthError ? e : new AuthError(mode, 'bad_response', `obtaining a token failed unexpectedly`);
      const now = clock.now();
      failures += 1;
      const backoff = Math.min(timing.maxRetryDelayMs, timing.minRetryDelayMs * 2 ** (failures - 1));
      const wait = Math.max(backoff, err.retryAfterMs ?? 0);
      nextAttemptAt = now + wait;
      lastError = err;
      metrics?.onFailure(mode, err.reason);
      logger.warn({ mode, reason: err.reason, retryInMs: wait }, err.message);
      if (previous && current === previous && now < previous.expiresAt) return previous.token;
      throw err;
    }
  };

  return {
    mode,
    async token(signal) {
      signal?.throwIfAborted();
      const now = clock.now();
      if (current && now < current.renewAt) return current.token;
      if (!inflight && now >= nextAttemptAt) {
        inflight = obtain().finally(() => {
          inflight = undefined;
        });
        // A renewal nobody waits for (the current token still serves) may fail unheard: obtain() logged it.
        inflight.catch(() => undefined);
      }
      // A renewal ahead of expiry holds nothing up: the current token serves until it expires, however long the
      // token endpoint takes (a slow or failing one stalled every poll for as long).
      if (current && now < current.expiresAt) return current.token;
      if (inflight) return raceSignal(inflight, signal);
      throw lastError ?? new AuthError(mode, 'bad_response', 'no token available yet');
    },
    invalidate(rejected) {
      if (inflight) {
        // Refused while a renewal runs: the retry waits for the renewal rather than use the refused token again.
        if (current && (rejected === undefined || rejected === current.token)) current = undefined;
        return true;
      }
      if (current) {
        // The 401 answered an older token: the current one is already different.
        if (rejected !== undefined && rejected !== current.token) return true;
        // Concurrent requests sent with the old token come back 401 after the renewal: one renewal is enough.
        if (rejected === undefined && current.after401 && clock.now() - current.obtainedAt < timing.minRetryDelayMs) {
          return true;
        }
        current = undefined;
        dropped401 = true;
        metrics?.onTokenExpiry(mode, undefined);
        logger.info({ mode }, 'the leader rejected the token (401); obtaining a new one');
      }
      return clock.now() >= nextAttemptAt;
    },
    expiresAt: () => current?.expiresAt,
    close() {
      closer.abort(new Error('auth provider closed'));
      current = undefined;
    },
  };
}

/** Waits for a shared promise, giving up (without cancelling it) when this caller's signal aborts. */
function raceSignal<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
