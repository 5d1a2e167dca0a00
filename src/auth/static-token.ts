import type { ReadFile } from '../util/files.js';
import type { Logger } from 'pino';
import type { Clock } from '../util/clock.js';
import { AuthConfigError, AuthError } from './errors.js';
import { decodeJwtExpiry, normalizeToken } from './jwt.js';
import { errorLabel } from '../util/errors.js';
import type { AuthMetrics, AuthProvider } from './types.js';

/** What the static-token provider needs. */
export interface StaticTokenDeps {
  clock: Clock;
  readFile: ReadFile;
  logger: Logger;
  metrics?: AuthMetrics;
  /**
   * How often the token file is re-read. Polling rather than fs.watch: Kubernetes rotates secrets by swapping a
   * symlink, which watches miss. @default 10_000
   */
  reloadIntervalMs?: number;
}

/** Default re-read interval of `--leader.token-file`. */
export const DEFAULT_TOKEN_FILE_RELOAD_MS = 10_000;

const TOKEN_FILE_SETTING = '--leader.token-file';

type FileState = { readAt: number } & ({ ok: true; token: string } | { ok: false; error: AuthError });

/**
 * A fixed bearer token: the literal CRIBL_TOKEN, or `--leader.token-file` re-read every `reloadIntervalMs` (and
 * at once after a 401) so that a rotated secret is used without a restart.
 */
export function createStaticTokenProvider(
  cfg: { token?: string; tokenFile?: string },
  deps: StaticTokenDeps,
): AuthProvider {
  if (cfg.token !== undefined && cfg.tokenFile !== undefined) {
    throw new AuthConfigError('CRIBL_TOKEN and --leader.token-file are both set: use one of them');
  }
  if (cfg.token !== undefined) return literalProvider(cfg.token, deps);
  if (cfg.tokenFile !== undefined) return fileProvider(cfg.tokenFile, deps);
  throw new AuthConfigError('token auth needs CRIBL_TOKEN or --leader.token-file');
}

function literalProvider(raw: string, deps: StaticTokenDeps): AuthProvider {
  const token = normalizeToken(raw);
  if (token === '') throw new AuthConfigError('CRIBL_TOKEN is empty');
  const expiresAt = decodeJwtExpiry(token);
  deps.metrics?.onTokenExpiry('token', expiresAt);
  return {
    mode: 'token',
    token: (signal) => {
      signal?.throwIfAborted();
      return Promise.resolve(token);
    },
    invalidate: () => false,
    expiresAt: () => expiresAt,
    close: () => undefined,
  };
}

function fileProvider(path: string, deps: StaticTokenDeps): AuthProvider {
  const { clock, readFile, logger, metrics } = deps;
  const interval = deps.reloadIntervalMs ?? DEFAULT_TOKEN_FILE_RELOAD_MS;
  let state: FileState | undefined;
  let expiresAt: number | undefined;

  const reload = (): FileState => {
    const readAt = clock.now();
    const previous = state;
    let next: FileState;
    try {
      const token = normalizeToken(readFile(path));
      next =
        token === ''
          ? {
              readAt,
              ok: false,
              error: new AuthError('token', 'file_unreadable', `${TOKEN_FILE_SETTING} ${path} is empty`),
            }
          : { readAt, ok: true, token };
    } catch (e) {
      const error = new AuthError(
        'token',
        'file_unreadable',
        `cannot read ${TOKEN_FILE_SETTING} ${path}: ${errorLabel(e)}`,
      );
      next = { readAt, ok: false, error };
    }
    state = next;
    if (next.ok) {
      if (!previous?.ok || previous.token !== next.token) {
        expiresAt = decodeJwtExpiry(next.token);
        metrics?.onTokenExpiry('token', expiresAt);
        if (previous) logger.info({ mode: 'token', file: path }, 'token file changed; using the new token');
      }
    } else {
      metrics?.onFailure('token', next.error.reason);
      // Re-read every interval: warn when the problem starts or changes, not at every re-read.
      if (previous?.ok !== false || previous.error.message !== next.error.message) {
        logger.warn({ mode: 'token', file: path }, next.error.message);
      }
    }
    return next;
  };

  return {
    mode: 'token',
    token(signal) {
      signal?.throwIfAborted();
      const s = state && clock.now() - state.readAt < interval ? state : reload();
      return s.ok ? Promise.resolve(s.token) : Promise.reject(s.error);
    },
    invalidate(rejected) {
      const before = state?.ok ? state.token : undefined;
      const s = reload();
      return s.ok && s.token !== (rejected ?? before);
    },
    expiresAt: () => (state?.ok ? expiresAt : undefined),
    close: () => undefined,
  };
}
