import type { AuthToken } from '@cribl-exporter/api/shapes';
import type { LeaderResult } from '../leader/types.js';

/** Which credentials a leader connection uses; exactly one per leader. */
export type AuthMode = 'token' | 'login' | 'cloud' | 'none';

/**
 * Supplies the bearer token for requests to one leader. The leader client calls `token()` before
 * each request and `invalidate()` once after a 401; it never caches tokens itself.
 */
export interface AuthProvider {
  readonly mode: AuthMode;
  /**
   * The current token, obtaining or renewing it when needed (renewal requests go through the leader budget).
   * Mode `none` resolves to '' (send no Authorization header). Rejects with an `AuthError` (src/auth/errors.ts).
   */
  token(signal?: AbortSignal): Promise<string>;
  /**
   * Drops the current token after a 401. Returns false when this mode cannot obtain a different one.
   * `rejected` (optional) is the token the 401 answered: when it is no longer the current one, nothing is
   * dropped and the caller may retry with the newer token. A mode that must re-read a file to know answers with
   * a promise.
   */
  invalidate(rejected?: string): boolean | Promise<boolean>;
  /** Expiry of the current token in epoch ms, when known. */
  expiresAt(): number | undefined;
  /** Stops file watches and timers. */
  close(): void;
  /** Re-reads the mode's credential file now (SIGHUP), logging what it found; absent without a file. */
  reload?(): Promise<void>;
}

/**
 * Why obtaining a token failed, or why the leader refused the one we sent: the `reason` label of
 * `cribl_exporter_auth_failures_total`. `rejected`: a request answered 401 even after a refresh of the credentials
 * (or with credentials that cannot be refreshed, e.g. a static token); `forbidden`: a request answered 403;
 * `unavailable`: the token or login endpoint answered a server error (5xx), so the credentials were not judged.
 */
export const AUTH_FAILURE_REASONS = [
  'invalid_credentials',
  'rate_limited',
  'unreachable',
  'bad_response',
  'file_unreadable',
  'rejected',
  'forbidden',
  // Added after the first seven: the token or login endpoint answered a server error (5xx) after its retries.
  'unavailable',
] as const;
export type AuthFailureReason = (typeof AUTH_FAILURE_REASONS)[number];

/**
 * Hooks the exposition wires to `cribl_exporter_auth_token_expiry_timestamp_seconds{leader,mode}` and
 * `cribl_exporter_auth_failures_total{leader,mode,reason}` (one hook object per leader).
 */
export interface AuthMetrics {
  /** Expiry of the token now in use (epoch ms), or undefined when unknown or dropped. */
  onTokenExpiry(mode: AuthMode, epochMs: number | undefined): void;
  /** One failed attempt to obtain a token. */
  onFailure(mode: AuthMode, reason: AuthFailureReason): void;
}

/** POST /auth/login through the leader's request budget (anonymous), implemented by the app with the leader client. */
export type LoginFn = (
  body: { username: string; password: string },
  signal?: AbortSignal,
) => Promise<LeaderResult<AuthToken>>;

/** How to authenticate against one leader. Exactly one mode, chosen from the settings given. */
export type AuthConfig =
  | { mode: 'none' }
  /** Literal token (CRIBL_TOKEN) or a file re-read when it changes (--leader.token-file). */
  | { mode: 'token'; token?: string; tokenFile?: string }
  /** On-prem login: POST /auth/login. */
  | {
      mode: 'login';
      username: string;
      password?: string;
      passwordFile?: string;
      /** Used when the JWT carries no readable `exp`. */
      fallbackTtlMs: number;
    }
  /** Cribl.Cloud client credentials. */
  | {
      mode: 'cloud';
      clientId: string;
      clientSecret?: string;
      clientSecretFile?: string;
      tokenUrl: string;
      audience: string;
      /** Body encoding of the token request. */
      tokenBody: 'json' | 'form';
    };
