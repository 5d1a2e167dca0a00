import { setMaxListeners } from 'node:events';
import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import type { AuthProvider } from '../auth/types.js';
import type { BudgetConfig } from '../config/types.js';
import type { Clock, Random } from '../util/clock.js';
import type { BudgetObserver, DenyReason, Permit, PermitOutcome, RequestBudget } from './budget.js';
import type { FailureReason } from '../http/failure.js';
import type { Endpoint, LeaderClient, LeaderRequest, LeaderResult } from './types.js';
import { retryDelay } from '../http/backoff.js';
import { classifyError, classifyStatus, type RetryKind } from '../http/classify.js';
import { FAILURE_REASONS } from '../http/failure.js';
import { parseRetryAfter } from '../http/retry-after.js';
import { sleepUntil } from './sleep-until.js';
import { Watchdog } from './watchdog.js';
import { ENDPOINTS } from './types.js';

/** Statuses that pause the whole budget (`cribl_exporter_leader_throttled_total{code}`). */
export type ThrottleCode = '429' | '503' | '420';

/**
 * Self-metric hooks of one leader client. The budget hooks are inherited so that one object can be given to
 * both the budget and the client.
 */
export interface LeaderClientMetrics extends BudgetObserver {
  /** One HTTP exchange ended; `code` is the status, or the failure reason when there was none. */
  onRequest(endpoint: Endpoint, code: string, seconds: number): void;
  /** The leader answered 429, 503 or 420 (outside host context). */
  onThrottled(code: ThrottleCode): void;
}

/** Metrics hooks that do nothing. */
export const noopLeaderClientMetrics: LeaderClientMetrics = {
  onRequest: () => undefined,
  onThrottled: () => undefined,
  onConcurrencyChange: () => undefined,
  onInFlight: () => undefined,
  onPauseChange: () => undefined,
};

/** Per-request limits and retry pacing. */
export interface LeaderClientLimits {
  /** Time to connect; with `headersMs` it bounds the wait for response headers. @default 5000 */
  connectTimeoutMs: number;
  /** Time from sending to the response headers. @default 10000 */
  headersTimeoutMs: number;
  /** Longest silence between two chunks of the body (as --leader.timeout.body). @default 30000 */
  bodyTimeoutMs: number;
  /** Larger bodies fail the request (reason `decode`). @default 64 MiB */
  maxResponseBytes: number;
  /** Backoff for retries of 502, 504, timeouts and connection errors, and for 429/503 without Retry-After. @default 500 */
  backoffBaseMs: number;
  /** @default 30000 */
  backoffMaxMs: number;
  /** First GET /health probe after a 420; doubles up to `healthProbeMaxMs`. @default 5000 */
  healthProbeIntervalMs: number;
  /** @default 60000 */
  healthProbeMaxMs: number;
  /** Tries per request, the first included (a 401 refresh is not counted). @default 4 */
  maxAttempts: number;
}

/** Defaults of `LeaderClientLimits`. */
export const DEFAULT_CLIENT_LIMITS: Readonly<LeaderClientLimits> = Object.freeze({
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
  maxResponseBytes: 64 * 1024 * 1024,
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  healthProbeIntervalMs: 5_000,
  healthProbeMaxMs: 60_000,
  maxAttempts: 4,
});

/** Client limits from a leader's configured budget settings. */
export function clientLimitsFromConfig(b: BudgetConfig): LeaderClientLimits {
  return {
    ...DEFAULT_CLIENT_LIMITS,
    connectTimeoutMs: b.connectTimeoutMs,
    headersTimeoutMs: b.headersTimeoutMs,
    bodyTimeoutMs: b.bodyTimeoutMs,
    maxResponseBytes: b.maxResponseBytes,
    backoffBaseMs: b.backoffBaseMs,
    backoffMaxMs: b.backoffMaxMs,
    healthProbeIntervalMs: b.healthProbeIntervalMs,
    healthProbeMaxMs: Math.max(b.healthProbeIntervalMs, b.backoffMaxMs),
  };
}

/** What a leader client needs; everything with a side effect is injected. */
export interface LeaderClientOptions {
  /** Global-context base URL, ending in /api/v1; must not carry credentials. */
  baseUrl: string;
  /** The leader's configured name (the `leader` label, and a log field). */
  name: string;
  /** Production passes a keep-alive Agent (with the connect timeout set); tests a MockAgent. */
  dispatcher: Dispatcher;
  auth: AuthProvider;
  /** The leader's budget; the client closes it on close(). */
  budget: RequestBudget;
  clock: Clock;
  random: Random;
  logger: Logger;
  metrics?: LeaderClientMetrics;
  limits?: Partial<LeaderClientLimits>;
  /** Whether close() also closes the dispatcher. @default true */
  closeDispatcher?: boolean;
  /** @default 'cribl-exporter' */
  userAgent?: string;
}

/** A leader client with its configured name. */
export interface NamedLeaderClient extends LeaderClient {
  readonly name: string;
}

/**
 * Creates the client through which everything talks to one leader. Every request takes a permit from the
 * budget; 429/503 pause the budget (Retry-After honoured, never shortened), a 420 outside host context holds
 * it while GET /health is probed (anonymously, outside the budget, one probe at a time) until it answers 200.
 * Requests that meet a hold wait for it until their deadline; requests without a deadline fail at once with
 * `leader_unavailable`. Retries: 429, 503, 420, 502, 504, timeouts and transient connection errors only, at
 * most `maxAttempts` tries, never past the request's deadline. Never throws and never rejects: every failure
 * is a LeaderResult with a reason from FAILURE_REASONS and a one-line message without secrets.
 */
export function createLeaderClient(opts: LeaderClientOptions): NamedLeaderClient {
  return new BudgetedLeaderClient(opts);
}

type Failure = Extract<LeaderResult<never>, { ok: false }>;

interface AttemptFailure extends Failure {
  retry: RetryKind;
  /** Delay the server asked for (Retry-After), when it gave one. */
  serverDelayMs?: number;
}

type Attempt<T> = { ok: true; status: number; body: T } | AttemptFailure;

/** One HTTP exchange: its result, what it says about load, and whether the leader throttled. */
interface Exchange<T> {
  attempt: Attempt<T>;
  outcome: PermitOutcome;
  throttle?: ThrottleCode;
  /** Not sent: a pause began between the grant of the permit and the send. */
  notSent?: true;
}

const NOT_SENT = Symbol('not sent');

class ResponseTooLarge extends Error {}
class NotJson extends Error {}
class DecodeFailed extends Error {}

const ERROR_BODY_LIMIT = 64 * 1024;
const MESSAGE_MAX = 200;

class BudgetedLeaderClient implements NamedLeaderClient {
  readonly baseUrl: string;
  readonly name: string;
  readonly #origin: string;
  readonly #basePath: string;
  readonly #o: LeaderClientOptions;
  readonly #limits: LeaderClientLimits;
  readonly #metrics: LeaderClientMetrics;
  readonly #log: Logger;
  readonly #closing = new AbortController();
  readonly #watchdog: Watchdog;
  readonly #inFlight = new Set<Promise<unknown>>();
  #throttleStreak = 0;
  #probing: Promise<void> | undefined;

  constructor(opts: LeaderClientOptions) {
    const url = new URL(opts.baseUrl);
    if (url.username || url.password) {
      throw new Error(`leader ${opts.name}: the leader URL must not contain credentials`);
    }
    if (url.search || url.hash) throw new Error(`leader ${opts.name}: the leader URL must not have a query or fragment`);
    this.#origin = url.origin;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.baseUrl = `${this.#origin}${this.#basePath}`;
    this.name = opts.name;
    this.#o = opts;
    this.#limits = { ...DEFAULT_CLIENT_LIMITS, ...opts.limits };
    this.#metrics = opts.metrics ?? noopLeaderClientMetrics;
    this.#log = opts.logger.child({ leader: opts.name });
    this.#watchdog = new Watchdog(opts.clock);
    // Every request in flight listens for close(): as many listeners as requests, by design.
    setMaxListeners(0, this.#closing.signal);
  }

  request<T>(req: LeaderRequest<T>): Promise<LeaderResult<T>> {
    const p = this.#request(req).catch((err: unknown) => {
      // Defensive: #request handles every failure it knows; anything else must still not reject.
      return fail('decode', `${describe(req)}: unexpected client error (${oneLine(err)})`);
    });
    this.#inFlight.add(p);
    void p.finally(() => this.#inFlight.delete(p));
    return p;
  }

  async close(): Promise<void> {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort(new Error('leader client closed'));
    this.#o.budget.close();
    await Promise.allSettled([...this.#inFlight, this.#probing]);
    this.#watchdog.close();
    if (this.#o.closeDispatcher !== false) {
      try {
        await this.#o.dispatcher.close();
      } catch {
        // Already closed or destroyed: nothing left to release.
      }
    }
  }

  async #request<T>(req: LeaderRequest<T>): Promise<LeaderResult<T>> {
    const bad = unsafePath(req.path);
    if (bad) return fail('decode', `${describe(req)}: refused path (${bad})`);
    const { budget, clock, auth, random } = this.#o;
    const scope = linkSignals(req.signal, this.#closing.signal);
    try {
      let attempt = 0;
      let refreshed = false;
      let last: AttemptFailure | undefined;
      for (;;) {
        if (scope.signal.aborted) return strip(last) ?? fail('timeout', `${describe(req)}: aborted`);
        attempt++;
        let token: string | undefined;
        if (!req.anonymous) {
          try {
            token = await auth.token(scope.signal);
          } catch (err) {
            return strip(last) ?? authFailure(req, auth.mode, err);
          }
        }
        // Credentials first: a login request takes its own permit, so holding one here could deadlock.
        const got = await budget.acquire({ deadline: req.deadline, signal: scope.signal });
        if (!got.granted) return strip(last) ?? denialFailure(req, got.denied);

        const result = await this.#attempt(req, token, got, scope.signal);
        if (result === NOT_SENT) {
          // Wait for the pause like everyone else (or give up if it outlasts the deadline); not a try.
          attempt--;
          continue;
        }
        if (result.ok) return result;
        last = result;
        if (result.retry === 'none') return strip(result);
        if (result.retry === 'refresh') {
          if (refreshed || !auth.invalidate(token)) return strip(result);
          refreshed = true;
          attempt--;
          continue;
        }
        if (attempt >= this.#limits.maxAttempts) return strip(result);
        // 429/503/420 wait through the budget's pause or hold; the rest back off on their own.
        const delay =
          result.retry === 'backoff'
            ? retryDelay({
                attempt,
                baseMs: this.#limits.backoffBaseMs,
                capMs: this.#limits.backoffMaxMs,
                random,
                serverDelayMs: result.serverDelayMs,
              })
            : 0;
        const at = clock.now() + delay;
        if (req.deadline !== undefined && at >= req.deadline) return strip(result);
        try {
          await sleepUntil(clock, at, scope.signal);
        } catch {
          return strip(result);
        }
      }
    } finally {
      scope.dispose();
    }
  }

  /** One HTTP exchange; releases the permit with the outcome and applies pauses and holds. */
  async #attempt<T>(
    req: LeaderRequest<T>,
    token: string | undefined,
    permit: Permit,
    signal: AbortSignal,
  ): Promise<Attempt<T> | typeof NOT_SENT> {
    const result = await this.#exchange(req, token, signal, true);
    if (result.notSent) {
      permit.release('neutral');
      return NOT_SENT;
    }
    // Pause before releasing: the release may hand the slot straight to the next waiter.
    if (result.throttle) this.#onThrottle(req, result.throttle, result.attempt);
    else if (result.outcome === 'ok') this.#throttleStreak = 0;
    permit.release(result.outcome);
    return result.attempt;
  }

  #onThrottle<T>(req: LeaderRequest<T>, code: ThrottleCode, a: Attempt<T>): void {
    const { clock, budget, random } = this.#o;
    this.#metrics.onThrottled(code);
    const serverDelayMs = a.ok ? undefined : a.serverDelayMs;
    if (code === '420') {
      this.#startProbing(serverDelayMs, req);
      return;
    }
    this.#throttleStreak++;
    const pauseMs = retryDelay({
      attempt: this.#throttleStreak,
      baseMs: this.#limits.backoffBaseMs,
      capMs: this.#limits.backoffMaxMs,
      random,
      serverDelayMs,
    });
    const wasPaused = budget.state().paused;
    const until = clock.now() + pauseMs;
    budget.pause(until);
    const fields = { code, endpoint: req.endpoint, pauseMs, retryAfter: serverDelayMs !== undefined };
    if (!wasPaused && pauseMs > 0) this.#log.warn(fields, 'leader asked to slow down: pausing all requests to it');
    else this.#log.debug(fields, 'leader throttled a request');
  }

  #startProbing<T>(serverDelayMs: number | undefined, req: LeaderRequest<T>): void {
    if (this.#probing || this.#closing.signal.aborted) return;
    this.#o.budget.hold();
    this.#log.warn(
      { endpoint: req.endpoint },
      'leader is not serving (420: shutting down or standby): pausing all requests and probing /health',
    );
    this.#probing = this.#probe(serverDelayMs)
      .catch(() => undefined)
      .finally(() => {
        this.#probing = undefined;
      });
  }

  async #probe(firstServerDelayMs: number | undefined): Promise<void> {
    const { clock, budget } = this.#o;
    const probe: LeaderRequest<null> = {
      endpoint: ENDPOINTS.leaderHealth,
      path: '/health',
      anonymous: true,
      accept: [200],
      decode: () => null,
    };
    let serverDelayMs = firstServerDelayMs;
    for (let n = 1; !this.#closing.signal.aborted; n++) {
      const interval = Math.min(this.#limits.healthProbeMaxMs, this.#limits.healthProbeIntervalMs * 2 ** (n - 1));
      await sleepUntil(clock, clock.now() + Math.max(interval, serverDelayMs ?? 0), this.#closing.signal);
      const { attempt } = await this.#exchange(probe, undefined, this.#closing.signal, false);
      // A 200 is enough, whatever its body: the leader is serving again.
      if (attempt.status === 200) {
        budget.resume();
        this.#log.info({ probes: n }, 'leader is serving again: resuming requests');
        return;
      }
      serverDelayMs = attempt.ok ? undefined : attempt.serverDelayMs;
      this.#log.debug({ probes: n, status: attempt.status, reason: attempt.ok ? undefined : attempt.reason }, 'leader still not serving');
    }
  }

  /**
   * Sends one request and reads its answer; never throws. Records the request metric. With `gated`, the
   * request is not sent when a pause or hold is running at the moment of sending.
   */
  async #exchange<T>(
    req: LeaderRequest<T>,
    token: string | undefined,
    outer: AbortSignal,
    gated: boolean,
  ): Promise<Exchange<T>> {
    const { clock } = this.#o;
    const started = clock.now();
    const ex = await this.#send(req, token, outer, gated);
    if (ex.notSent) return ex;
    const a = ex.attempt;
    const code = a.status !== undefined ? String(a.status) : a.ok ? 'unknown' : a.reason;
    this.#metrics.onRequest(req.endpoint, code, Math.max(0, clock.now() - started) / 1000);
    return ex;
  }

  async #send<T>(
    req: LeaderRequest<T>,
    token: string | undefined,
    outer: AbortSignal,
    gated: boolean,
  ): Promise<Exchange<T>> {
    const { dispatcher, budget } = this.#o;
    // A permit granted just before another answer paused the budget must not go out: checked in the same
    // synchronous run as the send, since the continuation after the grant may run after that answer's.
    if (gated && budget.blocked()) {
      return { attempt: final('throttled', `${describe(req)}: not sent, paused`), outcome: 'neutral', notSent: true };
    }
    const limits = this.#limits;
    // One AbortController per exchange: aborted by the caller's signal or by the watchdog (our own
    // deadline on the injected clock, since undici's timers cannot be driven by tests).
    const ac = new AbortController();
    const onOuter = (): void => ac.abort(outer.reason);
    if (outer.aborted) ac.abort(outer.reason);
    else outer.addEventListener('abort', onOuter, { once: true });
    let timedOut: number | undefined;
    const watch = this.#watchdog.add(limits.connectTimeoutMs + limits.headersTimeoutMs, (phaseMs) => {
      timedOut = phaseMs;
      ac.abort(TIMED_OUT);
    });
    const arm = (ms: number): void => this.#watchdog.arm(watch, ms);
    try {
      let res: Dispatcher.ResponseData;
      try {
        res = await dispatcher.request({
          origin: this.#origin,
          path: this.#basePath + req.path + queryString(req.query),
          method: req.method ?? 'GET',
          headers: this.#headers(req, token),
          ...(req.body ? { body: req.body.payload } : {}),
          signal: ac.signal,
          headersTimeout: limits.headersTimeoutMs,
          bodyTimeout: limits.bodyTimeoutMs,
        });
      } catch (err) {
        return this.#transportFailure(req, err, timedOut, outer, token);
      }
      const status = res.statusCode;
      if (!(req.accept ?? [200]).includes(status)) {
        await res.body.dump({ limit: ERROR_BODY_LIMIT }).catch(() => undefined);
        return this.#statusFailure(req, status, res.headers);
      }
      arm(limits.bodyTimeoutMs);
      let text: string;
      try {
        text = await readCapped(res, limits.maxResponseBytes, () => arm(limits.bodyTimeoutMs));
      } catch (err) {
        res.body.destroy();
        if (err instanceof ResponseTooLarge) {
          const msg = `${describe(req)}: response larger than ${limits.maxResponseBytes} bytes`;
          return { attempt: final('decode', msg, status), outcome: 'ok' };
        }
        return this.#transportFailure(req, err, timedOut, outer, token);
      }
      try {
        return { attempt: { ok: true, status, body: decodeBody(req, text, status) }, outcome: 'ok' };
      } catch (err) {
        const what =
          err instanceof NotJson ? 'response is not valid JSON' : `unexpected response shape (${oneLine(err, token)})`;
        return { attempt: final('decode', `${describe(req)}: ${what}`, status), outcome: 'ok' };
      }
    } finally {
      this.#watchdog.remove(watch);
      outer.removeEventListener('abort', onOuter);
    }
  }

  #statusFailure<T>(req: LeaderRequest<T>, status: number, headers: Dispatcher.ResponseData['headers']): Exchange<T> {
    const c = classifyStatus(status, { nodeScoped: req.nodeScoped === true, anonymous: req.anonymous === true });
    const mayWait = c.retry === 'pause' || c.retry === 'unavailable' || c.retry === 'backoff';
    const serverDelayMs = mayWait ? parseRetryAfter(headers, this.#o.clock.now()) : undefined;
    const attempt: AttemptFailure = {
      ok: false,
      reason: c.reason,
      status,
      message: `${describe(req)}: HTTP ${status}`,
      retry: c.retry,
      ...(serverDelayMs !== undefined ? { serverDelayMs } : {}),
    };
    const throttles = c.retry === 'pause' || c.retry === 'unavailable';
    return { attempt, outcome: c.outcome, ...(throttles ? { throttle: String(status) as ThrottleCode } : {}) };
  }

  #transportFailure<T>(
    req: LeaderRequest<T>,
    err: unknown,
    timedOutMs: number | undefined,
    outer: AbortSignal,
    token: string | undefined,
  ): Exchange<never> {
    if (timedOutMs !== undefined) {
      return {
        attempt: { ok: false, reason: 'timeout', message: `${describe(req)}: timed out after ${timedOutMs} ms`, retry: 'backoff' },
        outcome: 'timeout',
      };
    }
    if (outer.aborted) {
      return { attempt: { ok: false, reason: 'timeout', message: `${describe(req)}: aborted`, retry: 'none' }, outcome: 'neutral' };
    }
    const c = classifyError(err);
    return {
      attempt: {
        ok: false,
        reason: c.reason,
        message: redact(`${describe(req)}: ${c.reason === 'timeout' ? 'timed out' : 'connection failed'} (${c.code})`, token),
        retry: c.retry,
      },
      outcome: c.outcome,
    };
  }

  #headers<T>(req: LeaderRequest<T>, token: string | undefined): Record<string, string> {
    const h: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.#o.userAgent ?? 'cribl-exporter',
    };
    // Mode `none` hands out '': no header at all rather than an empty bearer.
    if (token && !req.anonymous) h.authorization = `Bearer ${token}`;
    if (req.body) h['content-type'] = req.body.contentType;
    return h;
  }
}

/** Reads the body as UTF-8, failing with ResponseTooLarge beyond `max` bytes (announced or streamed). */
async function readCapped(res: Dispatcher.ResponseData, max: number, onChunk: () => void): Promise<string> {
  const announced = Number(res.headers['content-length']);
  if (Number.isFinite(announced) && announced > max) throw new ResponseTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new ResponseTooLarge();
    onChunk();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

function decodeBody<T>(req: LeaderRequest<T>, text: string, status: number): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse messages quote the body; a body is not a log line.
    throw new NotJson();
  }
  try {
    return req.decode(json, status);
  } catch (err) {
    throw err instanceof Error ? err : new DecodeFailed(String(err));
  }
}

function final(reason: FailureReason, message: string, status?: number): AttemptFailure {
  return { ok: false, reason, message, retry: 'none', ...(status !== undefined ? { status } : {}) };
}

function fail(reason: FailureReason, message: string): Failure {
  return { ok: false, reason, message };
}

/** Drops the internal retry fields from a failure before it leaves the client. */
function strip(a: AttemptFailure): Failure;
function strip(a: AttemptFailure | undefined): Failure | undefined;
function strip(a: AttemptFailure | undefined): Failure | undefined {
  if (!a) return undefined;
  return { ok: false, reason: a.reason, message: a.message, ...(a.status !== undefined ? { status: a.status } : {}) };
}

function denialFailure<T>(req: LeaderRequest<T>, denied: DenyReason): Failure {
  switch (denied) {
    case 'unavailable':
      return fail('leader_unavailable', `${describe(req)}: not sent, the leader is not serving (420)`);
    case 'paused':
      return fail('throttled', `${describe(req)}: not sent, the leader asked for a pause that outlasts the deadline`);
    case 'deadline':
      return fail('throttled', `${describe(req)}: not sent, the request budget had no room before the deadline`);
    case 'queue_full':
      return fail('throttled', `${describe(req)}: not sent, too many requests already waiting for the budget`);
    case 'aborted':
    case 'closed':
      return fail('timeout', `${describe(req)}: aborted`);
  }
}

// AuthError reasons (src/auth/types.ts) onto the poll failure reasons.
const AUTH_REASONS: Readonly<Record<string, FailureReason>> = {
  invalid_credentials: 'http_4xx',
  file_unreadable: 'http_4xx',
  rate_limited: 'throttled',
  unreachable: 'connect',
  bad_response: 'decode',
};

function authFailure<T>(req: LeaderRequest<T>, mode: string, err: unknown): Failure {
  // An AuthError says why (e.g. its login request was throttled); anything else is a credentials problem.
  const r = (err as { reason?: unknown } | null)?.reason;
  const reason =
    typeof r === 'string' ? (AUTH_REASONS[r] ?? ((FAILURE_REASONS as readonly string[]).includes(r) ? (r as FailureReason) : undefined)) : undefined;
  return fail(reason ?? 'http_4xx', `${describe(req)}: no credentials (${mode}): ${oneLine(err)}`);
}

function describe<T>(req: LeaderRequest<T>): string {
  return `${req.method ?? 'GET'} ${req.path}`;
}

/** Why a path is refused, or undefined when it is safe to put below the base URL. */
export function unsafePath(path: string): string | undefined {
  if (!path.startsWith('/')) return 'must start with /';
  if (/[?#\\]/.test(path)) return 'raw ?, # or \\';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  if (/[\u0000-\u0020\u007f]/.test(path)) return 'whitespace or control character';
  for (const segment of path.split('/')) {
    if (/^(\.|%2e){1,2}$/i.test(segment)) return 'dot segment';
  }
  return undefined;
}

function queryString(query: LeaderRequest<unknown>['query']): string {
  if (!query) return '';
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return qs ? `?${qs}` : '';
}

function oneLine(err: unknown, secret?: string): string {
  const raw = err instanceof Error ? err.message : String(err);
  const line = raw.replace(/\s+/g, ' ').trim();
  return redact(line.length > MESSAGE_MAX ? `${line.slice(0, MESSAGE_MAX)}…` : line, secret);
}

function redact(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('[redacted]') : text;
}

// abort() without a reason builds a DOMException with a stack: measured at 7.6 % of the exporter's CPU at
// ~2,000 requests/s. These reasons are built once.
const TIMED_OUT = new Error('timeout');

/** One signal that aborts when any of the given ones does; dispose() removes the listeners. */
function linkSignals(...signals: (AbortSignal | undefined)[]): { signal: AbortSignal; dispose: () => void } {
  const ac = new AbortController();
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  const onAbort = function (this: AbortSignal): void {
    ac.abort(this.reason);
  };
  for (const s of live) {
    if (s.aborted) {
      ac.abort(s.reason);
      break;
    }
    s.addEventListener('abort', onAbort, { once: true });
  }
  return { signal: ac.signal, dispose: () => live.forEach((s) => s.removeEventListener('abort', onAbort)) };
}
