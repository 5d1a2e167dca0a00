import type { FailureReason } from './failure.js';
import { errorCode } from '../util/errors.js';

/**
 * How a request ended, as far as the leader's load is concerned:
 * - `ok`: the leader answered (any status that is not an overload signal); may grow the window;
 * - `overload`: 429, 420 or 503; halves the window and lowers the rate;
 * - `timeout`: a timeout or a 504; shrinks the window by 10 %;
 * - `neutral`: says nothing about load (connection refused, aborted, refused before sending).
 */
export type PermitOutcome = 'ok' | 'overload' | 'timeout' | 'neutral';

/**
 * What to do after a failed attempt:
 * - `none`: final (400, 401, 403, 404, 405, 415, other 4xx and 5xx, decode failures);
 * - `backoff`: retry after a per-request backoff (502, 504 outside host context, timeouts, transient connection
 * errors);
 * - `pause`: the whole budget pauses (429, 503); the retry waits for the pause like everyone else;
 * - `unavailable`: the leader is not serving (420 outside host context): hold the budget, probe /health.
 * A 401 is final here: refreshing credentials and retrying once is src/auth/with-auth.ts's business.
 */
export type RetryKind = 'none' | 'backoff' | 'pause' | 'unavailable';

/** How one unaccepted status or transport error is reported, retried and fed to the budget. */
export interface Classification {
  reason: FailureReason;
  retry: RetryKind;
  outcome: PermitOutcome;
}

/**
 * Classifies a status the caller did not accept. A 420 in host context (`/w/{id}/…`) is that node's own state
 * and never pauses the fleet.
 */
export function classifyStatus(status: number, opts: { nodeScoped: boolean }): Classification {
  switch (status) {
    case 420:
      return opts.nodeScoped
        ? { reason: 'http_4xx', retry: 'none', outcome: 'ok' }
        : { reason: 'leader_unavailable', retry: 'unavailable', outcome: 'overload' };
    case 429:
    case 503:
      return { reason: 'throttled', retry: 'pause', outcome: 'overload' };
    // In host context the leader answers 502/504 when it cannot reach the node: that node's state, which a
    // retry within the same cycle rarely changes and which would cost the shared budget once per unreachable node.
    case 502:
      return { reason: 'http_5xx', retry: opts.nodeScoped ? 'none' : 'backoff', outcome: 'neutral' };
    case 504:
      return {
        reason: 'http_5xx',
        retry: opts.nodeScoped ? 'none' : 'backoff',
        outcome: opts.nodeScoped ? 'neutral' : 'timeout',
      };
  }
  // Everything else is final: 400, 401, 403, 404, 405, 415 and the rest. A 3xx is `redirect` (we do not follow
  // redirects: a redirect from an API endpoint is a misconfigured URL or proxy); an unexpected 1xx or 2xx counts as
  // a 4xx.
  if (status >= 500) return { reason: 'http_5xx', retry: 'none', outcome: 'neutral' };
  const reason = STATUS_REASONS[status] ?? (status >= 300 && status < 400 ? 'redirect' : 'http_4xx');
  return { reason, retry: 'none', outcome: 'ok' };
}

/** Statuses whose reason names them: what to fix differs for each. */
const STATUS_REASONS: Readonly<Record<number, FailureReason>> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
};

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
]);

// Connection failures that may heal by themselves (restart, failover, DNS blip). TLS and proxy
// configuration errors are left out: retrying them only adds load.
const TRANSIENT_CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

/** Classifies an error thrown by the transport (undici or node:net); the code is found on the error or its cause. */
export function classifyError(err: unknown): Classification & { code: string } {
  const code = errorCode(err) ?? 'UNKNOWN';
  if (TIMEOUT_CODES.has(code)) return { reason: 'timeout', retry: 'backoff', outcome: 'timeout', code };
  if (TRANSIENT_CONNECT_CODES.has(code)) return { reason: 'connect', retry: 'backoff', outcome: 'neutral', code };
  return { reason: 'connect', retry: 'none', outcome: 'neutral', code };
}
