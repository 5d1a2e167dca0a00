/**
 * One monitored leader at run time: its connection (transport, budget, client, credentials), snapshot, discovery,
 * poller and jobs, and what the status page reads of it. The app (app.ts) starts one per leader or workspace.
 */

import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { connectLeader, type LeaderConnection } from './polling/connection.js';
import type { AuthProvider } from './auth/types.js';
import { SNAPSHOT_RENDERERS } from './collectors/index.js';
import type { LeaderConfig } from './config/types.js';
import { Discoverer } from './discovery/discovery.js';
import type { LeaderStatusSource } from './exposition/status/page.js';
import type { RequestBudget } from './leader/budget.js';
import type { LeaderClient } from './leader/types.js';
import type { BudgetState } from './leader/budget.js';
import { LeaderJob } from './polling/leader-job.js';
import type { CycleStatus } from './polling/cycle.js';
import { runPacks } from './polling/packs-job.js';
import { POLL_QUANTUM_MS, Poller } from './polling/poller.js';
import type { AllowedRate, LeaderRate } from './polling/rate.js';
import { SearchProbe } from './polling/search-probe.js';
import type { Schedule, ScheduledJob } from './polling/scheduler.js';
import { createLeaderSnapshot, type LeaderSnapshot } from './store/snapshot.js';
import type { LeaderSelfMetrics, SelfMetrics } from './telemetry/self-metrics.js';
import { forLeader } from './util/logger.js';
import type { AppDeps } from './app.js';

/** The app's dependencies with the clock filled in. */
export type Deps = Required<Pick<AppDeps, 'clock'>> & AppDeps;

/** What a status page or a test reads about one leader's polling. */
export interface LeaderStatus {
  leader: string;
  /** The rate allowed for the fleet of the last discovery (`--leader.max-rps`, auto or pinned). */
  allowed: AllowedRate;
  /** The budget now: the rate in force (`rate`), paused or not, the window, requests in flight. */
  budget: BudgetState;
  /** Health rounds: the last round's duration against the target, overrun and its cause, slow nodes. */
  cycle: CycleStatus & { nodes: number; slowNodes: number };
}

/** One monitored leader: its transport, budget, client, auth, snapshot, discovery, poller and jobs. */
export class LeaderRuntime {
  readonly cfg: LeaderConfig;
  readonly snapshot: LeaderSnapshot;
  readonly poller: Poller;
  readonly job: LeaderJob;
  readonly #search: SearchProbe | undefined;
  readonly budget: RequestBudget;
  /** What the status page at / shows of this leader. */
  readonly page: LeaderStatusSource;
  /** Resolves when the first health round ends (every node of the first discovery polled once); never on close. */
  readonly firstRound: Promise<void>;
  readonly #client: LeaderClient;
  readonly #auth: AuthProvider;
  readonly #rate: LeaderRate;
  readonly #deps: Deps;
  readonly #jobs: ScheduledJob[] = [];
  readonly #abort = new AbortController();
  readonly #log: Logger;

  /** Reads the leader's CA and client certificate files, then builds the runtime (no request is sent yet). */
  static async create(cfg: LeaderConfig, deps: Deps, self: SelfMetrics): Promise<LeaderRuntime> {
    const log = forLeader(deps.logger, cfg.name);
    const metrics = self.forLeader(cfg.name);
    const dispatcher = deps.dispatcher?.(cfg);
    const { intervals } = deps.config;
    // While the leader answers 420, the hold's /health probe keeps the leader's health families current; the job
    // that takes its answers is built after the connection.
    const probe: { job?: LeaderJob } = {};
    const conn = await connectLeader(cfg, {
      plan: {
        healthIntervalMs: intervals.healthMs,
        metadataIntervalMs: intervals.metadataMs,
        discoveryIntervalMs: intervals.discoveryMs,
        products: cfg.products.length,
      },
      onHealthProbe: (status, json) => probe.job?.onHealthProbe(status, json),
      clock: deps.clock,
      ...(deps.random ? { random: deps.random } : {}),
      logger: log,
      readFile: deps.readFile,
      env: deps.env,
      version: deps.version,
      metrics,
      ...(dispatcher ? { dispatcher } : {}),
    });
    const rt = new LeaderRuntime(cfg, deps, metrics, conn, log);
    probe.job = rt.job;
    return rt;
  }

  private constructor(cfg: LeaderConfig, deps: Deps, metrics: LeaderSelfMetrics, conn: LeaderConnection, log: Logger) {
    this.cfg = cfg;
    this.#deps = deps;
    const { config, clock } = deps;
    setMaxListeners(0, this.#abort.signal);
    this.#auth = conn.auth;
    this.#client = conn.client;
    this.budget = conn.budget;
    this.#rate = conn.rate;
    this.snapshot = createLeaderSnapshot({ labels: cfg.labels, render: SNAPSHOT_RENDERERS });
    let firstRound: () => void = () => undefined;
    this.firstRound = new Promise((resolve) => (firstRound = resolve));
    this.page = {
      name: cfg.name,
      url: cfg.url,
      authMode: cfg.auth.mode,
      snapshot: this.snapshot,
      budget: () => conn.budget.state(),
      cycle: () => {
        const c = this.poller.status();
        return {
          targetMs: c.targetSeconds * 1000,
          ...(c.lastSeconds === undefined ? {} : { lastMs: c.lastSeconds * 1000 }),
          overrun: c.overrun,
          ...(c.cause === undefined ? {} : { cause: c.cause }),
        };
      },
    };
    this.poller = new Poller({
      client: this.#client,
      snapshot: this.snapshot,
      clock,
      logger: log,
      healthIntervalMs: config.intervals.healthMs,
      metadataIntervalMs: config.intervals.metadataMs,
      // Enough to keep the largest window busy, slow nodes that gave their slot back, and some waiting; the
      // budget sets the real pace.
      maxOutstanding: Math.max(16, cfg.budget.maxConcurrency * 4),
      metrics,
      budget: conn.budget,
      rate: { setting: cfg.budget.maxRps, ceiling: cfg.budget.maxRpsCeiling },
      slowPollMs: cfg.budget.headersTimeoutMs,
      quantumMs: POLL_QUANTUM_MS,
      onNodes: (n) => this.#rate.apply(n),
      onFirstRound: () => firstRound(),
    });
    this.job = new LeaderJob({
      discoverer: new Discoverer({ client: this.#client, products: cfg.products, logger: log }),
      poller: this.poller,
      client: this.#client,
      gitSettings: config.collectors.gitSettings,
      snapshot: this.snapshot,
      clock,
      logger: log,
      metrics,
      discoveryIntervalMs: config.intervals.discoveryMs,
      shard: config.shard,
      maxNodes: config.maxNodes,
    });
    this.#log = log;
    const probe = config.collectors.searchProbe;
    this.#search = probe
      ? new SearchProbe({ client: this.#client, snapshot: this.snapshot, clock, logger: log, ...probe })
      : undefined;
    metrics.healthCycle(config.intervals.healthMs / 1000, 0);
  }

  /**
   * Starts the discovery schedule and the health poller's loop (each node on its own schedule; metadata polls ride
   * on health answers, see Poller; a hand-driven schedule runs one health pass per `run` instead), and the packs
   * and search probe schedules when they are on.
   */
  start(schedule: Schedule): void {
    const { intervals, collectors } = this.#deps.config;
    const health = schedule(`health:${this.cfg.name}`, intervals.healthMs, (s) => this.poller.runHealthCycle(s), {
      loop: (s) => this.poller.run(s),
    });
    const packs =
      collectors.packsMs > 0
        ? schedule(`packs:${this.cfg.name}`, collectors.packsMs, async (s) => {
            await runPacks(
              {
                client: this.#client,
                snapshot: this.snapshot,
                clock: this.#deps.clock,
                logger: this.#log,
                intervalMs: collectors.packsMs,
              },
              s,
            );
          })
        : undefined;
    // New nodes are due at once: the poller starts on them as soon as a discovery has applied them.
    const discovery = schedule(`discovery:${this.cfg.name}`, intervals.discoveryMs, async (s) => {
      const first = !this.job.discovered;
      await this.job.discover(s);
      // Read the fleet's packs as soon as it is known rather than at the next tick.
      if (first && this.job.discovered) packs?.trigger();
    });
    this.#jobs.push(discovery, health, ...(packs ? [packs] : []));
    const search = this.#search;
    if (search && collectors.searchProbe) {
      this.#jobs.push(schedule(`search:${this.cfg.name}`, collectors.searchProbe.intervalMs, (s) => search.run(s)));
    }
  }

  status(): LeaderStatus {
    return {
      leader: this.cfg.name,
      allowed: this.#rate.current,
      budget: this.budget.state(),
      cycle: this.poller.status(),
    };
  }

  discover(): Promise<void> {
    return this.job.discover(this.#abort.signal);
  }

  pollNow(): Promise<void> {
    return this.poller.runHealthCycle(this.#abort.signal);
  }

  /** Re-reads the credential file of this leader, if its mode has one. */
  reload(): Promise<void> {
    return this.#auth.reload?.() ?? Promise.resolve();
  }

  async close(): Promise<void> {
    for (const j of this.#jobs) j.stop();
    this.#abort.abort(new Error('closing'));
    this.#auth.close();
    await this.#client.close();
  }
}
