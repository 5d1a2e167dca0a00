import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { createAuthProvider, createLoginFn } from './auth/index.js';
import type { AuthProvider, ReadFile } from './auth/types.js';
import { createWorkspaceWatcher, leaderConfigForWorkspace, type WorkspaceWatcher } from './discovery/workspaces.js';
import type { Config, LeaderConfig } from './config/types.js';
import { Discoverer } from './discovery/discovery.js';
import { selectNodes } from './discovery/select.js';
import { createBodyCache, type BodyCache } from './exposition/body.js';
import { startServer, type RunningServer } from './exposition/server.js';
import { createSelfMetrics, type LeaderSelfMetrics, type SelfMetrics } from './telemetry/self-metrics.js';
import { createRequestBudget } from './leader/budget.js';
import { clientLimitsFromConfig, createLeaderClient, type NamedLeaderClient } from './leader/client.js';
import { createDispatcher } from './http/transport.js';
import { Poller } from './polling/poller.js';
import { cronSchedule, type Schedule, type ScheduledJob } from './polling/scheduler.js';
import { createLeaderSnapshot, type RenderedLeaderSnapshot } from './store/snapshot.js';
import { systemClock, type Clock, type Random } from './util/clock.js';

/** Everything the exporter needs from the outside world; src/cli.ts supplies the real ones. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  version: string;
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
  close(): Promise<void>;
}

/** One monitored leader: its transport, budget, client, auth, snapshot, discovery, poller and jobs. */
class LeaderRuntime {
  readonly cfg: LeaderConfig;
  readonly snapshot: RenderedLeaderSnapshot;
  readonly client: NamedLeaderClient;
  readonly auth: AuthProvider;
  readonly poller: Poller;
  readonly discoverer: Discoverer;
  readonly metrics: LeaderSelfMetrics;
  readonly #log: Logger;
  readonly #deps: Required<Pick<AppDeps, 'clock'>> & AppDeps;
  readonly #jobs: ScheduledJob[] = [];
  readonly #abort = new AbortController();
  #discovered = false;
  #lastDiscoveryMs: number | undefined;
  #overLimitLogged = 0;

  constructor(cfg: LeaderConfig, deps: Required<Pick<AppDeps, 'clock'>> & AppDeps, self: SelfMetrics) {
    this.cfg = cfg;
    this.#deps = deps;
    const { config, clock } = deps;
    this.#log = deps.logger.child({ leader: cfg.name });
    setMaxListeners(0, this.#abort.signal);
    this.metrics = self.forLeader(cfg.name);
    const dispatcher = deps.dispatcher?.(cfg) ?? createDispatcher(cfg.transport, { readFile: deps.readFile, env: deps.env, logger: this.#log, connectTimeoutMs: cfg.budget.connectTimeoutMs });
    const budget = createRequestBudget(cfg.budget, clock, this.metrics);
    // The client needs the auth provider and login needs the client: bind late.
    const ref: { auth?: AuthProvider } = {};
    const lateAuth: AuthProvider = {
      get mode() {
        return ref.auth?.mode ?? 'none';
      },
      token: (signal) => (ref.auth ? ref.auth.token(signal) : Promise.resolve('')),
      invalidate: (rejected) => ref.auth?.invalidate(rejected) ?? false,
      expiresAt: () => ref.auth?.expiresAt(),
      close: () => ref.auth?.close(),
    };
    this.client = createLeaderClient({
      baseUrl: cfg.url,
      name: cfg.name,
      dispatcher,
      auth: lateAuth,
      budget,
      clock,
      random: deps.random ?? Math.random,
      logger: this.#log,
      metrics: this.metrics,
      limits: clientLimitsFromConfig(cfg.budget),
      userAgent: `cribl-exporter/${deps.version}`,
    });
    const auth = createAuthProvider(cfg.auth, {
      clock,
      readFile: deps.readFile,
      logger: this.#log,
      metrics: this.metrics,
      login: createLoginFn(this.client),
      dispatcher,
      ...(deps.random ? { random: deps.random } : {}),
    });
    ref.auth = auth;
    this.auth = auth;
    this.snapshot = createLeaderSnapshot({ labels: cfg.labels });
    this.discoverer = new Discoverer({ client: this.client, products: cfg.products, logger: this.#log });
    this.poller = new Poller({
      client: this.client,
      snapshot: this.snapshot,
      clock,
      logger: this.#log,
      healthIntervalMs: config.intervals.healthMs,
      metadataIntervalMs: config.intervals.metadataMs,
      // Enough to keep the largest window busy; the budget sets the real pace.
      maxOutstanding: Math.max(8, cfg.budget.maxConcurrency * 2),
      metrics: this.metrics,
    });
    this.metrics.healthCycle(config.intervals.healthMs / 1000, 0);
  }

  get discovered(): boolean {
    return this.#discovered;
  }

  /** Starts the discovery and health schedules (metadata polls ride on health cycles, see Poller). */
  start(schedule: Schedule): void {
    const { intervals } = this.#deps.config;
    const health = schedule(`health:${this.cfg.name}`, intervals.healthMs, (s) => this.poller.runHealthCycle(s));
    const discovery = schedule(`discovery:${this.cfg.name}`, intervals.discoveryMs, async (s) => {
      const first = !this.#discovered;
      await this.discover(s);
      // Poll the fleet as soon as it is known rather than at the next tick.
      if (first && this.#discovered) health.trigger();
    });
    this.#jobs.push(discovery, health);
  }

  /** One discovery; the outcome goes to the snapshot and the poller. */
  async discover(signal: AbortSignal = this.#abort.signal): Promise<void> {
    const { clock, config } = this.#deps;
    const start = clock.now();
    const out = await this.discoverer.discover(start + config.intervals.discoveryMs, signal);
    this.metrics.discovery((clock.now() - start) / 1000);
    if (signal.aborted) return;
    if (!out.ok) {
      this.#log.warn({ reason: out.reason, err: out.message }, 'discovery failed');
      this.snapshot.setLeader({ up: false, ...(this.#lastDiscoveryMs === undefined ? {} : { lastDiscoveryMs: this.#lastDiscoveryMs }) });
      return;
    }
    const sel = selectNodes(out.nodes, config.shard, config.maxNodes);
    await this.poller.setNodes(sel.nodes);
    this.snapshot.setGroups(out.groups);
    this.#lastDiscoveryMs = clock.now();
    this.snapshot.setLeader({ up: true, lastDiscoveryMs: this.#lastDiscoveryMs });
    this.metrics.nodes(sel.nodes.size, sel.overLimit);
    if (sel.overLimit !== this.#overLimitLogged) {
      if (sel.overLimit > 0)
        this.#log.warn({ exported: sel.nodes.size, notExported: sel.overLimit, maxNodes: config.maxNodes }, 'more nodes than --max-nodes: the excess is not exported');
      this.#overLimitLogged = sel.overLimit;
    }
    if (!this.#discovered) this.#log.info({ nodes: sel.nodes.size, requests: out.requests, otherShards: sel.otherShards }, 'first discovery complete');
    this.#discovered = true;
  }

  async pollNow(): Promise<void> {
    await this.poller.runHealthCycle(this.#abort.signal);
  }

  async close(): Promise<void> {
    for (const j of this.#jobs) j.stop();
    this.#abort.abort(new Error('closing'));
    this.auth.close();
    await this.client.close();
  }
}

/** Starts the exporter: one runtime per leader (or per discovered workspace), the body cache and the server. */
export async function startApp(deps: AppDeps): Promise<App> {
  const full = { ...deps, clock: deps.clock ?? systemClock };
  const { config, logger } = full;
  const schedule =
    deps.schedule ?? cronSchedule((name, e) => logger.error({ job: name, err: String(e) }, 'scheduled job failed'), full.clock);
  const self = createSelfMetrics({ version: deps.version, nodejsVersion: deps.nodejsVersion });
  self.setShard(config.shard.index, config.shard.total);

  const runtimes = new Map<string, LeaderRuntime>();
  const body = createBodyCache({
    snapshots: [],
    intervals: { discoveryMs: config.intervals.discoveryMs, healthMs: config.intervals.healthMs, metadataMs: config.intervals.metadataMs },
    clock: full.clock,
    builder: deps.bodyBuilder ?? 'worker',
    onBuild: (s) => self.bodyBuilt(s),
    onBuilderLost: () => self.bodyWorkerLost(),
    onError: (e) => logger.error({ err: String(e) }, 'building /metrics failed'),
  });

  const addLeader = (cfg: LeaderConfig): void => {
    const rt = new LeaderRuntime(cfg, full, self);
    runtimes.set(cfg.name, rt);
    body.setSnapshots([...runtimes.values()].map((r) => r.snapshot));
    rt.start(schedule);
  };
  const removeLeader = async (name: string): Promise<void> => {
    const rt = runtimes.get(name);
    if (!rt) return;
    runtimes.delete(name);
    body.setSnapshots([...runtimes.values()].map((r) => r.snapshot));
    self.removeLeader(name);
    await rt.close();
  };

  for (const l of config.leaders) addLeader(l);

  let watcher: WorkspaceWatcher | undefined;
  let workspaceJob: ScheduledJob | undefined;
  let cloudAuth: AuthProvider | undefined;
  const cd = config.cloudDiscovery;
  if (cd) {
    const dispatcher = deps.dispatcher?.({ name: 'management', url: cd.managementUrl, labels: {}, products: cd.products, auth: cd.auth, transport: cd.transport, budget: cd.budget }) ??
      createDispatcher(cd.transport, { readFile: deps.readFile, env: deps.env, logger, connectTimeoutMs: cd.budget.connectTimeoutMs });
    cloudAuth = createAuthProvider(cd.auth, { clock: full.clock, readFile: deps.readFile, logger, dispatcher, metrics: self.forLeader('management') });
    watcher = createWorkspaceWatcher({
      managementUrl: cd.managementUrl,
      organization: cd.organization,
      domain: cd.domain,
      auth: cloudAuth,
      dispatcher,
      logger,
      ...(deps.workspaceUrl ? { urlForWorkspace: deps.workspaceUrl } : {}),
    });
    const w = watcher;
    workspaceJob = schedule('workspaces', config.intervals.discoveryMs, async (signal) => {
      const r = await w.refresh(signal);
      if (!r.ok) return;
      for (const t of [...r.removed, ...r.changed]) await removeLeader(t.name);
      for (const t of [...r.added, ...r.changed]) addLeader(leaderConfigForWorkspace(cd, t));
    });
  }

  const ready = (): boolean => [...runtimes.values()].some((r) => r.discovered);
  let server: RunningServer;
  try {
    server = await startServer({
      listenAddress: config.web.listenAddress,
      telemetryPath: config.web.telemetryPath,
      body,
      selfMetrics: self,
      ready,
      version: deps.version,
      ...(config.web.configFile ? { webConfigFile: config.web.configFile } : {}),
      clock: full.clock,
      logger,
    });
  } catch (e) {
    workspaceJob?.stop();
    await Promise.all([...runtimes.values()].map((r) => r.close()));
    body.close();
    throw e;
  }
  logger.info({ url: `${server.url}${config.web.telemetryPath}`, leaders: [...runtimes.keys()] }, 'cribl-exporter listening');

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
    close: async () => {
      workspaceJob?.stop();
      cloudAuth?.close();
      await server.close();
      await Promise.all([...runtimes.values()].map((r) => r.close()));
      body.close();
    },
  };
}
