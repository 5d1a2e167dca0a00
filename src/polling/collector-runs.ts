/**
 * Runs the per-discovery and interval collectors of one leader: each run gets the leader's client (so its budget and
 * credentials), its settings, a deadline, and writes its facts under its own name in the leader's store.
 *
 * An optional collector whose requests the leader refuses (401, 403) or does not know (404), all of them in a run,
 * turns itself off for this leader: `cribl_exporter_collector_enabled{collector}` 0, the failure counted, one line
 * naming the endpoint (and the permission it needs); it is tried again at its next run, and on again at the first
 * answer. Its refusals never pause node polling (they are marked `optional`: src/auth/with-auth.ts) and change no
 * other collector. A collector refused on some of its routes only stays on and exports what the others answer; each
 * route's refusal is its own series (`cribl_exporter_endpoint_refused{collector,endpoint}`) and log line.
 */
import type { Logger } from 'pino';
import { groupKey, type Collector, type RunContext, type Target } from '../collectors/collector.js';
import { requestFailureReason } from '../collectors/failure-reason.js';
import type { LeaderClient, LeaderRequest, LeaderResult } from '../leader/types.js';
import type { LeaderSnapshot } from '../store/snapshot.js';
import type { Clock } from '@cribl-exporter/api/clock';

/** Where the runs report (the prom-client side lives in src/telemetry/). */
export interface CollectorMetrics {
  collectorEnabled(collector: string, on: boolean): void;
  collectorFailure(collector: string, reason: string): void;
  /** Whether the leader refused (401, 403) a route of the collector in its last run, or answered there. */
  endpointRefused?(collector: string, endpoint: string, refused: boolean): void;
  /** When a run of the collector last got an answer (epoch ms): how old the series it keeps through failures are. */
  collectorAnswered?(collector: string, epochMs: number): void;
  /** A collector's own gauge (Collector.gauges). */
  collectorGauge(name: string, value: number): void;
  /** Adds to a collector's own counter (Collector.gauges with `counter`). */
  collectorCount?(name: string, n: number): void;
}

export interface CollectorRunsOptions {
  client: LeaderClient;
  store: Pick<LeaderSnapshot, 'groups' | 'nodes' | 'leader' | 'setLeaderFacts' | 'setGroupFacts' | 'setNodesFacts'>;
  clock: Clock;
  logger: Logger;
  settingsOf: (c: Collector) => unknown;
  target: Target;
  metrics?: CollectorMetrics;
}

/** Why a collector is off for this leader. */
export type OffReason = 'forbidden' | 'unauthorized' | 'not_found';

/** A collector's state for this leader, for the status page. */
export interface CollectorState {
  readonly name: string;
  readonly on: boolean;
  readonly off?: { reason: OffReason; endpoint: string; sinceMs: number };
  /** When one of its runs last got an answer. */
  readonly lastSuccessMs?: number;
}

const REFUSED: Readonly<Record<number, OffReason>> = { 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' };

/** The collectors of a leader that run on a schedule kind (per discovery, or on their own interval). */
export class CollectorRuns {
  readonly #o: CollectorRunsOptions;
  readonly #states = new Map<string, CollectorState>();
  readonly #warned = new Set<string>();
  /** `collector endpoint` of the routes refused at their last request. */
  readonly #refusedRoutes = new Set<string>();
  /** Each collector's last value of a gauge, by gauge name: a gauge set by several reads the largest. */
  readonly #gauges = new Map<string, Map<string, number>>();

  constructor(o: CollectorRunsOptions) {
    this.#o = o;
  }

  /** Whether a collector runs for this leader with the settings in force. */
  enabled(c: Collector): boolean {
    return c.enabled?.(this.#o.settingsOf(c), this.#o.target) ?? true;
  }

  /** The state of every collector that ran, in the order they first ran. */
  states(): CollectorState[] {
    return [...this.#states.values()];
  }

  /**
   * A read made for a collector outside its run got an answer (the groups listing, read by the discovery step):
   * its freshness, as a run's answer would.
   */
  answered(name: string): void {
    const now = this.#o.clock.now();
    const prev = this.#states.get(name);
    this.#states.set(name, { ...(prev ?? { name, on: true }), lastSuccessMs: now });
    this.#o.metrics?.collectorAnswered?.(name, now);
  }

  /** One run of `c`, its requests bounded by `deadline`; returns the requests it sent. */
  async run(c: Collector, deadline: number, signal: AbortSignal): Promise<number> {
    const s = c.schedule;
    if (s.kind !== 'discovery' && s.kind !== 'interval') return 0;
    const { store, clock, logger, metrics } = this.#o;
    let requests = 0;
    let answered = 0;
    let refusal: { reason: OffReason; endpoint: string } | undefined;
    // Per route of this run: refused (401 or 403 on a request there: for one group at least) or answered (an answer,
    // and no refusal).
    const routes = new Map<string, boolean>();
    const optional = c.optional === true;
    const client: LeaderClient = {
      baseUrl: this.#o.client.baseUrl,
      ...(this.#o.client.hosts ? { hosts: this.#o.client.hosts } : {}),
      request: async <T>(req: LeaderRequest<T>): Promise<LeaderResult<T>> => {
        requests++;
        const res = await this.#o.client.request(optional ? { ...req, optional: true } : req);
        const reason = res.ok || res.status === undefined ? undefined : REFUSED[res.status];
        if (res.ok) answered++;
        else if (reason) refusal ??= { reason, endpoint: `${req.method ?? 'GET'} ${req.endpoint}` };
        // A 404 says the route is absent (an older leader), not refused: it changes neither.
        const refused = !res.ok && (res.status === 401 || res.status === 403);
        if (refused) routes.set(req.endpoint, true);
        else if (res.ok && !routes.has(req.endpoint)) routes.set(req.endpoint, false);
        if (!res.ok && !signal.aborted) metrics?.collectorFailure(c.name, requestFailureReason(res));
        return res;
      },
      close: () => Promise.resolve(),
    };
    const ctx: RunContext<unknown> = {
      settings: this.#o.settingsOf(c),
      client,
      clock,
      logger,
      deadline,
      signal,
      groups: () => store.groups(),
      nodes: () => store.nodes(),
      leaderFacts: () => store.leader().facts[c.name],
      leader: () => store.leader(),
      setLeaderFacts: (facts) => store.setLeaderFacts(c.name, facts),
      setGroupFacts: (facts) => store.setGroupFacts(c.name, facts),
      setNodeFacts: (facts) => store.setNodesFacts(c.name, facts),
      setGauge: (name, value) => {
        const by = this.#gauges.get(name) ?? new Map<string, number>();
        this.#gauges.set(name, by.set(c.name, value));
        metrics?.collectorGauge(name, Math.max(...by.values()));
      },
      count: (name, n) => metrics?.collectorCount?.(name, n),
      warnOnce: (key, fields, message) => {
        if (this.#warned.has(`${c.name}:${key}`)) return;
        this.#warned.add(`${c.name}:${key}`);
        logger.warn({ collector: c.name, ...fields }, message);
      },
    };
    await s.run(ctx);
    if (signal.aborted) return requests;
    // A route that only failed otherwise (a timeout, a 5xx) keeps what it said last.
    for (const [endpoint, refused] of routes) {
      metrics?.endpointRefused?.(c.name, endpoint, refused);
      const key = `${c.name} ${endpoint}`;
      const was = this.#refusedRoutes.has(key);
      if (refused) this.#refusedRoutes.add(key);
      else this.#refusedRoutes.delete(key);
      // A partial refusal (the collector stays on) is said here; a whole one by #settle.
      if (refused && !was && answered > 0) {
        logger.warn(
          { collector: c.name, endpoint },
          `the leader refuses ${endpoint} to our credentials: the ${c.name} collector exports what its other routes ` +
            `answer` +
            (c.permission ? ` (it needs ${c.permission})` : ''),
        );
      }
    }
    const off = optional && refusal !== undefined && answered === 0 ? refusal : undefined;
    this.#settle(c, off, answered > 0);
    return requests;
  }

  /** The collector's state after a run: off with the refusal, or on (from the first run, or again). */
  #settle(c: Collector, off: { reason: OffReason; endpoint: string } | undefined, answered: boolean): void {
    const { clock, logger, metrics, target, store } = this.#o;
    const prev = this.#states.get(c.name);
    const now = clock.now();
    const lastSuccessMs = answered ? now : prev?.lastSuccessMs;
    const next: CollectorState = {
      name: c.name,
      on: !off,
      ...(off ? { off: { ...off, sinceMs: prev?.off?.sinceMs ?? now } } : {}),
      ...(lastSuccessMs ? { lastSuccessMs } : {}),
    };
    this.#states.set(c.name, next);
    if (answered) metrics?.collectorAnswered?.(c.name, now);
    if (prev?.on !== next.on || prev === undefined) metrics?.collectorEnabled(c.name, next.on);
    if (off && prev?.on !== false) {
      // What it read before the refusal is not current any more: its series go until it answers again.
      store.setLeaderFacts(c.name, undefined);
      store.setGroupFacts(c.name, new Map(store.groups().map((g) => [groupKey(g.product, g.id), undefined])));
      store.setNodesFacts(c.name, new Map(store.nodes().map((n) => [n.key, undefined])));
      const fields = { collector: c.name, endpoint: off.endpoint, reason: off.reason };
      const what =
        off.reason === 'not_found'
          ? `the leader has no ${off.endpoint} (404)`
          : `the leader refuses ${off.endpoint} to our credentials (${off.reason === 'forbidden' ? 403 : 401})` +
            (c.permission ? `: it needs ${c.permission}` : '');
      const message = `${what}; the ${c.name} collector is off for this leader, tried again at its next run`;
      if (c.refusalExpected?.(target)) logger.info(fields, message);
      else logger.warn(fields, message);
    } else if (!off && prev?.on === false) {
      logger.info({ collector: c.name }, `the ${c.name} collector answers again: on`);
    }
  }
}
