import type { ReadFile } from '../util/files.js';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { boundedRequest, type BoundedResponse } from '../http/bounded.js';
import { describeUrl } from '../util/url.js';
import { oauthTokenSchema } from '@cribl-exporter/api/shapes';
import { backoffDelay } from '../http/backoff.js';
import { parseRetryAfter } from '../http/retry-after.js';
import type { Clock, Random } from '@cribl-exporter/api/clock';
import { AuthConfigError, AuthError } from './errors.js';
import { decodeJwtExpiry, normalizeToken, tokenProblem } from './jwt.js';
import { createRenewingProvider, type ObtainedToken } from './renewing.js';
import { readSecretFile, recheckSecretFile } from './secrets.js';
import { errorLabel } from '../util/errors.js';
import type { AuthConfig, AuthFailureReason, AuthMetrics, AuthProvider } from './types.js';

/** The Cribl.Cloud settings of {@link AuthConfig}. */
export type CloudAuthConfig = Extract<AuthConfig, { mode: 'cloud' }>;

/** Retries of one token request (the token endpoint is not a leader, so the leader budget does not apply). */
const policy = {
  /** Attempts per token request, the first included. */
  maxAttempts: 3,
  /** Upper bound of the first backoff (full jitter). */
  baseDelayMs: 1_000,
  /** Upper bound of any backoff. */
  maxDelayMs: 10_000,
  /** A longer Retry-After ends the request (rate_limited) and the next attempt waits for it. */
  maxInlineRetryAfterMs: 30_000,
  /** Headers and body timeout of one attempt. */
  timeoutMs: 10_000,
};

/** Token lifetime assumed when the endpoint gives neither `expires_in` nor a JWT `exp`. */
export const CLOUD_FALLBACK_TTL_MS = 3_600_000;

/** What the Cribl.Cloud provider needs. */
export interface CloudAuthDeps {
  clock: Clock;
  readFile: ReadFile;
  logger: Logger;
  dispatcher: Dispatcher;
  random: Random;
  metrics?: AuthMetrics;
}

const RETRYABLE = new Set([408, 429, 500, 502, 503, 504]);

/** A 5xx says the token service is down (`unavailable`), not that its answer was malformed; a 408 is a timeout. */
const serverReason = (status: number): AuthFailureReason =>
  status >= 500 ? 'unavailable' : status === 408 ? 'unreachable' : 'bad_response';

/**
 * Cribl.Cloud client credentials: POST to the token URL (JSON or form body, with the audience), token cached until
 * shortly before `expires_in`, one shared request for concurrent callers, a new token once after a 401.
 */
export function createCloudProvider(cfg: CloudAuthConfig, deps: CloudAuthDeps): AuthProvider {
  if (cfg.clientId === '') throw new AuthConfigError('--cloud.client-id is empty');
  if (cfg.clientSecret !== undefined && cfg.clientSecretFile !== undefined) {
    throw new AuthConfigError('CRIBL_CLIENT_SECRET and --cloud.client-secret-file are both set: use one of them');
  }
  if (cfg.clientSecret === undefined && cfg.clientSecretFile === undefined) {
    throw new AuthConfigError(
      '--cloud.client-id needs a secret: set CRIBL_CLIENT_SECRET or --cloud.client-secret-file',
    );
  }
  try {
    new URL(cfg.tokenUrl);
  } catch {
    throw new AuthConfigError('--cloud.token-url is not a valid URL');
  }
  const { clock } = deps;
  const where = `Cribl.Cloud token request (POST ${describeUrl(cfg.tokenUrl)})`;

  const fetchToken = async (signal: AbortSignal): Promise<ObtainedToken> => {
    const secret =
      cfg.clientSecret ??
      (await readSecretFile(deps.readFile, cfg.clientSecretFile ?? '', '--cloud.client-secret-file', 'cloud'));
    const fields = {
      grant_type: 'client_credentials',
      client_id: cfg.clientId,
      client_secret: secret,
      audience: cfg.audience,
    };
    const body = cfg.tokenBody === 'json' ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
    const contentType = cfg.tokenBody === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';

    for (let attempt = 1; ; attempt++) {
      let res: BoundedResponse;
      try {
        res = await boundedRequest({
          url: cfg.tokenUrl,
          method: 'POST',
          headers: { 'content-type': contentType, accept: 'application/json' },
          body,
          dispatcher: deps.dispatcher,
          signal,
          timeoutMs: policy.timeoutMs,
        });
      } catch (e) {
        if (signal.aborted) throw e;
        const err = new AuthError('cloud', 'unreachable', `${where} failed: ${errorLabel(e)}`);
        if (attempt >= policy.maxAttempts) throw err;
        await clock.sleep(backoff(attempt), signal);
        continue;
      }
      if (res.status === 200) return decodeTokenResponse(res.json, clock.now(), where);
      const message = `${where} failed: HTTP ${res.status}${oauthError(res.json)}`;
      if (!RETRYABLE.has(res.status)) {
        const reason = res.status >= 400 && res.status < 500 ? 'invalid_credentials' : serverReason(res.status);
        throw new AuthError('cloud', reason, message);
      }
      const serverDelay = parseRetryAfter(res.headers, clock.now());
      const err = new AuthError(
        'cloud',
        res.status === 429 ? 'rate_limited' : serverReason(res.status),
        message,
        serverDelay,
      );
      if (attempt >= policy.maxAttempts || (serverDelay ?? 0) > policy.maxInlineRetryAfterMs) throw err;
      await clock.sleep(serverDelay ?? backoff(attempt), signal);
    }
  };

  const backoff = (attempt: number): number =>
    backoffDelay({ attempt, baseMs: policy.baseDelayMs, capMs: policy.maxDelayMs, random: deps.random });

  const provider = createRenewingProvider('cloud', fetchToken, deps);
  const file = cfg.clientSecretFile;
  if (file === undefined) return provider;
  return {
    ...provider,
    reload: () => recheckSecretFile(deps.readFile, file, '--cloud.client-secret-file', 'cloud', deps.logger),
  };
}

/** Reads `{access_token, token_type, expires_in}`; the error never quotes the body (it holds the token). */
export function decodeTokenResponse(json: unknown, now: number, where = 'token request'): ObtainedToken {
  const r = oauthTokenSchema.safeParse(json);
  const token = r.success ? normalizeToken(r.data.access_token) : '';
  if (!r.success || token === '') {
    throw new AuthError('cloud', 'bad_response', `${where} answered 200 without an access_token`);
  }
  const problem = tokenProblem(token);
  if (problem) throw new AuthError('cloud', 'bad_response', `${where} answered an access_token that ${problem}`);
  const raw = r.data.expires_in;
  const expiresIn = typeof raw === 'string' ? Number(raw) : raw;
  if (typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn > 0) {
    return { token, expiresAt: now + expiresIn * 1000 };
  }
  const exp = decodeJwtExpiry(token);
  return { token, expiresAt: exp !== undefined && exp > now ? exp : now + CLOUD_FALLBACK_TTL_MS };
}

/** The OAuth `error` code of an error body (e.g. access_denied) when it is a plain identifier; never free text. */
function oauthError(json: unknown): string {
  const code = typeof json === 'object' && json !== null ? (json as { error?: unknown }).error : undefined;
  return typeof code === 'string' && /^[a-z_]{1,64}$/.test(code) ? ` (${code})` : '';
}
