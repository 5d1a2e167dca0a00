/** The credentials line of `cribl-exporter check`: the auth mode, whether a token can be had, and its expiry. */
import { AuthError } from '../auth/errors.js';
import type { AuthConfig, AuthProvider } from '../auth/types.js';
import type { Clock } from '@cribl-exporter/api/clock';
import { DAY_MS, iso, type CheckResult } from './report.js';

/** Static tokens expiring within this many days are reported as a warning. */
export const TOKEN_WARN_DAYS = 7;

type Line = Pick<CheckResult, 'status' | 'message' | 'fix'>;

/** Gets a token from the provider (a login, or a client-credentials grant) and says how long it lasts. */
export async function checkCredentials(provider: AuthProvider, auth: AuthConfig, clock: Clock): Promise<Line> {
  if (auth.mode === 'none') {
    return {
      status: 'warn',
      message: 'no credentials configured: requests carry no Authorization header',
      fix: 'set CRIBL_TOKEN or --leader.token-file, --leader.username, or --cloud.client-id (docs/deployments.md)',
    };
  }
  const how =
    auth.mode === 'token'
      ? `static token (${auth.tokenFile !== undefined ? `--leader.token-file ${auth.tokenFile}` : 'CRIBL_TOKEN'})`
      : auth.mode === 'login'
        ? `login as ${JSON.stringify(auth.username)} (POST /auth/login)`
        : `Cribl.Cloud client ${JSON.stringify(auth.clientId)} (token from ${auth.tokenUrl})`;
  try {
    await provider.token();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { status: 'fail', message: `${how}: ${message}`, fix: authFix(auth, e) };
  }
  const expires = provider.expiresAt();
  if (expires === undefined) {
    return {
      status: 'ok',
      message:
        `${how}: ${auth.mode === 'token' ? 'not a JWT, so its expiry is unknown; ' : ''}` +
        'the requests below show whether the leader accepts it',
    };
  }
  const left = expires - clock.now();
  const when = `expires ${iso(expires)}`;
  if (left <= 0) {
    return {
      status: 'fail',
      message: `${how}: the token expired on ${iso(expires)}`,
      fix: auth.mode === 'token' ? 'create a new API token and give it to the exporter' : 'check both clocks (NTP)',
    };
  }
  // Login and client-credential tokens are renewed by the exporter: only a static token's end matters.
  if (auth.mode === 'token' && left < TOKEN_WARN_DAYS * DAY_MS) {
    return {
      status: 'warn',
      message: `${how}: ${when} (in ${Math.floor(left / 3_600_000)} hours)`,
      fix: 'replace the token before it expires (the token file is re-read without a restart)',
    };
  }
  return { status: 'ok', message: `${how}: ${auth.mode === 'token' ? 'a JWT that ' : 'got a token that '}${when}` };
}

function authFix(auth: AuthConfig, e: unknown): string {
  const reason = e instanceof AuthError ? e.reason : undefined;
  switch (reason) {
    case 'file_unreadable':
      return 'make the file exist and readable by the exporter’s user, with the secret in it';
    case 'rate_limited':
      return 'the login endpoint rate-limits (loginRateLimit): wait a moment and check again';
    case 'unreachable':
      return auth.mode === 'cloud'
        ? 'check the token URL (--cloud.token-url) and the network path to it (proxy, firewall)'
        : 'see the DNS, TCP and TLS lines';
    case 'unavailable':
      return auth.mode === 'cloud'
        ? 'the token service answers a server error: see status.cribl.io, and check again in a moment'
        : 'the leader answers a server error to the login: see its logs, and check again in a moment';
    case 'bad_response':
      return auth.mode === 'cloud'
        ? 'check --cloud.token-url and --cloud.audience'
        : 'check that the URL is a Cribl leader';
    case 'invalid_credentials':
      return auth.mode === 'cloud'
        ? 'check --cloud.client-id and the client secret (Organization → API Credentials)'
        : 'check --leader.username and the password; with SSO, "Allow login as Local User" must be on';
    default:
      return 'see docs/deployments.md for this mode';
  }
}
