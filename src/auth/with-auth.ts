/**
 * Credentials on a leader client: every request that is not anonymous gets the provider's current token as
 * its bearer, and a 401 gets one refresh of the credentials and one more try (when the mode can obtain a
 * different token). The client underneath knows nothing of auth.
 *
 * When the leader still refuses (401 after that refresh, or 403) the listing or a node's health check, the failure
 * is counted (`cribl_exporter_auth_failures_total{reason="rejected"|"forbidden"}`, whatever the mode) and polling
 * pauses with capped exponential backoff: after a refused listing every host-context request, after a refused health
 * check the health checks only (a leader-level state of that route: every node reads `forbidden`, or `unauthorized`,
 * whether its poll went out or was held back; the listing and a node's metadata go on). Held requests are not sent
 * until the pause ends, then one goes out as a probe. Discovery keeps going at its own pace and probes too; an
 * accepted answer ends the pause (after a 403 on the health checks, an answered health check). A refusal of any
 * other route (a node's metadata, the groups, a collector's request) is its endpoint's alone: it changes nothing here
 * (an optional collector turns itself off: src/polling/collector-runs.ts).
 */
import type { Logger } from 'pino';
import { ENDPOINTS } from '@cribl-exporter/api/routes';
import { FAILURE_REASONS, type FailureReason } from '../http/failure.js';
import type { LeaderClient, LeaderFailure, LeaderRequest, LeaderResult } from '../leader/types.js';
import { describeRequest, failure, oneLine } from '../leader/types.js';
import type { Clock } from '@cribl-exporter/api/clock';
import type { AuthMetrics, AuthProvider } from './types.js';

/** What the auth pause needs; without it a refused request is only counted and returned. */
export interface WithAuthOptions {
  clock: Clock;
  logger?: Logger;
  metrics?: AuthMetrics;
  /** Backoff of node polling after a refusal: the first pause (at least 5 s) and the longest. */
  backoff?: { baseMs: number; capMs: number };
}

/** The first pause of node polling after the credentials were refused (a refusal does not heal in 500 ms). */
export const AUTH_PAUSE_MIN_MS = 5_000;

/** The client with the provider's credentials on every request that is not anonymous. */
export function withAuth(client: LeaderClient, auth: AuthProvider, opts?: WithAuthOptions): LeaderClient {
  const gates = opts ? [new AuthPause(auth, opts, LISTING_PAUSE), new AuthPause(auth, opts, HEALTH_PAUSE)] : [];
  const request = async <T>(req: LeaderRequest<T>): Promise<LeaderResult<T>> => {
    if (req.anonymous) return client.request(req);
    const held = enter(gates, req);
    if (held) return held;
    let res: LeaderResult<T> | undefined;
    try {
      for (let refreshed = false; ; refreshed = true) {
        let token: string;
        try {
          token = await auth.token(req.signal);
        } catch (err) {
          return authFailure(req, auth.mode, err);
        }
        // Mode `none` hands out '': no header at all rather than an empty bearer. The token goes alongside the
        // request rather than into a copy of it.
        res = await (token ? client.request(req, token) : client.request(req));
        if (res.ok || res.status !== 401 || refreshed || !(await auth.invalidate(token))) return res;
      }
    } finally {
      for (const g of gates) g.outcome(req, res);
    }
  };
  return {
    get baseUrl() {
      return client.baseUrl;
    },
    ...(client.hosts ? { hosts: client.hosts } : {}),
    request,
    close: () => client.close(),
  };
}

/** The first gate that holds the request back; when none does, the request goes (as the probe of those due one). */
function enter<T>(gates: readonly AuthPause[], req: LeaderRequest<T>): LeaderFailure | undefined {
  const looks = gates.map((g) => g.look(req));
  const held = looks.find((l) => typeof l === 'object');
  if (held !== undefined) return held;
  looks.forEach((l, i) => l === 'probe' && gates[i]?.probeOut());
  return undefined;
}

/**
 * What one pause is about: the routes whose refusal starts it, the requests it holds back, and the answers that say
 * the credentials are accepted again.
 */
interface PauseScope {
  /** The refused routes that start the pause. */
  readonly refusedOn: ReadonlySet<string>;
  /** Whether the pause holds this request back. */
  holds(req: LeaderRequest<unknown>): boolean;
  /** Whether an answer past the credentials check to this request ends the pause refused with `status`. */
  endsOn(req: LeaderRequest<unknown>, status: 401 | 403): boolean;
  /** What is paused, for logs and messages. */
  readonly what: string;
}

/**
 * The listing refused: the credentials cannot do the exporter's job, every host-context request pauses; any
 * request answered past the credentials check ends the pause.
 */
const LISTING_PAUSE: PauseScope = {
  refusedOn: new Set([ENDPOINTS.workers, ENDPOINTS.masterWorkers]),
  holds: (req) => req.nodeScoped === true,
  endsOn: () => true,
  what: 'node polling',
};

/**
 * The node health checks refused (the listing answered): a leader-level state of that route. Only the health
 * checks pause (every node's poll reads the refusal, `forbidden` or `unauthorized`, whether it went out or not);
 * the listing and a node's other routes go on. A 403 is that route's rights: only an answered health check ends its
 * pause; after a 401 (the credentials) any answer past the credentials check does.
 */
const HEALTH_PAUSE: PauseScope = {
  refusedOn: new Set([ENDPOINTS.nodeHealth]),
  holds: (req) => req.endpoint === ENDPOINTS.nodeHealth,
  endsOn: (req, status) => status === 401 || req.endpoint === ENDPOINTS.nodeHealth,
  what: 'node health polling',
};

/**
 * Pauses the requests of its scope while the leader refuses the credentials: the first refusal pauses for the base
 * delay, each refused probe doubles it up to the cap; one request goes out per pause as a probe. A request held back
 * fails with the refusal in force (`unauthorized` or `forbidden`, with its status), as one that went out does.
 */
class AuthPause {
  readonly #auth: AuthProvider;
  readonly #o: WithAuthOptions;
  readonly #scope: PauseScope;
  #until = 0;
  #streak = 0;
  #probing = false;
  #status: 401 | 403 | undefined;

  constructor(auth: AuthProvider, opts: WithAuthOptions, scope: PauseScope) {
    this.#auth = auth;
    this.#o = opts;
    this.#scope = scope;
  }

  /** A failure without sending, while paused; 'probe' when the request may go as the probe; undefined: it may go. */
  look<T>(req: LeaderRequest<T>): LeaderFailure | 'probe' | undefined {
    if (this.#status === undefined || !this.#scope.holds(req)) return undefined;
    const now = this.#o.clock.now();
    if (now >= this.#until && !this.#probing) return 'probe';
    const until = this.#probing ? 'a probe is out' : `until ${new Date(this.#until).toISOString()}`;
    return failure(
      this.#status === 401 ? 'unauthorized' : 'forbidden',
      `${describeRequest(req)}: not sent, the leader refused our credentials (${this.#status}); ${this.#scope.what} ` +
        `paused (${until})`,
      this.#status,
    );
  }

  /** The request goes out as this pause's probe. */
  probeOut(): void {
    this.#probing = true;
  }

  /** What a request that went out got (undefined: nothing usable, e.g. aborted). */
  outcome<T>(req: LeaderRequest<T>, res: LeaderResult<T> | undefined): void {
    const probe = this.#probing && this.#scope.holds(req);
    if (probe) this.#probing = false;
    if (!res || req.optional === true) return;
    const refused = !res.ok && (res.status === 401 || res.status === 403) ? res.status : undefined;
    if (refused === undefined) {
      // An answer past the leader's credentials check says they are accepted again (429, 503 and 420 come before it).
      const past = res.ok || (res.status !== undefined && !BEFORE_AUTH.has(res.status));
      if (past && this.#status !== undefined && this.#scope.endsOn(req, this.#status)) this.#resume(req);
      return;
    }
    // A refusal of any other route (a node's metadata, the groups, a collector's) is that route's alone.
    if (!this.#scope.refusedOn.has(req.endpoint)) return;
    const reason = refused === 401 ? 'rejected' : 'forbidden';
    this.#o.metrics?.onFailure(this.#auth.mode, reason);
    const now = this.#o.clock.now();
    // A refusal while paused (discovery, or requests already in flight) does not lengthen the pause; a refused probe,
    // or the first refusal, does.
    if (now < this.#until && !probe) return;
    this.#streak++;
    const { baseMs, capMs } = this.#o.backoff ?? { baseMs: AUTH_PAUSE_MIN_MS, capMs: 60_000 };
    const base = Math.max(AUTH_PAUSE_MIN_MS, baseMs);
    const delay = Math.min(Math.max(base, capMs), base * 2 ** (this.#streak - 1));
    this.#until = now + delay;
    const first = this.#status === undefined;
    this.#status = refused;
    const fields = { mode: this.#auth.mode, status: refused, endpoint: req.endpoint, pauseMs: delay };
    const what = this.#scope.what;
    if (first)
      this.#o.logger?.warn(
        fields,
        refused === 401
          ? `the leader rejected our credentials (401, also after a refresh): ${what} paused, discovery keeps trying`
          : `the leader forbids these requests to our credentials (403): ${what} paused, discovery keeps trying`,
      );
    else this.#o.logger?.debug(fields, `the leader still refuses our credentials: ${what} paused longer`);
  }

  #resume<T>(req: LeaderRequest<T>): void {
    if (this.#status === undefined) return;
    this.#o.logger?.info(
      { mode: this.#auth.mode, endpoint: req.endpoint },
      `credentials accepted again: ${this.#scope.what} resumes`,
    );
    this.#status = undefined;
    this.#streak = 0;
    this.#until = 0;
  }
}

/** Statuses a leader answers before looking at the credentials. */
const BEFORE_AUTH = new Set([420, 429, 503]);

// AuthError reasons (src/auth/types.ts) onto the poll failure reasons.
const AUTH_REASONS: Readonly<Record<string, FailureReason>> = {
  invalid_credentials: 'http_4xx',
  rejected: 'http_4xx',
  forbidden: 'http_4xx',
  // A credential file missing, unreadable, empty or unusable: the exporter's settings, not the leader's answer.
  file_unreadable: 'settings',
  rate_limited: 'throttled',
  unreachable: 'connect',
  bad_response: 'decode',
  // The token service's own outage: a 5xx like any other, never a malformed answer.
  unavailable: 'http_5xx',
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
