import { fileProblem, SECRET_MAX_BYTES, type ReadFile } from '../util/files.js';
import type { Logger } from 'pino';
import type { Clock } from '@cribl-exporter/api/clock';
import { AuthConfigError, AuthError } from './errors.js';
import { decodeJwtExpiry, normalizeToken, tokenProblem } from './jwt.js';
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
 * at once after a 401 or a SIGHUP) so that a rotated secret is used without a restart.
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
  const problem = tokenProblem(token);
  if (problem) throw new AuthConfigError(`CRIBL_TOKEN ${problem}`);
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
  let reading: Promise<FileState> | undefined;

  const unusable = (readAt: number, message: string): FileState => ({
    readAt,
    ok: false,
    error: new AuthError('token', 'file_unreadable', message),
  });

  const read = async (): Promise<FileState> => {
    let next: FileState;
    try {
      const token = normalizeToken(await readFile(path, { setting: TOKEN_FILE_SETTING, maxBytes: SECRET_MAX_BYTES }));
      const problem = token === '' ? 'is empty' : tokenProblem(token);
      next = problem
        ? unusable(clock.now(), `${TOKEN_FILE_SETTING} ${path} ${problem}`)
        : { readAt: clock.now(), ok: true, token };
    } catch (e) {
      next = unusable(clock.now(), `cannot read ${TOKEN_FILE_SETTING} ${path}: ${fileProblem(e)}`);
    }
    const previous = state;
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
  // Concurrent callers share one read.
  const reload = (): Promise<FileState> =>
    (reading ??= read().finally(() => {
      reading = undefined;
    }));

  return {
    mode: 'token',
    async token(signal) {
      signal?.throwIfAborted();
      const s = state && clock.now() - state.readAt < interval ? state : await reload();
      if (!s.ok) throw s.error;
      return s.token;
    },
    async invalidate(rejected) {
      const before = state?.ok ? state.token : undefined;
      const s = await reload();
      return s.ok && s.token !== (rejected ?? before);
    },
    expiresAt: () => (state?.ok ? expiresAt : undefined),
    close: () => undefined,
    async reload() {
      const s = await reload();
      if (s.ok) logger.info({ mode: 'token', file: path }, `${TOKEN_FILE_SETTING} re-read`);
    },
  };
}
