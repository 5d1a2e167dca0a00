import type { FailureReason } from '../http/failure.js';

/**
 * Route templates: the `endpoint` label of our self-metrics. Never a raw URL.
 */
export const ENDPOINTS = {
  workers: '/products/{product}/workers',
  masterWorkers: '/master/workers',
  masterGroups: '/master/groups',
  groups: '/products/{product}/groups',
  nodeHealth: '/w/{nodeId}/health',
  nodeMetadata: '/w/{nodeId}/edge/metadata',
  leaderHealth: '/health',
  login: '/auth/login',
  oauthToken: '/oauth/token',
  workspaces: '/v1/organizations/{organizationId}/workspaces',
} as const;
export type Endpoint = (typeof ENDPOINTS)[keyof typeof ENDPOINTS];

/** One request to the leader, relative to the leader's base URL (…/api/v1). */
export interface LeaderRequest<T> {
  /** Default GET. */
  method?: 'GET' | 'POST';
  /** Request body (POST), with its media type. */
  body?: { contentType: string; payload: string };
  /** Send without the Authorization header (/health, /auth/login). */
  anonymous?: boolean;
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
  /** Epoch ms after which the request is not sent or retried (end of its poll cycle). */
  deadline?: number;
  /** Turns the parsed JSON into T; throws on a wrong shape (reported as `decode`). */
  decode: (json: unknown, status: number) => T;
  signal?: AbortSignal;
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
    };

/** The only way anything talks to a leader: one per leader, one budget per client. */
export interface LeaderClient {
  /** Base URL (…/api/v1), without credentials. */
  readonly baseUrl: string;
  request<T>(req: LeaderRequest<T>): Promise<LeaderResult<T>>;
  /** Aborts in-flight requests and releases the connection pool. */
  close(): Promise<void>;
}
