import type { ReadFile } from './util/files.js';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { connectLeader, type LeaderConnection } from './polling/connection.js';
import { createAuthProvider } from './auth/index.js';
import type { AuthProvider } from './auth/types.js';
import { renderManagement, SNAPSHOT_RENDERERS } from './collectors/index.js';
import type { ManagementState } from './collectors/state.js';
import { leaderConfigForWorkspace } from './config/leaders.js';
import type { Config, LeaderConfig } from './config/types.js';
import { Discoverer } from './discovery/discovery.js';
import { createWorkspaceWatcher, type WorkspaceWatcher } from './discovery/workspaces.js';
import { createBodyCache, type BodyCache } from './exposition/body.js';
import { startServer, type RunningServer } from './exposition/server.js';
import { createStatusPage, type LeaderStatusSource } from './exposition/status/page.js';
import { createDispatcher } from './http/transport.js';
import type { RequestBudget } from './leader/budget.js';
import type { LeaderClient } from './leader/types.js';
import type { BudgetState } from './leader/budget.js';
import { LeaderJob } from './polling/leader-job.js';
import type { CycleStatus } from './polling/cycle.js';
import { runPacks } from './polling/packs-job.js';
import { Poller } from './polling/poller.js';
import type { AllowedRate, LeaderRate } from './polling/rate.js';
import { SearchProbe } from './polling/search-probe.js';
import { cronSchedule, type Schedule, type ScheduledJob } from './polling/scheduler.js';
import { createScopeSnapshot } from './store/scope.js';
import { createLeaderSnapshot, type LeaderSnapshot } from './store/snapshot.js';
import { createSelfMetrics, type LeaderSelfMetrics, type SelfMetrics } from './telemetry/self-metrics.js';
import { systemClock, type Clock, type Random } from './util/clock.js';
import { forLeader } from './util/logger.js';

/** Everything the exporter needs from the outside world; src/cli.ts supplies the real ones. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  version: string;
  /** Source revision (`cribl_exporter_build_info{revision}`). @default 'unknown' */
  revision?: string;
  nodejsVersion: string;
  readFile: ReadFile;
  /** For HTTPS_PROXY / HTTP_PROXY / NO_PROXY. */
  env: Readonly<Record<string, string | undefined>>;
  clock?: Clock;
  random?: Random;
  schedule?: Schedule;
  /** Where the /metrics body is assembled. @default 'worker' (a worker thread; 'inline' is for tests) */
  bodyBuilder?: 'inline' | 'worker';
  /** Replaces the transport built from the config (tests). */
  dispatcher?: (leader: LeaderConfig) => Dispatcher;
  /** Turns a discovered workspace into a leader URL (the simulated management plane serves http). */
  workspaceUrl?: Parameters<typeof createWorkspaceWatcher>[0]['urlForWorkspace'];
}

/** A running exporter. */
export interface App {
  /** Base URL of the HTTP server, e.g. http://127.0.0.1:9864 */
  readonly url: string;
  readonly metricsUrl: string;
  /** True once a discovery succeeded. */
  ready(): boolean;
  /** Resolves after the next successful discovery of every leader (tests, demo). */
  readonly body: BodyCache;
  /** Names of the leaders monitored now. */
  leaders(): string[];
  /** Runs discovery of every leader now (tests). */
  discoverNow(): Promise<void>;
  /** Runs one health cycle of every leader now (tests). */
  pollNow(): Promise<void>;
  /** Re-reads the web config and every credential file now (SIGHUP); logs what it found, never throws. */
  reload(): Promise<void>;
  /** Per leader: the rate allowed and in force, the budget, and the health rounds (cheap: no walk over nodes). */
  status(): LeaderStatus[];
  close(): Promise<void>;
}

type Deps = Required<Pick<AppDeps, 'clock'>> & AppDeps;

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
class LeaderRuntime {
  readonly cfg: LeaderConfig;
  readonly snapshot: LeaderSnapshot;
  readonly poller: Poller;
  readonly job: LeaderJob;
  readonly #search: SearchProbe | undefined;
  readonly budget: RequestBudget;
  /** What the status page at / shows of this leader. */
  readonly page: LeaderStatusSource;
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
      onNodes: (n) => this.#rate.apply(n),
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

/** Starts the exporter: one runtime per leader (or per discovered workspace), the body cache and the server. */
export async function startApp(deps: AppDeps): Promise<App> {
  const full = { ...deps, clock: deps.clock ?? systemClock };
  const { config, logger } = full;
  const schedule =
    deps.schedule ??
    cronSchedule((name, e) => logger.error({ job: name, err: String(e) }, 'scheduled job failed'), full.clock);
  const self = createSelfMetrics({
    version: deps.version,
    nodejsVersion: deps.nodejsVersion,
    ...(deps.revision ? { revision: deps.revision } : {}),
  });
  self.setShard(config.shard.index, config.shard.total);

  const runtimes = new Map<string, LeaderRuntime>();
  // The management plane (Cribl.Cloud workspace discovery) is a scope of its own: it is not a leader.
  const management = config.cloudDiscovery ? createScopeSnapshot<ManagementState>(renderManagement) : undefined;
  const body = createBodyCache({
    snapshots: [],
    ...(management ? { management } : {}),
    intervals: {
      discoveryMs: config.intervals.discoveryMs,
      healthMs: config.intervals.healthMs,
      metadataMs: config.intervals.metadataMs,
      ...(config.collectors.packsMs > 0 ? { packsMs: config.collectors.packsMs } : {}),
      ...(config.collectors.searchProbe ? { searchProbeMs: config.collectors.searchProbe.intervalMs } : {}),
    },
    clock: full.clock,
    builder: deps.bodyBuilder ?? 'worker',
    onBuild: (s) => self.bodyBuilt(s),
    onBuilderLost: () => self.bodyWorkerLost(),
    onError: (e) => logger.error({ err: String(e) }, 'building /metrics failed'),
  });

  const setSnapshots = (): void => body.setSnapshots([...runtimes.values()].map((r) => r.snapshot));
  const addLeader = async (cfg: LeaderConfig): Promise<LeaderRuntime> => {
    const rt = await LeaderRuntime.create(cfg, full, self);
    runtimes.set(cfg.name, rt);
    setSnapshots();
    return rt;
  };
  const removeLeader = async (name: string): Promise<void> => {
    const rt = runtimes.get(name);
    if (!rt) return;
    runtimes.delete(name);
    setSnapshots();
    self.removeLeader(name);
    await rt.close();
  };

  let watcher: WorkspaceWatcher | undefined;
  let cloudAuth: AuthProvider | undefined;
  const statusPage = createStatusPage({
    leaders: () => [...runtimes.values()].map((r) => r.page),
    version: deps.version,
    telemetryPath: config.web.telemetryPath,
    clock: full.clock,
  });
  let server: RunningServer;
  const ready = (): boolean => [...runtimes.values()].some((r) => r.job.discovered);
  // Everything that reads a file or binds the port comes first; no leader request goes out before the server
  // listens, so that a bad certificate or a port in use fails the start before the leader hears of us.
  try {
    for (const l of config.leaders) await addLeader(l);
    if (config.cloudDiscovery) ({ watcher, cloudAuth } = await workspaceWatcher(config.cloudDiscovery, full, self));
    server = await startServer({
      listenAddress: config.web.listenAddress,
      telemetryPath: config.web.telemetryPath,
      body,
      selfMetrics: self,
      ready,
      version: deps.version,
      statusPage,
      ...(config.web.configFile ? { webConfigFile: config.web.configFile } : {}),
      maxConnections: config.web.maxConnections,
      clock: full.clock,
      logger,
    });
  } catch (e) {
    cloudAuth?.close();
    await Promise.all([...runtimes.values()].map((r) => r.close()));
    body.close();
    throw e;
  }
  for (const rt of runtimes.values()) rt.start(schedule);
  let workspaceJob: ScheduledJob | undefined;
  const cd = config.cloudDiscovery;
  const w = watcher;
  if (cd && w) {
    workspaceJob = schedule('workspaces', config.intervals.discoveryMs, async (signal) => {
      const r = await w.refresh(signal);
      if (signal.aborted) return;
      management?.set({ up: r.ok, workspaces: r.workspaces });
      if (!r.ok) return;
      for (const t of [...r.removed, ...r.changed]) await removeLeader(t.name);
      for (const t of [...r.added, ...r.changed]) (await addLeader(leaderConfigForWorkspace(cd, t))).start(schedule);
    });
  }
  logger.info(
    { url: `${server.url}${config.web.telemetryPath}`, leaders: [...runtimes.keys()] },
    'cribl-exporter listening',
  );

  const reload = async (): Promise<void> => {
    logger.info('SIGHUP: re-reading the web config and the credential files');
    await Promise.all([server.reload(), cloudAuth?.reload?.(), ...[...runtimes.values()].map((r) => r.reload())]);
  };

  return {
    url: server.url,
    metricsUrl: `${server.url}${config.web.telemetryPath}`,
    ready,
    body,
    leaders: () => [...runtimes.keys()],
    discoverNow: async () => {
      await Promise.all([...runtimes.values()].map((r) => r.discover()));
    },
    pollNow: async () => {
      await Promise.all([...runtimes.values()].map((r) => r.pollNow()));
    },
    reload,
    status: () => [...runtimes.values()].map((r) => r.status()),
    close: async () => {
      workspaceJob?.stop();
      cloudAuth?.close();
      await server.close();
      await Promise.all([...runtimes.values()].map((r) => r.close()));
      body.close();
    },
  };
}

/** The Cribl.Cloud workspace watcher and its credentials (no request is sent until its job runs). */
async function workspaceWatcher(
  cd: NonNullable<Config['cloudDiscovery']>,
  deps: Deps,
  self: SelfMetrics,
): Promise<{ watcher: WorkspaceWatcher; cloudAuth: AuthProvider }> {
  const dispatcher =
    deps.dispatcher?.({
      name: 'management',
      url: cd.managementUrl,
      labels: {},
      products: cd.products,
      auth: cd.auth,
      transport: cd.transport,
      budget: cd.budget,
    }) ??
    (await createDispatcher(cd.transport, {
      readFile: deps.readFile,
      env: deps.env,
      logger: deps.logger,
      connectTimeoutMs: cd.budget.connectTimeoutMs,
    }));
  const cloudAuth = createAuthProvider(cd.auth, {
    clock: deps.clock,
    readFile: deps.readFile,
    logger: deps.logger,
    dispatcher,
    metrics: self.forLeader('management'),
  });
  const watcher = createWorkspaceWatcher({
    managementUrl: cd.managementUrl,
    organization: cd.organization,
    domain: cd.domain,
    auth: cloudAuth,
    dispatcher,
    logger: deps.logger,
    ...(deps.workspaceUrl ? { urlForWorkspace: deps.workspaceUrl } : {}),
  });
  return { watcher, cloudAuth };
}
