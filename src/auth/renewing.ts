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

/** What a renewing provider knows: the token in hand, and the failures since the last one was obtained. */
class TokenState {
  current: Current | undefined;
  failures = 0;
  nextAttemptAt = 0;
  lastError: AuthError | undefined;
  /** The last token was dropped after a 401: the next one is obtained because of it. */
  dropped401 = false;

  constructor(
    readonly mode: AuthMode,
    readonly deps: RenewingDeps,
  ) {}

  /** A token obtained: kept until shortly before it expires; the failures are over. */
  obtained(got: ObtainedToken, after401: boolean): string {
    const { clock, logger, metrics } = this.deps;
    const now = clock.now();
    const lifetime = got.expiresAt - now;
    const before = Math.min(timing.renewBeforeMaxMs, lifetime * timing.renewBeforeFraction);
    // A token that is (by our clock) already expired must not make every call renew.
    const renewAt = lifetime > 0 ? got.expiresAt - before : now + timing.minRetryDelayMs;
    this.current = { token: got.token, expiresAt: got.expiresAt, renewAt, obtainedAt: now, after401 };
    this.failures = 0;
    this.nextAttemptAt = 0;
    this.lastError = undefined;
    this.dropped401 = false;
    metrics?.onTokenExpiry(this.mode, got.expiresAt);
    logger.info({ mode: this.mode, expiresAt: new Date(got.expiresAt).toISOString() }, 'obtained a leader API token');
    return got.token;
  }

  /** A failed attempt: the next waits exponentially longer (or as long as the server asked). */
  failed(e: unknown): AuthError {
    const { clock, logger, metrics } = this.deps;
    const err =
      e instanceof AuthError ? e : new AuthError(this.mode, 'bad_response', `obtaining a token failed unexpectedly`);
    const now = clock.now();
    this.failures += 1;
    const backoff = Math.min(timing.maxRetryDelayMs, timing.minRetryDelayMs * 2 ** (this.failures - 1));
    const wait = Math.max(backoff, err.retryAfterMs ?? 0);
    this.nextAttemptAt = now + wait;
    this.lastError = err;
    metrics?.onFailure(this.mode, err.reason);
    logger.warn({ mode: this.mode, reason: err.reason, retryInMs: wait }, err.message);
    return err;
  }

  /** The leader refused `rejected` (401) while no renewal runs: drop it unless that is moot; whether to retry. */
  refused(rejected: string | undefined): boolean {
    const { clock, logger, metrics } = this.deps;
    const current = this.current;
    if (current) {
      // The 401 answered an older token: the current one is already different.
      if (rejected !== undefined && rejected !== current.token) return true;
      // Concurrent requests sent with the old token come back 401 after the renewal: one renewal is enough.
      if (rejected === undefined && current.after401 && clock.now() - current.obtainedAt < timing.minRetryDelayMs) {
        return true;
      }
      this.current = undefined;
      this.dropped401 = true;
      metrics?.onTokenExpiry(this.mode, undefined);
      logger.info({ mode: this.mode }, 'the leader rejected the token (401); obtaining a new one');
    }
    return clock.now() >= this.nextAttemptAt;
  }
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
  const { clock } = deps;
  const closer = new AbortController();
  const state = new TokenState(mode, deps);
  let inflight: Promise<string> | undefined;

  const obtain = async (): Promise<string> => {
    const previous = state.current;
    const after401 = state.dropped401;
    try {
      return state.obtained(await fetchToken(closer.signal), after401);
    } catch (e) {
      if (closer.signal.aborted) throw e;
      const err = state.failed(e);
      if (previous && state.current === previous && clock.now() < previous.expiresAt) return previous.token;
      throw err;
    }
  };

  return {
    mode,
    async token(signal) {
      signal?.throwIfAborted();
      const now = clock.now();
      const current = state.current;
      if (current && now < current.renewAt) return current.token;
      if (!inflight && now >= state.nextAttemptAt) {
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
      throw state.lastError ?? new AuthError(mode, 'bad_response', 'no token available yet');
    },
    invalidate(rejected) {
      if (!inflight) return state.refused(rejected);
      // Refused while a renewal runs: the retry waits for the renewal rather than use the refused token again.
      if (state.current && (rejected === undefined || rejected === state.current.token)) state.current = undefined;
      return true;
    },
    expiresAt: () => state.current?.expiresAt,
    close() {
      closer.abort(new Error('auth provider closed'));
      state.current = undefined;
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
