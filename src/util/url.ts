/**
 * Query or fragment parameters whose value is a credential (`?token=`, `access_token`, `client_secret`, `password`,
 * `api_key`, `sig`, …): their values are hidden as the userinfo is.
 */
const SECRET_PARAM = /([?&#;][^=&#;]*(?:token|secret|passw|pwd|key|auth|credential|sig)[^=&#;]*=)[^&#;]*/gi;

/** What a credential's value in a query is shown as. */
export const REDACTED = 'REDACTED';

/**
 * Shows a URL without any user:password part and with the values of credential parameters in its query or fragment
 * hidden, so that logs and errors never echo credentials. Works on any text, a URL or not.
 */
export function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@?#]*@/i, '$1').replace(SECRET_PARAM, `$1${REDACTED}`);
}

/** Origin and path of a URL (no query, fragment or credentials): for error messages. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(unparseable URL)';
  }
}
