import type { ReadFile } from '../util/files.js';
import type { Logger } from 'pino';
import { authTokenSchema, type AuthToken } from '@cribl-exporter/api/shapes';
import { ENDPOINTS } from '@cribl-exporter/api/routes';
import type { LeaderClient, LeaderResult } from '../leader/types.js';
import type { Clock } from '@cribl-exporter/api/clock';
import { AuthConfigError, AuthError } from './errors.js';
import { decodeJwtExpiry, normalizeToken, tokenProblem } from './jwt.js';
import { createRenewingProvider } from './renewing.js';
import { readSecretFile, recheckSecretFile } from './secrets.js';
import type { AuthConfig, AuthFailureReason, AuthMetrics, AuthProvider, LoginFn } from './types.js';

/** The login settings of {@link AuthConfig}. */
export type LoginAuthConfig = Extract<AuthConfig, { mode: 'login' }>;

/** What the login provider needs; `login` sends POST /auth/login through the leader's budget. */
export interface LoginDeps {
  clock: Clock;
  readFile: ReadFile;
  logger: Logger;
  login: LoginFn;
  metrics?: AuthMetrics;
}

/**
 * On-prem login (POST /auth/login): the JWT is renewed shortly before its `exp` (or after `fallbackTtlMs` when
 * it has none) and once after a 401. The password is read again at every login, so a rotated file is picked up.
 */
export function createLoginProvider(cfg: LoginAuthConfig, deps: LoginDeps): AuthProvider {
  if (cfg.username === '') throw new AuthConfigError('--leader.username is empty');
  if (cfg.password !== undefined && cfg.passwordFile !== undefined) {
    throw new AuthConfigError('CRIBL_PASSWORD and --leader.password-file are both set: use one of them');
  }
  if (cfg.password === undefined && cfg.passwordFile === undefined) {
    throw new AuthConfigError('--leader.username needs a password: set CRIBL_PASSWORD or --leader.password-file');
  }
  if (!(cfg.fallbackTtlMs > 0)) throw new AuthConfigError('the login token fallback TTL must be positive');
  const { clock, logger } = deps;
  let warnedPasswordChange = false;
  let warnedSkew = false;

  const fetchToken = async (signal: AbortSignal): Promise<{ token: string; expiresAt: number }> => {
    const password =
      cfg.password ?? (await readSecretFile(deps.readFile, cfg.passwordFile ?? '', '--leader.password-file', 'login'));
    const result = await deps.login({ username: cfg.username, password }, signal);
    if (!result.ok) {
      throw new AuthError(
        'login',
        loginFailureReason(result),
        `login to the leader as "${cfg.username}" (POST /auth/login) failed: ${result.message}`,
      );
    }
    const token = normalizeToken(result.body.token);
    if (token === '') throw new AuthError('login', 'bad_response', 'POST /auth/login answered an empty token');
    const problem = tokenProblem(token);
    if (problem) throw new AuthError('login', 'bad_response', `POST /auth/login answered a token that ${problem}`);
    if (result.body.forcePasswordChange && !warnedPasswordChange) {
      warnedPasswordChange = true;
      logger.warn(
        { mode: 'login', username: cfg.username },
        'the leader asks this user to change its password (forcePasswordChange); logins may stop working',
      );
    }
    const now = clock.now();
    const exp = decodeJwtExpiry(token);
    if (exp !== undefined && exp > now) return { token, expiresAt: exp };
    if (exp !== undefined && !warnedSkew) {
      warnedSkew = true;
      logger.warn(
        { mode: 'login', exp: new Date(exp).toISOString() },
        'the login token is already expired by our clock (clock skew?); renewing after the fallback TTL instead',
      );
    }
    return { token, expiresAt: now + cfg.fallbackTtlMs };
  };

  const provider = createRenewingProvider('login', fetchToken, deps);
  const file = cfg.passwordFile;
  if (file === undefined) return provider;
  return {
    ...provider,
    reload: () => recheckSecretFile(deps.readFile, file, '--leader.password-file', 'login', deps.logger),
  };
}

/** Maps a failed login request onto the auth failure reasons. */
export function loginFailureReason(result: { reason: string; status?: number }): AuthFailureReason {
  if (result.status === 429 || result.reason === 'throttled') return 'rate_limited';
  if (result.status === 400 || result.status === 401 || result.status === 403) return 'invalid_credentials';
  if (result.reason === 'connect' || result.reason === 'timeout' || result.reason === 'leader_unavailable') {
    return 'unreachable';
  }
  if (result.status !== undefined && result.status >= 500) return 'unavailable';
  return 'bad_response';
}

/** Checks the body of POST /auth/login; the error never quotes the body (it holds the token). */
export function decodeAuthToken(json: unknown): AuthToken {
  const r = authTokenSchema.safeParse(json);
  if (!r.success) throw new Error('login response has no "token" string');
  // 4.14 leaders send only `token`.
  return { token: r.data.token, forcePasswordChange: r.data.forcePasswordChange === true };
}

/**
 * The LoginFn the app passes to {@link createLoginProvider}: POST /auth/login, anonymously, through the leader
 * client and its budget.
 */
export function createLoginFn(client: Pick<LeaderClient, 'request'>): LoginFn {
  return (body, signal): Promise<LeaderResult<AuthToken>> =>
    client.request({
      endpoint: ENDPOINTS.login,
      method: 'POST',
      path: '/auth/login',
      anonymous: true,
      body: { contentType: 'application/json', payload: JSON.stringify(body) },
      decode: decodeAuthToken,
      ...(signal ? { signal } : {}),
    });
}
