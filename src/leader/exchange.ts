/**
 * One HTTP exchange with a leader: send, read a bounded body, decode, and classify what went wrong. Never
 * throws. Records the request self-metric. The retry loop around it is src/leader/client.ts.
 */
import type { Dispatcher } from 'undici';
import type { Endpoint } from '../api/routes.js';
import { readCapped, ResponseTooLargeError } from '../http/bounded.js';
import { classifyError, classifyStatus, type PermitOutcome, type RetryKind } from '../http/classify.js';
import type { FailureReason } from '../http/failure.js';
import { parseRetryAfter } from '../http/retry-after.js';
import type { Clock } from '../util/clock.js';
import type { RequestBudget } from './budget.js';
import type { LeaderClientLimits } from './settings.js';
import {
  describeRequest,
  oneLine,
  redact,
  type LeaderFailure,
  type LeaderRequest,
  type ResponseHeaders,
} from './types.js';
import type { Watchdog } from './watchdog.js';

/** Statuses that pause the whole budget (`cribl_exporter_leader_throttled_total{code}`). */
export type ThrottleCode = '429' | '503' | '420';

/** A failed try, with what the retry loop needs to know. */
export interface AttemptFailure extends LeaderFailure {
  retry: RetryKind;
  /** Delay the server asked for (Retry-After), when it gave one. */
  serverDelayMs?: number;
}

export type Attempt<T> = { ok: true; status: number; body: T } | AttemptFailure;

/** One HTTP exchange: its result, what it says about load, and whether the leader throttled. */
export interface Exchange<T> {
  attempt: Attempt<T>;
  outcome: PermitOutcome;
  throttle?: ThrottleCode;
  /** Not sent: a pause began between the grant of the permit and the send. */
  notSent?: true;
  /** The `code` of the request metric when the status alone would mislead (a 200 whose body was too large). */
  code?: typeof TOO_LARGE;
}

/** `code` of `cribl_exporter_leader_requests_total` for an answer whose body was over the size limit. */
export const TOO_LARGE = 'too_large';

/** What the exchanges of one client share. */
export interface ExchangeContext {
  origin: string;
  basePath: string;
  dispatcher: Dispatcher;
  budget: RequestBudget;
  clock: Clock;
  limits: LeaderClientLimits;
  watchdog: Watchdog;
  userAgent: string;
  onRequest(endpoint: Endpoint, code: string, seconds: number): void;
}

class NotJson extends Error {}
class DecodeFailed extends Error {}

const ERROR_BODY_LIMIT = 64 * 1024;

// abort() without a reason builds a DOMException with a stack: measured at 7.6 % of the exporter's CPU at
// ~2,000 requests/s. This reason is built once.
const TIMED_OUT = new Error('timeout');

/** A final failure (not retried). */
export function finalFailure(reason: FailureReason, message: string, status?: number): AttemptFailure {
  return { ok: false, reason, message, retry: 'none', ...(status !== undefined ? { status } : {}) };
}

/**
 * Sends one request and reads its answer; never throws. Records the request metric. With `gated`, the
 * request is not sent when a pause or hold is running at the moment of sending.
 */
export async function exchange<T>(
  ctx: ExchangeContext,
  req: LeaderRequest<T>,
  outer: AbortSignal,
  gated: boolean,
): Promise<Exchange<T>> {
  const started = ctx.clock.now();
  const ex = await send(ctx, req, outer, gated);
  if (ex.notSent) return ex;
  const a = ex.attempt;
  const code = ex.code ?? (a.status !== undefined ? String(a.status) : a.ok ? 'unknown' : a.reason);
  ctx.onRequest(req.endpoint, code, Math.max(0, ctx.clock.now() - started) / 1000);
  return ex;
}

async function send<T>(
  ctx: ExchangeContext,
  req: LeaderRequest<T>,
  outer: AbortSignal,
  gated: boolean,
): Promise<Exchange<T>> {
  const { dispatcher, budget, limits, watchdog } = ctx;
  // A permit granted just before another answer paused the budget must not go out: checked in the same
  // synchronous run as the send, since the continuation after the grant may run after that answer's.
  if (gated && budget.blocked()) {
    return {
      attempt: finalFailure('throttled', `${describeRequest(req)}: not sent, paused`),
      outcome: 'neutral',
      notSent: true,
    };
  }
  // One AbortController per exchange: aborted by the caller's signal or by the watchdog (our own
  // deadline on the injected clock, since undici's timers cannot be driven by tests).
  const ac = new AbortController();
  const onOuter = (): void => ac.abort(outer.reason);
  if (outer.aborted) ac.abort(outer.reason);
  else outer.addEventListener('abort', onOuter, { once: true });
  let timedOut: number | undefined;
  const watch = watchdog.add(limits.connectTimeoutMs + limits.headersTimeoutMs, (phaseMs) => {
    timedOut = phaseMs;
    ac.abort(TIMED_OUT);
  });
  try {
    let res: Dispatcher.ResponseData;
    try {
      res = await dispatcher.request({
        origin: ctx.origin,
        path: ctx.basePath + req.path + queryString(req.query),
        method: req.method ?? 'GET',
        headers: headers(ctx, req),
        ...(req.body ? { body: req.body.payload } : {}),
        signal: ac.signal,
        headersTimeout: limits.headersTimeoutMs,
        bodyTimeout: limits.bodyTimeoutMs,
      });
    } catch (err) {
      return transportFailure(req, err, timedOut, outer);
    }
    const status = res.statusCode;
    if (!(req.accept ?? [200]).includes(status)) {
      await res.body.dump({ limit: ERROR_BODY_LIMIT }).catch(() => undefined);
      return statusFailure(ctx, req, status, res.headers);
    }
    const rearm = (): void => watchdog.arm(watch, limits.bodyTimeoutMs);
    rearm();
    let text: string;
    try {
      text = await readCapped(res, limits.maxResponseBytes, rearm);
    } catch (err) {
      res.body.destroy();
      if (err instanceof ResponseTooLargeError) {
        const msg = `${describeRequest(req)}: response larger than ${limits.maxResponseBytes} bytes`;
        return { attempt: finalFailure('decode', msg, status), outcome: 'ok', code: TOO_LARGE };
      }
      return bodyFailure(req, err, status, timedOut, outer);
    }
    try {
      return { attempt: { ok: true, status, body: decodeBody(req, text, status, res.headers) }, outcome: 'ok' };
    } catch (err) {
      const what =
        err instanceof NotJson
          ? 'response is not valid JSON'
          : `unexpected response shape (${oneLine(err, req.bearer)})`;
      return { attempt: finalFailure('decode', `${describeRequest(req)}: ${what}`, status), outcome: 'ok' };
    }
  } finally {
    watchdog.remove(watch);
    outer.removeEventListener('abort', onOuter);
  }
}

function statusFailure<T>(
  ctx: ExchangeContext,
  req: LeaderRequest<T>,
  status: number,
  hdrs: Dispatcher.ResponseData['headers'],
): Exchange<T> {
  const c = classifyStatus(status, { nodeScoped: req.nodeScoped === true });
  const mayWait = c.retry === 'pause' || c.retry === 'unavailable' || c.retry === 'backoff';
  const serverDelayMs = mayWait ? parseRetryAfter(hdrs, ctx.clock.now()) : undefined;
  const attempt: AttemptFailure = {
    ok: false,
    reason: c.reason,
    status,
    message: `${describeRequest(req)}: HTTP ${status}`,
    retry: c.retry,
    ...(serverDelayMs !== undefined ? { serverDelayMs } : {}),
  };
  const throttles = c.retry === 'pause' || c.retry === 'unavailable';
  return { attempt, outcome: c.outcome, ...(throttles ? { throttle: String(status) as ThrottleCode } : {}) };
}

/**
 * The body broke off after the headers (the connection closed, the length did not match): the answer is
 * unusable, a `decode` failure of this status, not a connection failure. Timeouts stay timeouts.
 */
function bodyFailure<T>(
  req: LeaderRequest<T>,
  err: unknown,
  status: number,
  timedOutMs: number | undefined,
  outer: AbortSignal,
): Exchange<never> {
  const c = classifyError(err);
  if (timedOutMs !== undefined || outer.aborted || c.reason === 'timeout') {
    return transportFailure(req, err, timedOutMs, outer);
  }
  const message = redact(`${describeRequest(req)}: response body cut short (${c.code})`, req.bearer);
  return { attempt: { ok: false, reason: 'decode', status, message, retry: c.retry }, outcome: c.outcome };
}

function transportFailure<T>(
  req: LeaderRequest<T>,
  err: unknown,
  timedOutMs: number | undefined,
  outer: AbortSignal,
): Exchange<never> {
  if (timedOutMs !== undefined) {
    return {
      attempt: {
        ok: false,
        reason: 'timeout',
        message: `${describeRequest(req)}: timed out after ${timedOutMs} ms`,
        retry: 'backoff',
      },
      outcome: 'timeout',
    };
  }
  if (outer.aborted) {
    return {
      attempt: { ok: false, reason: 'timeout', message: `${describeRequest(req)}: aborted`, retry: 'none' },
      outcome: 'neutral',
    };
  }
  const c = classifyError(err);
  return {
    attempt: {
      ok: false,
      reason: c.reason,
      message: redact(
        `${describeRequest(req)}: ${c.reason === 'timeout' ? 'timed out' : 'connection failed'} (${c.code})`,
        req.bearer,
      ),
      retry: c.retry,
    },
    outcome: c.outcome,
  };
}

function headers<T>(ctx: ExchangeContext, req: LeaderRequest<T>): Record<string, string> {
  const h: Record<string, string> = { accept: 'application/json', 'user-agent': ctx.userAgent };
  if (req.bearer && !req.anonymous) h.authorization = `Bearer ${req.bearer}`;
  if (req.body) h['content-type'] = req.body.contentType;
  return h;
}

function decodeBody<T>(req: LeaderRequest<T>, text: string, status: number, headers: ResponseHeaders): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse messages quote the body; a body is not a log line.
    throw new NotJson();
  }
  try {
    return req.decode(json, status, headers);
  } catch (err) {
    throw err instanceof Error ? err : new DecodeFailed(String(err));
  }
}

function queryString(query: LeaderRequest<unknown>['query']): string {
  if (!query) return '';
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return qs ? `?${qs}` : '';
}
