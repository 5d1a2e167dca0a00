/** Which credentials a leader connection uses; exactly one per leader. */
export type AuthMode = 'token' | 'login' | 'cloud' | 'none';

/**
 * Supplies the bearer token for requests to one leader. The leader client calls `token()` before
 * each request and `invalidate()` once after a 401; it never caches tokens itself.
 */
export interface AuthProvider {
  readonly mode: AuthMode;
  /** The current token, obtaining or renewing it when needed (renewal requests go through the leader budget). */
  token(signal?: AbortSignal): Promise<string>;
  /** Drops the current token after a 401. Returns false when this mode cannot obtain a different one. */
  invalidate(): boolean;
  /** Expiry of the current token in epoch ms, when known. */
  expiresAt(): number | undefined;
  /** Stops file watches and timers. */
  close(): void;
}
