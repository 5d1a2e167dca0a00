/**
 * Credentials on a leader client: every request that is not anonymous gets the provider's current token as
 * its bearer, and a 401 gets one refresh of the credentials and one more try (when the mode can obtain a
 * different token). The client underneath knows nothing of auth.
 */
import type { FailureReason } from '../http/failure.js';
import { FAILURE_REASONS } from '../http/failure.js';
import type { LeaderClient, LeaderFailure, LeaderRequest, LeaderResult } from '../leader/types.js';
import { describeRequest, failure, oneLine } from '../leader/types.js';
import type { AuthProvider } from './types.js';

/** The client with the provider's credentials on every request that is not anonymous. */
export function withAuth(client: LeaderClient, auth: AuthProvider): LeaderClient {
  const request = async <T>(req: LeaderRequest<T>): Promise<LeaderResult<T>> => {
    if (req.anonymous) return client.request(req);
    for (let refreshed = false; ; refreshed = true) {
      let token: string;
      try {
        token = await auth.token(req.signal);
      } catch (err) {
        return authFailure(req, auth.mode, err);
      }
      // Mode `none` hands out '': no header at all rather than an empty bearer.
      const res = await client.request(token ? { ...req, bearer: token } : req);
      if (res.ok || res.status !== 401 || refreshed || !(await auth.invalidate(token))) return res;
    }
  };
  return { baseUrl: client.baseUrl, request, close: () => client.close() };
}

// AuthError reasons (src/auth/types.ts) onto the poll failure reasons.
const AUTH_REASONS: Readonly<Record<string, FailureReason>> = {
  invalid_credentials: 'http_4xx',
  file_unreadable: 'http_4xx',
  rate_limited: 'throttled',
  unreachable: 'connect',
  bad_response: 'decode',
};

function authFailure<T>(req: LeaderRequest<T>, mode: string, err: unknown): LeaderFailure {
  // An AuthError says why (e.g. its login request was throttled); anything else is a credentials problem.
  const r = (err as { reason?: unknown } | null)?.reason;
  const known =
    typeof r === 'string' && (FAILURE_REASONS as readonly string[]).includes(r) ? (r as FailureReason) : undefined;
  const reason = typeof r === 'string' ? (AUTH_REASONS[r] ?? known) : undefined;
  // Refused credentials read as the 401 they are (cribl_leader_discovery_failure_info{reason="unauthorized"}).
  const status = r === 'invalid_credentials' ? 401 : undefined;
  return failure(reason ?? 'http_4xx', `${describeRequest(req)}: no credentials (${mode}): ${oneLine(err)}`, status);
}
