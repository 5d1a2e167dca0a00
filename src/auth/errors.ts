import type { AuthFailureReason, AuthMode } from './types.js';

/** A token could not be obtained; the message is one line naming the request or file, never a secret. */
export class AuthError extends Error {
  override readonly name = 'AuthError';

  constructor(
    readonly mode: AuthMode,
    readonly reason: AuthFailureReason,
    message: string,
    /** How long the server asked us to wait before trying again (429 Retry-After), when it said. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** Auth settings that conflict or are incomplete; the message names the settings. */
export class AuthConfigError extends Error {
  override readonly name = 'AuthConfigError';
}
