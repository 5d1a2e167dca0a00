/**
 * A leader's HA hosts (`--leader.ha-url`): each host's GET /health, anonymously and outside the budget (one tiny
 * request per host, every discovery and every probe of a 420 hold), which host is primary, and failovers (the primary
 * is another host than the last primary seen). Without a load balancer (the API address is one of the hosts), the
 * client follows the primary: when the host in use does not serve and exactly one other host says it is a healthy
 * primary, requests go there (`use`); the budget, its learned limits and the credentials are the client's and stay.
 */
import type { Logger } from 'pino';
import { ENDPOINTS } from '@cribl-exporter/api/routes';
import { leaderHealthSchema, type LeaderHealth } from '@cribl-exporter/api/shapes';
import { parseRetryAfter } from '../http/retry-after.js';
import { exchange, type ExchangeContext } from './exchange.js';
import type { HostReading, LeaderHosts, LeaderRequest } from './types.js';

/** One host's answer: its health state (200 or 420) and the 420's Retry-After, if any. */
export interface HostAnswer {
  readonly status: number;
  readonly json: unknown;
  readonly health: LeaderHealth;
  readonly retryAfterMs?: number;
}

interface Host {
  readonly host: string;
  readonly origin: string;
  readonly basePath: string;
  readonly ctx: ExchangeContext;
  reading: HostReading;
  answer: HostAnswer | undefined;
}

export interface HostWatchOptions {
  /** The client's exchange context: each host gets a copy with its own origin and base path. */
  ctx: ExchangeContext;
  /** The hosts' base URLs (…/api/v1). */
  urls: readonly string[];
  /** The client's base URL: one of the hosts (direct: the API follows the primary), or a load balancer. */
  apiUrl: string;
  log: Logger;
  closing: AbortSignal;
  /** Direct only: the client sends to this host's origin and base path from now on. */
  use(origin: string, basePath: string): void;
  /** The primary moved to another host. */
  onFailover?(): void;
  /** Each round's readings. */
  onRead?(readings: readonly HostReading[]): void;
}

function probe(ctx: ExchangeContext): LeaderRequest<HostAnswer> {
  return {
    endpoint: ENDPOINTS.leaderHealth,
    path: '/health',
    anonymous: true,
    accept: [200, 420],
    decode: (json, status, headers) => {
      const health = leaderHealthSchema.parse(json);
      if ((status === 200) !== (health.status === 'healthy'))
        throw new Error(`status ${status} with health "${health.status}"`);
      const retryAfterMs = status === 420 ? parseRetryAfter(headers, ctx.clock.now()) : undefined;
      return { status, json, health, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    },
  };
}

/** The `host` label of a URL: host:port, the port only when it is not the scheme's default (as the leader's name). */
export function hostLabel(url: string): string {
  return new URL(url).host;
}

const isServingPrimary = (h: Host): boolean =>
  h.reading.health?.status === 'healthy' && h.reading.health.role === 'primary';

/** Watches the HA hosts of one leader; one round at a time. */
export class HostWatch implements LeaderHosts {
  /** Whether the API address is one of the hosts (no load balancer): the client follows the primary. */
  readonly direct: boolean;
  readonly #o: HostWatchOptions;
  readonly #hosts: Host[];
  #inUse: Host | undefined;
  #lastPrimary: string | undefined;
  #round: Promise<readonly HostReading[]> | undefined;
  #lastRoundMs = Number.NEGATIVE_INFINITY;

  constructor(opts: HostWatchOptions) {
    this.#o = opts;
    this.#hosts = opts.urls.map((u) => {
      const url = new URL(u);
      const host = url.host;
      const basePath = url.pathname.replace(/\/+$/, '');
      const { headerCache: _cache, ...shared } = opts.ctx;
      return {
        host,
        origin: url.origin,
        basePath,
        ctx: { ...shared, origin: url.origin, basePath },
        reading: { host },
        answer: undefined,
      };
    });
    const api = hostLabel(opts.apiUrl);
    this.#inUse = this.#hosts.find((h) => h.host === api);
    this.direct = this.#inUse !== undefined;
  }

  /** The host the API uses (direct), or undefined behind a load balancer. */
  get inUse(): string | undefined {
    return this.#inUse?.host;
  }

  /** The last readings, in the order the hosts were given. */
  readings(): readonly HostReading[] {
    return this.#hosts.map((h) => h.reading);
  }

  /** Direct: the last answer of the host in use, while it answers. */
  inUseAnswer(): HostAnswer | undefined {
    return this.#inUse?.answer;
  }

  /** Direct: whether the host in use last said it serves (200 healthy). */
  serving(): boolean {
    return this.#inUse?.answer?.status === 200;
  }

  /** One GET /health to every host at once; a round already running is shared. */
  read(): Promise<readonly HostReading[]> {
    return (this.#round ??= this.#readAll().finally(() => {
      this.#round = undefined;
    }));
  }

  /**
   * Direct: the host in use could not be reached (a crashed primary answers no 420): a round, at most one per probe
   * interval, so that requests follow a new primary without waiting for the next discovery.
   */
  unreachable(): void {
    const { clock, limits } = this.#o.ctx;
    if (!this.direct || this.#round || clock.now() - this.#lastRoundMs < limits.healthProbeIntervalMs) return;
    void this.read();
  }

  async #readAll(): Promise<readonly HostReading[]> {
    const { closing } = this.#o;
    this.#lastRoundMs = this.#o.ctx.clock.now();
    await Promise.all(
      this.#hosts.map(async (h) => {
        const { attempt } = await exchange(h.ctx, probe(h.ctx), closing, false);
        const now = h.ctx.clock.now();
        if (attempt.ok) {
          h.answer = attempt.body;
          h.reading = { host: h.host, health: attempt.body.health, lastSuccessMs: now };
        } else {
          h.answer = undefined;
          const { lastSuccessMs } = h.reading;
          h.reading = {
            host: h.host,
            failure: attempt.reason,
            ...(lastSuccessMs === undefined ? {} : { lastSuccessMs }),
          };
        }
      }),
    );
    if (closing.aborted) return this.readings();
    this.#notePrimary();
    if (this.direct) this.#follow();
    const readings = this.readings();
    this.#o.onRead?.(readings);
    return readings;
  }

  /** A failover: exactly one host says primary, and it is not the last primary seen. */
  #notePrimary(): void {
    const primaries = this.#hosts.filter((h) => h.reading.health?.role === 'primary');
    if (primaries.length !== 1) return;
    const now = primaries[0]!.host;
    const before = this.#lastPrimary;
    this.#lastPrimary = now;
    if (before === undefined || before === now) return;
    this.#o.onFailover?.();
    this.#o.log.warn({ from: before, to: now }, 'leader failover: another HA host is primary now');
  }

  /** Direct: when the host in use does not serve and exactly one host is a serving primary, use that one. */
  #follow(): void {
    const using = this.#inUse;
    if (!using || this.serving()) return;
    const serving = this.#hosts.filter(isServingPrimary);
    if (serving.length !== 1 || serving[0] === using) return;
    const next = serving[0]!;
    this.#inUse = next;
    this.#o.use(next.origin, next.basePath);
    this.#o.log.warn(
      { from: using.host, to: next.host },
      'the leader host in use does not serve and another HA host is primary: requests go there now',
    );
  }
}
