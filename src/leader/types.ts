import type { Endpoint } from '@cribl-exporter/api/routes';
import type { LeaderHealth } from '@cribl-exporter/api/shapes';
import type { FailureReason } from '../http/failure.js';

/** Response headers, names in lower case. */
export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** One request to the leader, relative to the leader's base URL (…/api/v1). */
export interface LeaderRequest<T> {
  /** Default GET. */
  method?: 'GET' | 'POST' | 'PATCH';
  /** Request body (POST), with its media type. */
  body?: { contentType: string; payload: string };
  /** Send without credentials (/health, /auth/login): src/auth/with-auth.ts passes such requests through. */
  anonymous?: boolean;
  /** Bearer token for the Authorization header (set by src/auth/with-auth.ts; never logged, redacted from messages). */
  bearer?: string;
  /** Route template, for metrics and logs. */
  endpoint: Endpoint;
  /** Path below the base URL, every dynamic segment already encoded with encodeURIComponent. */
  path: string;
  query?: Readonly<Record<string, string | number>>;
  /** Statuses whose body is an answer (default [200]). Node health accepts [200, 420]. */
  accept?: readonly number[];
  /**
   * True for host-context requests (/w/{nodeId}/…): a 420 there is the node's own state and
   * never pauses the budget.
   */
  nodeScoped?: boolean;
  /**
   * An optional collector's request: a refusal (401/403) of it belongs to its endpoint, not to the credentials, and
   * never pauses node polling (src/auth/with-auth.ts); the collector turns itself off instead.
   */
  optional?: boolean;
  /**
   * Whether an accepted answer says the leader itself is not serving (its own 420 body: standby): the client then
   * holds every request to the leader, as after a 420 on a leader route, and probes /health until it serves again.
   * The answer still goes to the caller.
   */
  holds?(status: number, body: T): boolean;
  /** Epoch ms after which the request is not sent or retried (end of its poll cycle). */
  deadline?: number;
  /**
   * Turns the parsed JSON into T; throws on a wrong shape (reported as `decode`). The response headers are there
   * for the few that need one (`cribl-exporter check` reads `Date`).
   */
  decode: (json: unknown, status: number, headers: ResponseHeaders) => T;
  /**
   * A fast path for a fixed, common shape: the answer decoded straight from its text, or undefined to take the
   * generic path (JSON.parse, then `decode`). Must give what the generic path gives for every text it accepts.
   */
  decodeText?: (text: string, status: number) => T | undefined;
  signal?: AbortSignal;
  /**
   * Called after each exchange that was sent (each try), with how long it took from sending to the complete
   * answer or failure: the time the leader (and, in host context, the node) took, without waiting for the budget.
   */
  onExchange?: (elapsedMs: number) => void;
  /** Called when the budget lets the request go (each try): it is no longer waiting for the leader's rate. */
  onSent?: () => void;
}

export type LeaderResult<T> =
  | { ok: true; status: number; body: T }
  | {
      ok: false;
      reason: FailureReason;
      /** HTTP status when there was one. */
      status?: number;
      /** One line for logs; never a label value, never contains a secret. */
      message: string;
      /** The request never left the exporter (no room in the budget before its deadline): nothing about its target. */
      notSent?: true;
    };

/** What one HA host's last GET /health said (`--leader.ha-url`). */
export interface HostReading {
  /** host:port of its URL (the port only when not the scheme's default), the `host` label. */
  readonly host: string;
  /** Its answer (200 or 420), absent while it does not answer. */
  readonly health?: LeaderHealth;
  /** Why it did not answer with a health state, while it does not. */
  readonly failure?: FailureReason;
  /** When it last answered. */
  readonly lastSuccessMs?: number;
}

/** A leader's HA hosts, watched: one round of GET /health to each (one round at a time; callers share it). */
export interface LeaderHosts {
  /** Whether the API address is one of the hosts (no load balancer): requests follow the primary. */
  readonly direct: boolean;
  /** The host requests go to (direct), or undefined behind a load balancer. */
  readonly inUse: string | undefined;
  read(signal?: AbortSignal): Promise<readonly HostReading[]>;
}

/** The only way anything talks to a leader: one per leader, one budget per client. */
export interface LeaderClient {
  /** Base URL (…/api/v1), without credentials. */
  readonly baseUrl: string;
  /** The leader's HA hosts, when given (`--leader.ha-url`). */
  readonly hosts?: LeaderHosts;
  /**
   * `bearer`, when given, is used instead of `req.bearer` (src/auth/with-auth.ts passes the token here rather than
   * copying every request to set it).
   */
  request<T>(req: LeaderRequest<T>, bearer?: string): Promise<LeaderResult<T>>;
  /** Aborts in-flight requests and releases the connection pool. */
  close(): Promise<void>;
}

/** A failure as it leaves a client. */
export type LeaderFailure = Extract<LeaderResult<never>, { ok: false }>;

const MESSAGE_MAX = 200;

/** `GET /path`: how a request is named in messages. */
export function describeRequest(req: Pick<LeaderRequest<unknown>, 'method' | 'path'>): string {
  return `${req.method ?? 'GET'} ${req.path}`;
}

/** An error as one short line, with `secret` (a token) replaced by [redacted] wherever it appears. */
export function oneLine(err: unknown, secret?: string): string {
  const raw = err instanceof Error ? err.message : String(err);
  const line = raw.replace(/\s+/g, ' ').trim();
  return redact(line.length > MESSAGE_MAX ? `${line.slice(0, MESSAGE_MAX)}…` : line, secret);
}

/** `text` with every occurrence of `secret` replaced by [redacted]. */
export function redact(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('[redacted]') : text;
}

/** A failed result. */
export function failure(reason: FailureReason, message: string, status?: number): LeaderFailure {
  return { ok: false, reason, message, ...(status !== undefined ? { status } : {}) };
}
