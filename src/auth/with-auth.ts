/**
 * Credentials on a leader client: every request that is not anonymous gets the provider's current token as
 * its bearer, and a 401 gets one refresh of the credentials and one more try (when the mode can obtain a
 * different token). The client underneath knows nothing of auth.
 *
 * When the leader still refuses (401 after that refresh, or 403) the listing or a node's health check, the failure
 * is counted (`cribl_exporter_auth_failures_total{reason="rejected"|"forbidden"}`, whatever the mode) and node polling
 * for the leader pauses with capped exponential backoff: host-context requests are not sent until the pause ends,
 * then one goes out as a probe. Discovery keeps going at its own pace and probes too; the first accepted request
 * ends the pause. A refusal of any other route (a node's metadata, the groups, a collector's request) is its
 * endpoint's alone: it changes nothing here (an optional collector turns itself off: src/polling/collector-runs.ts).
 */
import type { Logger } from 'pino';
import { ENDPOINTS } from '../api/routes.js';
import { FAILURE_REASONS, type FailureReason } from '../http/failure.js';
import type { LeaderClient, LeaderFailure, LeaderRequest, LeaderResult } from '../leader/types.js';
import { describeRequest, failure, oneLine } from '../leader/types.js';
import type { Clock } from '../util/clock.js';
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
  const gate = opts ? new AuthPause(auth, opts) : undefined;
  const request = async <T>(req: LeaderRequest<T>): Promise<LeaderResult<T>> => {
    if (req.anonymous) return client.request(req);
    const held = gate?.enter(req);
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
      gate?.outcome(req, res);
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

/**
 * Pauses host-context requests while the leader refuses the credentials: the first refusal pauses for the base
 * delay, each refused probe doubles it up to the cap; one request goes out per pause as a probe.
 */
class AuthPause {
  readonly #auth: AuthProvider;
  readonly #o: WithAuthOptions;
  #until = 0;
  #streak = 0;
  #probing = false;
  #status: 401 | 403 | undefined;

  constructor(auth: AuthProvider, opts: WithAuthOptions) {
    this.#auth = auth;
    this.#o = opts;
  }

  /** A failure without sending, while node polling is paused; undefined when the request may go. */
  enter<T>(req: LeaderRequest<T>): LeaderFailure | undefined {
    if (this.#status === undefined || req.nodeScoped !== true) return undefined;
    const now = this.#o.clock.now();
    if (now >= this.#until && !this.#probing) {
      this.#probing = true; // this one goes out as the probe
      return undefined;
    }
    const until = this.#probing ? 'a probe is out' : `until ${new Date(this.#until).toISOString()}`;
    return failure(
      'http_4xx',
      `${describeRequest(req)}: not sent, the leader refused our credentials (${this.#status}); node polling paused ` +
        `(${until})`,
    );
  }

  /** What a request that went out got (undefined: nothing usable, e.g. aborted). */
  outcome<T>(req: LeaderRequest<T>, res: LeaderResult<T> | undefined): void {
    const probe = this.#probing && req.nodeScoped === true;
    if (probe) this.#probing = false;
    if (!res || req.optional === true) return;
    const refused = !res.ok && (res.status === 401 || res.status === 403) ? res.status : undefined;
    if (refused === undefined) {
      // An answer past the leader's credentials check says they are accepted again (429, 503 and 420 come before it).
      if (res.ok || (res.status !== undefined && !BEFORE_AUTH.has(res.status))) this.#resume(req);
      return;
    }
    // A refusal of any other route (a node's metadata, the groups, a collector's) is that route's alone.
    if (!PAUSING_ROUTES.has(req.endpoint)) return;
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
    if (first)
      this.#o.logger?.warn(
        fields,
        refused === 401
          ? 'the leader rejected our credentials (401, also after a refresh): node polling paused, discovery ' +
              'keeps trying'
          : 'the leader forbids these requests to our credentials (403): node polling paused, discovery keeps ' +
              'trying',
      );
    else this.#o.logger?.debug(fields, 'the leader still refuses our credentials: node polling paused longer');
  }

  #resume<T>(req: LeaderRequest<T>): void {
    if (this.#status === undefined) return;
    this.#o.logger?.info(
      { mode: this.#auth.mode, endpoint: req.endpoint },
      'credentials accepted again: node polling resumes',
    );
    this.#status = undefined;
    this.#streak = 0;
    this.#until = 0;
  }
}

/**
 * The routes whose refusal says the credentials cannot do the exporter's job, and so pauses node polling: the listing
 * and the node health checks. Everything else the exporter reads is extra: its refusal never holds the health polls
 * up (the groups, a node's metadata and each collector's routes say so per route instead).
 */
const PAUSING_ROUTES: ReadonlySet<string> = new Set([ENDPOINTS.workers, ENDPOINTS.masterWorkers, ENDPOINTS.nodeHealth]);

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
