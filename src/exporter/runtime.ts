/**
 * One monitored leader at run time: its connection (transport, budget, client, credentials), snapshot, discovery,
 * poller and the collectors' schedules, and what the status page reads of it. The app (app.ts) starts one per leader
 * or workspace.
 */

import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { connectLeader } from '../auth/connection.js';
import type { AuthProvider } from '../auth/types.js';
import type { AutoDetail } from '../collectors/detail.js';
import type { Collector } from '../collectors/collector.js';
import { leaderHosts } from '../collectors/leader-hosts/index.js';
import { listing } from '../collectors/listing/index.js';
import { COLLECTORS } from '../collectors/registry.js';
import { settingsOf, targetOf, type Config, type LeaderConfig } from '../config/types.js';
import { Discoverer } from '../discovery/discovery.js';
import type { LeaderStatusSource } from '../exposition/status/page.js';
import type { BudgetState, RequestBudget } from '../leader/budget.js';
import type { LeaderClient } from '../leader/types.js';
import { CollectorRuns } from '../polling/collector-runs.js';
import type { CycleStatus } from '../polling/rounds.js';
import { DiscoveryStep } from '../polling/discovery-step.js';
import { nodeCollectors, NodePoll } from '../polling/node-poll.js';
import { POLL_QUANTUM_MS, Poller } from '../polling/poller.js';
import { LeaderRate, type AllowedRate } from '../polling/rate.js';
import type { Schedule, ScheduledJob } from '../polling/scheduler.js';
import { LeaderSnapshot } from '../store/snapshot.js';
import type { LeaderSelfMetrics, SelfMetrics } from '../telemetry/self-metrics.js';
import type { Clock, Random } from '@cribl-exporter/api/clock';
import type { ReadFile } from '../util/files.js';
import { forLeader } from '../util/logger.js';
import type { Dispatcher } from 'undici';

/** What a leader's runtime needs from the outside world (the app's dependencies, its clock filled in). */
export interface RuntimeDeps {
  config: Config;
  logger: Logger;
  version: string;
  readFile: ReadFile;
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  random?: Random;
  /** Replaces the transport built from the config (tests). */
  dispatcher?: (leader: LeaderConfig) => Dispatcher;
  /** `auto`'s node detail thresholds (tests only: a fleet across the real ones is too slow for a test). */
  autoDetail?: AutoDetail;
}

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
  readonly discovery: DiscoveryStep;
  readonly budget: RequestBudget;
  /** What the status page at / shows of this leader. */
  readonly page: LeaderStatusSource;
  /** Resolves when the first health round ends (every node of the first discovery polled once); never on close. */
  readonly firstRound: Promise<void>;
  readonly #client: LeaderClient;
  readonly #auth: AuthProvider;
  readonly #rate: LeaderRate;
  readonly #runs: CollectorRuns;
  readonly #deps: RuntimeDeps;
  readonly #settings = (c: Collector): unknown => settingsOf(this.#deps.config, c);
  readonly #jobs: ScheduledJob[] = [];
  readonly #abort = new AbortController();

  /** Reads the leader's CA and client certificate files, then builds the runtime (no request is sent yet). */
  static async create(cfg: LeaderConfig, deps: RuntimeDeps, self: SelfMetrics): Promise<LeaderRuntime> {
    const log = forLeader(deps.logger, cfg.name);
    const metrics = self.forLeader(cfg.name);
    const settings = (c: Collector): unknown => settingsOf(deps.config, c);
    const { primary, riders } = nodeCollectors(COLLECTORS, settings, () => true);
    const rate = new LeaderRate({
      setting: cfg.budget.maxRps,
      ceiling: cfg.budget.maxRpsCeiling,
      burst: cfg.budget.burst,
      plan: {
        nodeIntervalsMs: [primary, ...riders].map((c) => ({
          name: c.name,
          intervalMs: c.schedule.intervalMs(c.settings),
        })),
        discoveryIntervalMs: deps.config.discovery.discoveryMs,
        products: cfg.products.length,
      },
      logger: log,
    });
    // While the leader answers 420, the hold's /health probe keeps the leader's health facts current; the discovery
    // step that takes its answers is built after the connection.
    const probe: { discovery?: DiscoveryStep; snapshot?: LeaderSnapshot } = {};
    const conn = await connectLeader(cfg, {
      rate: rate.initial,
      onHealthProbe: (status, json) => probe.discovery?.onHealthProbe(status, json),
      // The HA hosts' readings of every round (a hold's too) go to the hosts collector's facts.
      onHosts: (readings) => probe.snapshot?.setLeaderFacts(leaderHosts.name, readings),
      clock: deps.clock,
      random: deps.random,
      logger: log,
      readFile: deps.readFile,
      env: deps.env,
      version: deps.version,
      metrics,
      dispatcher: deps.dispatcher?.(cfg),
    });
    rate.attach(conn.budget);
    const rt = new LeaderRuntime(cfg, deps, metrics, { ...conn, rate }, log);
    probe.discovery = rt.discovery;
    probe.snapshot = rt.snapshot;
    return rt;
  }

  private constructor(
    cfg: LeaderConfig,
    deps: RuntimeDeps,
    metrics: LeaderSelfMetrics,
    conn: { client: LeaderClient; auth: AuthProvider; budget: RequestBudget; rate: LeaderRate },
    log: Logger,
  ) {
    this.cfg = cfg;
    this.#deps = deps;
    const { config, clock } = deps;
    setMaxListeners(0, this.#abort.signal);
    this.#auth = conn.auth;
    this.#client = conn.client;
    this.budget = conn.budget;
    this.#rate = conn.rate;
    this.snapshot = new LeaderSnapshot(cfg.labels);
    this.#runs = new CollectorRuns({
      client: this.#client,
      store: this.snapshot,
      clock,
      logger: log,
      settingsOf: this.#settings,
      target: targetOf(cfg),
      metrics,
    });
    let firstRound: () => void = () => undefined;
    this.firstRound = new Promise((resolve) => (firstRound = resolve));
    const poll = new NodePoll({
      client: this.#client,
      store: this.snapshot,
      clock,
      logger: log,
      ...nodeCollectors(COLLECTORS, this.#settings, (c) => this.#runs.enabled(c)),
    });
    this.page = this.#statusSource(conn.budget);
    this.poller = this.#createPoller(poll, conn.budget, metrics, log, () => firstRound());
    this.discovery = new DiscoveryStep({
      discoverer: new Discoverer({ client: this.#client, products: cfg.products, logger: log }),
      poller: this.poller,
      collectors: COLLECTORS,
      runs: this.#runs,
      snapshot: this.snapshot,
      clock,
      logger: log,
      metrics,
      discoveryIntervalMs: config.discovery.discoveryMs,
      shard: config.shard,
      maxNodes: config.discovery.maxNodes,
      nodeDetail: { edge: config.discovery.edgeNodeDetail, stream: config.discovery.streamNodeDetail },
      ...(deps.autoDetail ? { autoDetail: deps.autoDetail } : {}),
    });
    metrics.healthCycle(poll.primaryIntervalMs / 1000, 0);
  }

  /** What the status page at / shows of this leader (read when the page is built). */
  #statusSource(budget: RequestBudget): LeaderStatusSource {
    const cfg = this.cfg;
    return {
      name: cfg.name,
      url: cfg.url,
      authMode: cfg.auth.mode,
      snapshot: this.snapshot,
      budget: () => budget.state(),
      cycle: () => {
        const c = this.poller.status();
        return {
          targetMs: c.targetSeconds * 1000,
          ...(c.lastSeconds === undefined ? {} : { lastMs: c.lastSeconds * 1000 }),
          overrun: c.overrun,
          cause: c.cause,
          neededRps: this.#rate.current.needed,
          discoveryIntervalMs: this.discovery.intervalMs,
          rotations: c.rotations,
        };
      },
      collectors: () => this.#runs.states(),
    };
  }

  /** The per-node schedule of this leader's polls, paced by its budget. */
  #createPoller(
    poll: NodePoll,
    budget: RequestBudget,
    metrics: LeaderSelfMetrics,
    log: Logger,
    onFirstRound: () => void,
  ): Poller {
    const { budget: b } = this.cfg;
    return new Poller({
      poll,
      snapshot: this.snapshot,
      listing: listing.name,
      clock: this.#deps.clock,
      logger: log,
      // Enough to keep the largest window busy, slow nodes that gave their slot back, and some waiting; the
      // budget sets the real pace.
      maxOutstanding: Math.max(16, b.maxConcurrency * 4),
      metrics,
      budget,
      rate: { setting: b.maxRps, ceiling: b.maxRpsCeiling },
      slowPollMs: b.headersTimeoutMs,
      quantumMs: POLL_QUANTUM_MS,
      // The discovery step decided the interval in force before it set the nodes.
      onNodes: (n, rotations) => this.#rate.apply(n, { ...rotations, discoveryIntervalMs: this.discovery.intervalMs }),
      onFirstRound,
    });
  }

  /**
   * Starts the discovery schedule and the poller's loop (each node on its own schedule; the riding collectors
   * follow its answers; a hand-driven schedule runs one pass per `run` instead), and the interval collectors'
   * schedules: at once, or for those that read the groups, once the first discovery has listed them; none of them
   * runs while discovery is failing.
   */
  start(schedule: Schedule): void {
    const { config } = this.#deps;
    const name = this.cfg.name;
    const health = schedule(`health:${name}`, this.poller.intervalMs, (s) => this.poller.runHealthCycle(s), {
      loop: (s) => this.poller.run(s),
    });
    const discoveryJob = schedule(`discovery:${name}`, config.discovery.discoveryMs, async (s) => {
      const first = !this.discovery.discovered;
      await this.discovery.discover(s);
      if (first && this.discovery.discovered) this.#startIntervals(schedule, true);
    });
    this.#jobs.push(discoveryJob, health);
    this.#startIntervals(schedule, false);
  }

  /** The schedules of the interval collectors that read the groups (`perGroup`) or those that do not. */
  #startIntervals(schedule: Schedule, perGroup: boolean): void {
    for (const c of COLLECTORS) {
      if (c.schedule.kind !== 'interval' || !this.#runs.enabled(c)) continue;
      if ((c.schedule.perGroup === true) !== perGroup) continue;
      const intervalMs = c.schedule.intervalMs(this.#settings(c));
      this.#jobs.push(
        schedule(`${c.name}:${this.cfg.name}`, intervalMs, async (s) => {
          // While the listing fails (the leader down, or the credentials refused: node polling paused), the other
          // reads would fail the same way; they wait for the next run after a discovery works again.
          if (this.discovery.failing) return;
          await this.#runs.run(c, this.#deps.clock.now() + intervalMs, s);
        }),
      );
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
    return this.discovery.discover(this.#abort.signal);
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
