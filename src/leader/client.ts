/**
 * The only way anything talks to a leader: one client per leader, every request through the leader's budget,
 * bounded retries, pauses on 429/503 and the 420 hold (src/leader/probe.ts). Knows nothing of credentials: a
 * request carries its bearer token (src/auth/with-auth.ts adds it).
 */
import { setMaxListeners } from 'node:events';
import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import { ENDPOINTS, type Endpoint } from '@cribl-exporter/api/routes';
import { retryDelay } from '../http/backoff.js';
import type { FailureReason } from '../http/failure.js';
import type { Clock, Random } from '@cribl-exporter/api/clock';
import {
  noopObserver,
  type BudgetObserver,
  type BudgetState,
  type DenyReason,
  type Permit,
  type RequestBudget,
} from './budget.js';
import {
  exchange,
  type Attempt,
  type AttemptFailure,
  type Exchange,
  type ExchangeContext,
  type ThrottleCode,
} from './exchange.js';
import { HostWatch } from './hosts.js';
import { UnavailableHold, type ProbeObserver } from './probe.js';
import { DEFAULT_CLIENT_LIMITS, type LeaderClientLimits } from './settings.js';
import { onAbort } from './abort-fanout.js';
import { sleepUntil } from '../util/timer.js';
import {
  describeRequest,
  failure,
  oneLine,
  type HostReading,
  type LeaderClient,
  type LeaderFailure,
  type LeaderRequest,
  type LeaderResult,
} from './types.js';
import { Watchdog } from './watchdog.js';
import { forLeader } from '../util/logger.js';

export type { ThrottleCode } from './exchange.js';

/**
 * Self-metric hooks of one leader client. The budget hooks are inherited so that one object can be given to
 * both the budget and the client.
 */
export interface LeaderClientMetrics extends BudgetObserver {
  /** One HTTP exchange ended; `code` is the status, or the failure reason when there was none. */
  onRequest(endpoint: Endpoint, code: string, seconds: number): void;
  /** The leader answered 429, 503 or 420 (outside host context). */
  onThrottled(code: ThrottleCode): void;
  /** A Retry-After longer than `maxPauseMs` was cut to it. */
  onPauseCapped?(): void;
  /** HA hosts given: called once with 0 at the start, then with 1 at each failover (another host is primary). */
  onFailovers?(n: 0 | 1): void;
}

/** Metrics hooks that do nothing. */
export const noopLeaderClientMetrics: LeaderClientMetrics = {
  ...noopObserver,
  onRequest: () => undefined,
  onThrottled: () => undefined,
};

/** What a leader client needs; everything with a side effect is injected. */
export interface LeaderClientOptions {
  /** Global-context base URL, ending in /api/v1; must not carry credentials. */
  baseUrl: string;
  /** The leader's configured name (the `leader` label, and a log field). */
  name: string;
  /** Production passes a keep-alive Agent (with the connect timeout set); tests a MockAgent. */
  dispatcher: Dispatcher;
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
  /** Each answer of GET /health while the leader is held unavailable (420): its status and JSON. */
  onHealthProbe?: ProbeObserver;
  /**
   * The leader's HA hosts (base URLs), each watched (src/leader/hosts.ts); when `baseUrl` is one of them, requests
   * follow the primary.
   */
  haUrls?: readonly string[];
  /** Each round of readings of the HA hosts (every discovery's and every probe's of a hold). */
  onHosts?: (readings: readonly HostReading[]) => void;
}

/** A leader client with its configured name. */
export interface NamedLeaderClient extends LeaderClient {
  readonly name: string;
}

/**
 * Creates the client through which everything talks to one leader. Every request takes a permit from the
 * budget; 429/503 pause the budget (Retry-After honoured, never shortened), a 420 outside host context holds
 * it while GET /health is probed until it answers 200. Requests that meet a hold wait for it until their
 * deadline; requests without a deadline fail at once with `leader_unavailable`. Retries: 429, 503, 420, 502, 504,
 * timeouts and transient connection errors only, at most `maxAttempts` tries, never past the request's deadline.
 * Never throws and never rejects: every failure is a LeaderResult with a reason from FAILURE_REASONS and a
 * one-line message without secrets.
 */
export function createLeaderClient(opts: LeaderClientOptions): NamedLeaderClient {
  return new BudgetedLeaderClient(opts);
}

const NOT_SENT = Symbol('not sent');

/** The requests that may use the budget's lane beyond a full window: discovery's listings and the leader's /health. */
const LANE: ReadonlySet<Endpoint> = new Set([
  ENDPOINTS.workers,
  ENDPOINTS.masterWorkers,
  ENDPOINTS.groups,
  ENDPOINTS.masterGroups,
  ENDPOINTS.leaderHealth,
]);

class BudgetedLeaderClient implements NamedLeaderClient {
  readonly name: string;
  readonly hosts: HostWatch | undefined;
  readonly #o: LeaderClientOptions;
  readonly #limits: LeaderClientLimits;
  readonly #metrics: LeaderClientMetrics;
  readonly #log: Logger;
  readonly #closing = new AbortController();
  readonly #watchdog: Watchdog;
  readonly #ctx: ExchangeContext;
  readonly #hold: UnavailableHold;
  /** Requests in progress (a counter and one waiter for close(), not a set of promises). */
  #pending = 0;
  #idle: (() => void) | undefined;
  #throttleStreak = 0;
  #pauseCapLogged = false;

  constructor(opts: LeaderClientOptions) {
    const url = new URL(opts.baseUrl);
    if (url.username || url.password) {
      throw new Error(`leader ${opts.name}: the leader URL must not contain credentials`);
    }
    if (url.search || url.hash)
      throw new Error(`leader ${opts.name}: the leader URL must not have a query or fragment`);
    const basePath = url.pathname.replace(/\/+$/, '');
    this.name = opts.name;
    this.#o = opts;
    this.#limits = { ...DEFAULT_CLIENT_LIMITS, ...opts.limits };
    this.#metrics = opts.metrics ?? noopLeaderClientMetrics;
    this.#log = forLeader(opts.logger, opts.name);
    this.#watchdog = new Watchdog(opts.clock);
    this.#ctx = {
      origin: url.origin,
      basePath,
      dispatcher: opts.dispatcher,
      budget: opts.budget,
      clock: opts.clock,
      limits: this.#limits,
      watchdog: this.#watchdog,
      userAgent: opts.userAgent ?? 'cribl-exporter',
      onRequest: (endpoint, code, seconds) => this.#metrics.onRequest(endpoint, code, seconds),
    };
    this.hosts = opts.haUrls?.length
      ? new HostWatch({
          ctx: this.#ctx,
          urls: opts.haUrls,
          apiUrl: opts.baseUrl,
          log: this.#log,
          closing: this.#closing.signal,
          use: (origin, path) => {
            this.#ctx.origin = origin;
            this.#ctx.basePath = path;
          },
          ...(this.#metrics.onFailovers ? { onFailover: () => this.#metrics.onFailovers?.(1) } : {}),
          ...(opts.onHosts ? { onRead: opts.onHosts } : {}),
        })
      : undefined;
    if (this.hosts) this.#metrics.onFailovers?.(0);
    this.#hold = new UnavailableHold(this.#ctx, this.#log, this.#closing.signal, opts.onHealthProbe, this.hosts);
    // Every request in flight listens for close(): as many listeners as requests, by design.
    setMaxListeners(0, this.#closing.signal);
  }

  /** The base URL requests go to: the API address, or the HA host it follows. */
  get baseUrl(): string {
    return `${this.#ctx.origin}${this.#ctx.basePath}`;
  }

  async close(): Promise<void> {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort(new Error('leader client closed'));
    this.#o.budget.close();
    const idle = this.#pending === 0 ? Promise.resolve() : new Promise<void>((resolve) => (this.#idle = resolve));
    await Promise.allSettled([idle, this.#hold.idle()]);
    this.#watchdog.close();
    // A dispatcher already closed or destroyed has nothing left to release.
    if (this.#o.closeDispatcher !== false) await this.#o.dispatcher.close().catch(() => undefined);
  }

  // One async function per request (the loop, the exchange's outcome applied synchronously): each async frame
  // and promise per request is CPU and garbage at thousands of requests per second.
  async request<T>(req: LeaderRequest<T>, bearer: string | undefined = req.bearer): Promise<LeaderResult<T>> {
    this.#pending++;
    try {
      const bad = unsafePath(req.path);
      if (bad) return failure('decode', `${describeRequest(req)}: refused path (${bad})`);
      const { budget, clock } = this.#o;
      const closing = this.#closing.signal;
      const signal = req.signal;
      const detachable = req.nodeScoped === true;
      let attempt = 0;
      let last: AttemptFailure | undefined;
      for (;;) {
        if (closing.aborted || signal?.aborted)
          return last ? strip(last) : failure('timeout', `${describeRequest(req)}: aborted`);
        attempt++;
        // The client's closing signal is not passed: close() closes the budget, which denies every waiter.
        // Everything but a node poll has priority: discovery and the leader's own requests never wait behind the fleet.
        const got = await budget.acquire({
          deadline: req.deadline,
          signal,
          detachable,
          priority: !detachable,
          lane: LANE.has(req.endpoint),
        });
        if (!got.granted) return last ? strip(last) : denialFailure(req, got.denied, budget.state());
        req.onSent?.();

        const started = clock.now();
        const result = this.#outcome(req, got, await exchange(this.#ctx, req, closing, true, signal, bearer));
        if (result === NOT_SENT) {
          // Wait for the pause like everyone else (or give up if it outlasts the deadline); not a try.
          attempt--;
          continue;
        }
        req.onExchange?.(clock.now() - started);
        if (result.ok) {
          if (req.holds?.(result.status, result.body)) {
            // An answer the request accepts (a node's 420) that says the leader itself is not serving.
            this.#metrics.onThrottled('420');
            this.#hold.start(undefined, req.endpoint);
          }
          return result;
        }
        last = result;
        // Without a load balancer, a host that cannot be reached may be a primary that crashed: look for another.
        if (result.reason === 'connect') this.hosts?.unreachable();
        // A host-context request that timed out says the node is slow (the leader waited for it): a retry within
        // the same poll would wait as long again and hold the budget for it. The node's next poll tries again.
        const nodeTimeout = detachable && result.reason === 'timeout';
        if (result.retry === 'none' || nodeTimeout || attempt >= this.#limits.maxAttempts) return strip(last);
        // 429/503/420 wait through the budget's pause or hold; the rest back off on their own.
        const server = result.serverDelayMs;
        const delay =
          result.retry === 'backoff'
            ? this.#backoff(attempt, server === undefined ? undefined : Math.min(server, this.#limits.maxPauseMs))
            : 0;
        const at = clock.now() + delay;
        if (req.deadline !== undefined && at >= req.deadline) return strip(result);
        // Only a retry waits on the two signals, through their fan-outs (a listener per waiting request on the
        // caller's signal would pile up on a poller's signal while many nodes back off).
        if (closing.aborted || signal?.aborted) return strip(result);
        const sleeper = new AbortController();
        const sets = [onAbort(closing, sleeper)];
        if (signal) sets.push(onAbort(signal, sleeper));
        try {
          await sleepUntil(clock, at, sleeper.signal);
        } catch {
          return strip(result);
        } finally {
          for (const s of sets) s.delete(sleeper);
        }
      }
    } catch (err) {
      // Defensive: the loop handles every failure it knows; anything else must still not reject.
      return failure('decode', `${describeRequest(req)}: unexpected client error (${oneLine(err, bearer)})`);
    } finally {
      if (--this.#pending === 0) this.#idle?.();
    }
  }

  /** What one HTTP exchange came to; releases the permit with the outcome and applies pauses and holds. */
  #outcome<T>(req: LeaderRequest<T>, permit: Permit, result: Exchange<T>): Attempt<T> | typeof NOT_SENT {
    if (result.notSent) {
      permit.release('neutral');
      return NOT_SENT;
    }
    // Pause before releasing: the release may hand the slot straight to the next waiter.
    if (result.throttle) this.#onThrottle(req, result.throttle, result.attempt);
    else if (result.outcome === 'ok') this.#throttleStreak = 0;
    const a = result.attempt;
    // A 429, or a 503 that says when to come back: the leader enforces a rate, which the budget learns.
    const limit = result.throttle === '429' || (result.throttle === '503' && !a.ok && a.serverDelayMs !== undefined);
    const nodeTimeout = req.nodeScoped === true && result.outcome === 'timeout';
    permit.release(nodeTimeout ? 'node_timeout' : result.outcome, limit ? 'limit' : undefined);
    return result.attempt;
  }

  /**
   * A leader's Retry-After, at most `maxPauseMs` (a proxy's `Retry-After: 86400` would stop polling for a day):
   * a longer one is counted, and logged the first time with the value received.
   */
  #capped(serverDelayMs: number | undefined, code: ThrottleCode): number | undefined {
    const max = this.#limits.maxPauseMs;
    if (serverDelayMs === undefined || serverDelayMs <= max) return serverDelayMs;
    this.#metrics.onPauseCapped?.();
    if (!this.#pauseCapLogged) {
      this.#pauseCapLogged = true;
      this.#log.warn(
        { code, retryAfterMs: serverDelayMs, maxPauseMs: max },
        'the leader asked for a pause longer than --leader.max-pause: pausing for --leader.max-pause only',
      );
    }
    return max;
  }

  /** `serverDelayMs` when the leader gave one, else the backoff of the `attempt`th try. */
  #backoff(attempt: number, serverDelayMs: number | undefined): number {
    const { backoffBaseMs: baseMs, backoffMaxMs: capMs } = this.#limits;
    return retryDelay({ attempt, baseMs, capMs, random: this.#o.random, serverDelayMs });
  }

  #onThrottle<T>(req: LeaderRequest<T>, code: ThrottleCode, a: Attempt<T>): void {
    const { clock, budget } = this.#o;
    this.#metrics.onThrottled(code);
    const serverDelayMs = this.#capped(a.ok ? undefined : a.serverDelayMs, code);
    if (code === '420') {
      this.#hold.start(serverDelayMs, req.endpoint);
      return;
    }
    this.#throttleStreak++;
    const pauseMs = this.#backoff(this.#throttleStreak, serverDelayMs);
    const wasPaused = budget.state().paused;
    budget.pause(clock.now() + pauseMs);
    const fields = { code, endpoint: req.endpoint, pauseMs, retryAfter: serverDelayMs !== undefined };
    if (!wasPaused && pauseMs > 0) this.#log.warn(fields, 'leader asked to slow down: pausing all requests to it');
    else this.#log.debug(fields, 'leader throttled a request');
  }
}

/** Drops the internal retry fields from a failure before it leaves the client. */
function strip(a: AttemptFailure): LeaderFailure {
  return failure(a.reason, a.message, a.status);
}

const DENIALS: Readonly<Record<DenyReason, readonly [FailureReason, string]>> = {
  unavailable: ['leader_unavailable', 'not sent, the leader is not serving (420)'],
  paused: ['throttled', 'not sent, the leader asked for a pause that outlasts the deadline'],
  deadline: ['throttled', 'not sent, the request budget had no room before the deadline'],
  queue_full: ['throttled', 'not sent, too many requests already waiting for the budget'],
  aborted: ['timeout', 'aborted'],
  closed: ['timeout', 'aborted'],
};

/**
 * Why a request was not sent. A deadline that passed while every slot of the window was held by requests the leader
 * had not answered is the leader's slowness (`timeout`, as a hanging leader's requests are), not throttling.
 */
function denialFailure<T>(
  req: LeaderRequest<T>,
  denied: DenyReason,
  state: Pick<BudgetState, 'inFlight' | 'limit'>,
): LeaderFailure {
  if (denied === 'deadline' && state.inFlight >= state.limit) {
    const what = 'not sent, every request slot was held by requests the leader had not answered';
    return { ...failure('timeout', `${describeRequest(req)}: ${what}`), notSent: true };
  }
  const [reason, what] = DENIALS[denied];
  return { ...failure(reason, `${describeRequest(req)}: ${what}`), notSent: true };
}

/** Why a path is refused, or undefined when it is safe to put below the base URL. */
export function unsafePath(path: string): string | undefined {
  // One scan for the common path (no refused character, no dot); the reasons are worked out only for the rest.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  if (path.startsWith('/') && !/[?#\\.\u0000-\u0020\u007f]/.test(path)) return undefined;
  if (!path.startsWith('/')) return 'must start with /';
  if (/[?#\\]/.test(path)) return 'raw ?, # or \\';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  if (/[\u0000-\u0020\u007f]/.test(path)) return 'whitespace or control character';
  // A dot segment spelled with a literal dot would be resolved away by the server or a proxy. Fully
  // percent-encoded (%2E, %2E%2E: what segment() sends for the node ids "." and "..") it is a name.
  for (const segment of path.split('/')) {
    if (/^(\.|%2e){1,2}$/i.test(segment) && segment.includes('.')) return 'dot segment';
  }
  return undefined;
}
