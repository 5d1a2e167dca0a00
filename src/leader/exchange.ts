// Over 400 lines: one undici dispatch handler; its callbacks, deadlines and the classification of the outcome share
// the exchange's state.
/**
 * One HTTP exchange with a leader: send, read a bounded body, decode, and classify what went wrong. Never
 * throws. Records the request self-metric. The retry loop around it is src/leader/client.ts.
 */
import type { Dispatcher } from 'undici';
import type { Endpoint } from '@cribl-exporter/api/routes';
import { statusLabel } from '@cribl-exporter/api/statuses';
import { ResponseTooLargeError } from '../http/bounded.js';
import { classifyError, classifyStatus, type PermitOutcome, type RetryKind } from '../http/classify.js';
import type { FailureReason } from '../http/failure.js';
import { parseRetryAfter } from '../http/retry-after.js';
import type { Clock } from '@cribl-exporter/api/clock';
import type { RequestBudget } from './budget.js';
import { NODE_BODY_DEADLINE_MS, type LeaderClientLimits } from './settings.js';
import {
  describeRequest,
  oneLine,
  redact,
  type LeaderFailure,
  type LeaderRequest,
  type ResponseHeaders,
} from './types.js';
import type { Watch, Watchdog } from './watchdog.js';
import { onAbort, type Abortable } from './abort-fanout.js';

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
  /** The headers last sent without a body, for the next request with the same bearer (undici only reads them). */
  headerCache?: { bearer: string | undefined; headers: Record<string, string> };
  onRequest(endpoint: Endpoint, code: string, seconds: number): void;
}

class NotJson extends Error {}

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
 * request is not sent when a pause or hold is running at the moment of sending. `outer` (and `also`, when given)
 * abort it: a client's closing signal and the caller's.
 */
export function exchange<T>(
  ctx: ExchangeContext,
  req: LeaderRequest<T>,
  outer: AbortSignal,
  gated: boolean,
  also?: AbortSignal,
  bearer: string | undefined = req.bearer,
): Promise<Exchange<T>> {
  // A permit granted just before another answer paused the budget must not go out: checked in the same
  // synchronous run as the send, since the continuation after the grant may run after that answer's.
  if (gated && ctx.budget.blocked()) {
    return Promise.resolve({
      attempt: finalFailure('throttled', `${describeRequest(req)}: not sent, paused`),
      outcome: 'neutral',
      notSent: true,
    });
  }
  return new Promise((resolve) => new Call(ctx, req, bearer, resolve).send(outer, also));
}

const DEFAULT_ACCEPT: readonly number[] = [200];

/**
 * One exchange on undici's dispatch API instead of `request()`: no Readable for the body, no async iterator,
 * no AbortController and no abort listener per exchange (undici's controller aborts it), one promise. With the
 * abort fan-out, this took the request path (bench/req-path.mjs: client, budget, auth, decoder, self-metrics) from
 * 0.14–0.16 to about 0.08 ms of CPU per request, undici's request() alone being 0.04. The
 * outcomes are those of `request()` + a capped read: the tests in test/leader hold them.
 */
class Call<T> implements Dispatcher.DispatchHandler, Abortable {
  readonly #ctx: ExchangeContext;
  /**
   * The request and the caller's resolve, dropped (with the controller, headers, watch and signal sets) once the
   * exchange ends: undici keeps a finished handler referenced for a while, and a Call still holding its request
   * graph kept about 3 KB per request alive past two scavenges (bench/promotion-probe.mjs: 6.3 -> 1.1 MB/s promoted
   * at about 1,950 requests/s). test/leader/exchange-dispatch.test.ts holds it.
   */
  #req: LeaderRequest<T> | undefined;
  /** The token for the Authorization header (also redacted from every message). */
  readonly #bearer: string | undefined;
  #resolve: ((ex: Exchange<T>) => void) | undefined;
  readonly #started: number;
  #watch: Watch | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  /** Why to abort once undici hands over its controller (aborted before the request was started). */
  #pending: unknown = undefined;
  #outerAborted = false;
  #timedOutMs: number | undefined;
  #sets: Set<Abortable>[] = [];
  #status = 0;
  #headers: ResponseHeaders = NO_HEADERS;
  /** 0: no answer yet; 1: reading an accepted body; 2: dropping the body of an unaccepted status. */
  #phase: 0 | 1 | 2 = 0;
  #chunks: Buffer[] = [];
  #size = 0;
  /** The size limit of this request's route. */
  #maxBytes = 0;
  /** Epoch ms by which a node's body must have ended (host context), else Infinity. */
  #bodyEndsAt = Infinity;
  /** The watch runs to that deadline rather than to the idle timeout. */
  #bodyDeadline = false;
  #tooLarge = false;
  #done = false;

  constructor(
    ctx: ExchangeContext,
    req: LeaderRequest<T>,
    bearer: string | undefined,
    resolve: (ex: Exchange<T>) => void,
  ) {
    this.#ctx = ctx;
    this.#req = req;
    this.#bearer = bearer;
    this.#resolve = resolve;
    this.#started = ctx.clock.now();
  }

  send(outer: AbortSignal, also: AbortSignal | undefined): void {
    const ctx = this.#ctx;
    const req = this.#req;
    if (req === undefined) return;
    if (outer.aborted || also?.aborted) {
      this.#outerAborted = true;
      this.#finish(this.#failure(req, undefined));
      return;
    }
    this.#sets.push(onAbort(outer, this));
    if (also) this.#sets.push(onAbort(also, this));
    const { limits, watchdog } = ctx;
    // Our own deadline on the injected clock, since undici's timers cannot be driven by tests.
    this.#watch = watchdog.add(limits.connectTimeoutMs + limits.headersTimeoutMs, (phaseMs) => {
      this.#timedOutMs = phaseMs;
      this.#abortWith(TIMED_OUT);
    });
    try {
      ctx.dispatcher.dispatch(
        {
          origin: ctx.origin,
          path: ctx.basePath + req.path + queryString(req.query),
          method: req.method ?? 'GET',
          headers: headers(ctx, req, this.#bearer),
          body: req.body ? req.body.payload : null,
          headersTimeout: limits.headersTimeoutMs,
          bodyTimeout: limits.bodyTimeoutMs,
        },
        this,
      );
    } catch (err) {
      // undici's dispatchers report through onResponseError; any other that throws is a transport failure too.
      this.#finish(this.#failure(req, err));
    }
  }

  /** The caller's or the client's signal aborted. */
  abort(reason: unknown): void {
    if (this.#done) return;
    this.#outerAborted = true;
    this.#abortWith(reason);
  }

  #abortWith(reason: unknown): void {
    if (this.#controller) this.#controller.abort(reason instanceof Error ? reason : new Error(String(reason)));
    else this.#pending ??= reason;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#pending !== undefined) this.#abortWith(this.#pending);
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: ResponseHeaders): void {
    const req = this.#req;
    if (req === undefined || status < 200) return; // ended, or informational (1xx): the answer is still to come
    this.#status = status;
    this.#headers = headers;
    const { limits, watchdog } = this.#ctx;
    if (!(req.accept ?? DEFAULT_ACCEPT).includes(status)) {
      this.#phase = 2;
      return;
    }
    this.#phase = 1;
    // A node's answer (health, metadata) is a few KB: its own size limit, and a deadline for the whole body, so that
    // a body that drips gives its slot back as a timeout instead of holding it for as long as it drips.
    const node = req.nodeScoped === true;
    this.#maxBytes = node ? Math.min(limits.maxNodeResponseBytes, limits.maxResponseBytes) : limits.maxResponseBytes;
    if (node) this.#bodyEndsAt = this.#ctx.clock.now() + Math.min(NODE_BODY_DEADLINE_MS, limits.bodyTimeoutMs);
    const announced = Number(headers['content-length']);
    if (Number.isFinite(announced) && announced > this.#maxBytes) return this.#abortTooLarge(controller);
    this.#armBody(watchdog, limits.bodyTimeoutMs);
  }

  /** The body's idle timeout from now, never past the route's deadline for the whole body. */
  #armBody(watchdog: Watchdog, idleMs: number): void {
    if (!this.#watch) return;
    const left = this.#bodyEndsAt - this.#ctx.clock.now();
    this.#bodyDeadline = left < idleMs;
    watchdog.arm(this.#watch, this.#bodyDeadline ? Math.max(0, left) : idleMs);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#done) return;
    this.#size += chunk.length;
    if (this.#phase === 2) {
      // An error body is dropped, but not an endless one: past this the connection is closed instead.
      if (this.#size > ERROR_BODY_LIMIT) controller.abort(new Error('error body too large'));
      return;
    }
    const { limits, watchdog } = this.#ctx;
    if (this.#size > this.#maxBytes) return this.#abortTooLarge(controller);
    this.#armBody(watchdog, limits.bodyTimeoutMs);
    this.#chunks.push(chunk);
  }

  #abortTooLarge(controller: Dispatcher.DispatchController): void {
    this.#tooLarge = true;
    controller.abort(new ResponseTooLargeError(`response larger than ${this.#maxBytes} bytes`));
  }

  onResponseEnd(): void {
    const req = this.#req;
    if (req === undefined) return;
    if (this.#phase === 2) return this.#finish(statusFailure(this.#ctx, req, this.#status, this.#headers));
    const status = this.#status;
    const chunks = this.#chunks;
    const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, this.#size).toString('utf8');
    this.#chunks = [];
    let ex: Exchange<T>;
    try {
      ex = { attempt: { ok: true, status, body: decodeBody(req, text, status, this.#headers) }, outcome: 'ok' };
    } catch (err) {
      const what =
        err instanceof NotJson
          ? 'response is not valid JSON'
          : `unexpected response shape (${oneLine(err, this.#bearer)})`;
      ex = { attempt: finalFailure('decode', `${describeRequest(req)}: ${what}`, status), outcome: 'ok' };
    }
    this.#finish(ex);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    const req = this.#req;
    if (req === undefined) return;
    if (this.#phase === 2) {
      // The error body broke off (or was cut): the status is still the answer.
      this.#finish(statusFailure(this.#ctx, req, this.#status, this.#headers));
    } else if (this.#tooLarge) {
      const msg = `${describeRequest(req)}: response larger than ${this.#maxBytes} bytes`;
      this.#finish({ attempt: finalFailure('too_large', msg, this.#status), outcome: 'ok', code: TOO_LARGE });
    } else {
      this.#finish(this.#failure(req, err));
    }
  }

  /**
   * A try without a usable answer: our deadline, an abort, or the transport's error. A body that broke off after the
   * headers (the connection closed, the length did not match) is a `decode` failure of its status, not a connection
   * failure; timeouts stay timeouts.
   */
  #failure(req: LeaderRequest<T>, err: unknown): Exchange<never> {
    const what = describeRequest(req);
    if (this.#timedOutMs !== undefined) {
      const deadline = Math.min(NODE_BODY_DEADLINE_MS, this.#ctx.limits.bodyTimeoutMs);
      const message = this.#bodyDeadline
        ? `${what}: body not complete ${deadline} ms after its headers`
        : `${what}: timed out after ${this.#timedOutMs} ms`;
      return { attempt: { ok: false, reason: 'timeout', message, retry: 'backoff' }, outcome: 'timeout' };
    }
    if (this.#outerAborted) return { attempt: finalFailure('timeout', `${what}: aborted`), outcome: 'neutral' };
    const { reason, code, retry, outcome } = classifyError(err);
    if (this.#phase === 1 && reason !== 'timeout') {
      const message = redact(`${what}: response body cut short (${code})`, this.#bearer);
      return { attempt: { ok: false, reason: 'decode', status: this.#status, message, retry }, outcome };
    }
    const message = redact(
      `${what}: ${reason === 'timeout' ? 'timed out' : 'connection failed'} (${code})`,
      this.#bearer,
    );
    return { attempt: { ok: false, reason, message, retry }, outcome };
  }

  #finish(ex: Exchange<T>): void {
    const req = this.#req;
    const resolve = this.#resolve;
    if (this.#done || req === undefined || resolve === undefined) return;
    this.#done = true;
    this.#chunks = [];
    if (this.#watch) this.#ctx.watchdog.remove(this.#watch);
    for (const s of this.#sets) s.delete(this);
    const a = ex.attempt;
    const code = ex.code ?? (a.status !== undefined ? statusLabel(a.status) : a.ok ? 'unknown' : a.reason);
    this.#ctx.onRequest(req.endpoint, code, Math.max(0, this.#ctx.clock.now() - this.#started) / 1000);
    // Nothing of the exchange stays reachable from this handler once it has ended (see #req).
    this.#req = undefined;
    this.#resolve = undefined;
    this.#controller = undefined;
    this.#headers = NO_HEADERS;
    this.#watch = undefined;
    this.#sets = [];
    this.#pending = undefined;
    resolve(ex);
  }
}

const NO_HEADERS: ResponseHeaders = Object.freeze({});

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

function headers<T>(ctx: ExchangeContext, req: LeaderRequest<T>, token: string | undefined): Record<string, string> {
  const bearer = token && !req.anonymous ? token : undefined;
  const cached = ctx.headerCache;
  if (!req.body && cached !== undefined && cached.bearer === bearer) return cached.headers;
  const h: Record<string, string> = { accept: 'application/json', 'user-agent': ctx.userAgent };
  if (bearer) h.authorization = `Bearer ${bearer}`;
  if (req.body) h['content-type'] = req.body.contentType;
  else ctx.headerCache = { bearer, headers: h };
  return h;
}

function decodeBody<T>(req: LeaderRequest<T>, text: string, status: number, headers: ResponseHeaders): T {
  if (req.decodeText) {
    const fast = req.decodeText(text, status);
    if (fast !== undefined) return fast;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse messages quote the body; a body is not a log line.
    throw new NotJson();
  }
  return req.decode(json, status, headers);
}

function queryString(query: LeaderRequest<unknown>['query']): string {
  if (!query) return '';
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return qs ? `?${qs}` : '';
}
