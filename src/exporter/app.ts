import type { ReadFile } from '../util/files.js';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { createAuthProvider } from '../auth/index.js';
import type { AuthProvider } from '../auth/types.js';
import type { AutoDetail } from '../collectors/detail.js';
import type { Collector } from '../collectors/collector.js';
import { COLLECTORS } from '../collectors/registry.js';
import { workspaces } from '../collectors/workspaces/index.js';
import { leaderConfigForWorkspace } from '../config/leaders.js';
import { settingsOf, type Config, type LeaderConfig } from '../config/types.js';
import { createWorkspaceWatcher, type WorkspaceWatcher } from '../discovery/workspaces.js';
import { createBodyCache, type BodyCache } from '../exposition/body/index.js';
import { startServer, type RunningServer } from '../exposition/server.js';
import { createStatusPage } from '../exposition/status/page.js';
import { createDispatcher } from '../http/transport.js';
import { cronSchedule, type Schedule, type ScheduledJob } from '../polling/scheduler.js';
import { LeaderSnapshot } from '../store/snapshot.js';
import { createSelfMetrics, type SelfMetrics } from '../telemetry/self-metrics.js';
import { systemClock, type Clock, type Random } from '@cribl-exporter/api/clock';
import { LeaderRuntime, type LeaderStatus, type RuntimeDeps } from './runtime.js';

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
  /** Where the /metrics body is assembled. @default 'auto' (a worker thread from WORKER_MIN_NODES nodes) */
  bodyBuilder?: 'inline' | 'worker' | 'auto';
  /** Replaces the transport built from the config (tests). */
  dispatcher?: (leader: LeaderConfig) => Dispatcher;
  /** `auto`'s node detail thresholds (tests only). @default AUTO_DETAIL */
  autoDetail?: AutoDetail;
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
  /** The cached /metrics body. */
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

/** Starts the exporter: one runtime per leader (or per discovered workspace), the body cache and the server. */
export async function startApp(deps: AppDeps): Promise<App> {
  const full = { ...deps, clock: deps.clock ?? systemClock };
  const { config, logger } = full;
  const schedule =
    deps.schedule ??
    cronSchedule((name, e) => logger.error({ job: name, err: String(e) }, 'scheduled job failed'), full.clock);
  const self = createSelfMetrics({ version: deps.version, nodejsVersion: deps.nodejsVersion, revision: deps.revision });
  self.setShard(config.shard.index, config.shard.total);

  // The management plane (Cribl.Cloud workspace discovery) is a scope of its own: it is not a leader.
  const management = config.cloudDiscovery ? new LeaderSnapshot() : undefined;
  const body = bodyCache(full, self, management);
  const leaders = leaderSet(full, self, body);
  const { runtimes } = leaders;

  const ready = (): boolean => [...runtimes.values()].some((r) => r.discovery.discovered);
  const { server, watcher, cloudAuth } = await startServing(full, self, { body, management, leaders, ready });
  for (const rt of runtimes.values()) rt.start(schedule);
  const workspaceJob =
    config.cloudDiscovery && watcher
      ? workspaceJobOf(schedule, config, config.cloudDiscovery, watcher, management, leaders)
      : undefined;
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

/**
 * Everything that reads a file or binds the port, first: the leaders' runtimes (their CA and certificate files), the
 * workspace watcher's credentials, the server. No leader request goes out before the server listens, so that a bad
 * certificate or a port in use fails the start before the leader hears of us; on a failure, what was built is closed.
 */
async function startServing(
  deps: AppDeps & { clock: Clock },
  self: SelfMetrics,
  parts: { body: BodyCache; management: LeaderSnapshot | undefined; leaders: LeaderSet; ready: () => boolean },
): Promise<{ server: RunningServer; watcher?: WorkspaceWatcher; cloudAuth?: AuthProvider }> {
  const { config, logger } = deps;
  const { body, management, leaders, ready } = parts;
  const statusPage = createStatusPage({
    leaders: () => [...leaders.runtimes.values()].map((r) => r.page),
    ...(management ? { management: () => management.leader() } : {}),
    version: deps.version,
    telemetryPath: config.web.telemetryPath,
    clock: deps.clock,
  });
  let cloud: { watcher: WorkspaceWatcher; cloudAuth: AuthProvider } | undefined;
  try {
    for (const l of config.leaders) await leaders.add(l);
    if (config.cloudDiscovery) cloud = await workspaceWatcher(config.cloudDiscovery, deps, self);
    const server = await startServer({
      listenAddress: config.web.listenAddress,
      telemetryPath: config.web.telemetryPath,
      body,
      collectors: COLLECTORS.map((c) => c.name),
      selfMetrics: self,
      ready,
      statusPage,
      webConfigFile: config.web.configFile,
      limits: { maxConnections: config.web.maxConnections },
      clock: deps.clock,
      logger,
    });
    return { server, ...cloud };
  } catch (e) {
    cloud?.cloudAuth.close();
    await Promise.all([...leaders.runtimes.values()].map((r) => r.close()));
    body.close();
    throw e;
  }
}

/** The /metrics body cache over every leader's snapshot (none yet) and the management plane's. */
function bodyCache(deps: AppDeps & { clock: Clock }, self: SelfMetrics, management: LeaderSnapshot | undefined) {
  const { config, logger } = deps;
  return createBodyCache({
    sources: [],
    management,
    settingsOf: (c: Collector) => settingsOf(config, c),
    intervals: { discoveryMs: config.discovery.discoveryMs },
    clock: deps.clock,
    builder: deps.bodyBuilder ?? 'auto',
    onBuild: (s) => self.bodyBuilt(s),
    onBuilderLost: () => self.bodyWorkerLost(),
    onBuilderSwitch: (to, nodes) =>
      logger.info(
        { nodes },
        `assembling /metrics ${to === 'worker' ? 'in a worker thread' : 'on the main thread'} from now on`,
      ),
    onError: (e) => logger.error({ err: String(e) }, 'building /metrics failed'),
  });
}

/** The leaders monitored now, by name; the body follows their snapshots as they come and go. */
interface LeaderSet {
  readonly runtimes: ReadonlyMap<string, LeaderRuntime>;
  add(cfg: LeaderConfig): Promise<LeaderRuntime>;
  remove(name: string): Promise<void>;
}

function leaderSet(deps: RuntimeDeps, self: SelfMetrics, body: BodyCache): LeaderSet {
  const runtimes = new Map<string, LeaderRuntime>();
  const setSnapshots = (): void => body.setSources([...runtimes.values()].map((r) => r.snapshot));
  return {
    runtimes,
    async add(cfg) {
      const rt = await LeaderRuntime.create(cfg, deps, self);
      runtimes.set(cfg.name, rt);
      setSnapshots();
      // Every node polled once: /metrics is built now, not at its next planned build (a first scrape finds the fleet).
      void rt.firstRound.then(() => body.refresh());
      return rt;
    },
    async remove(name) {
      const rt = runtimes.get(name);
      if (!rt) return;
      runtimes.delete(name);
      setSnapshots();
      self.removeLeader(name);
      await rt.close();
    },
  };
}

/** Every discovery interval: the workspaces listed, and a runtime for each Active one (started, stopped, replaced). */
function workspaceJobOf(
  schedule: Schedule,
  config: Config,
  cd: NonNullable<Config['cloudDiscovery']>,
  w: WorkspaceWatcher,
  management: LeaderSnapshot | undefined,
  leaders: LeaderSet,
): ScheduledJob {
  return schedule('workspaces', config.discovery.discoveryMs, async (signal) => {
    const r = await w.refresh(signal);
    if (signal.aborted) return;
    management?.setLeaderFacts(workspaces.name, { up: r.ok, workspaces: r.workspaces });
    if (!r.ok) return;
    for (const t of [...r.removed, ...r.changed]) await leaders.remove(t.name);
    for (const t of [...r.added, ...r.changed]) (await leaders.add(leaderConfigForWorkspace(cd, t))).start(schedule);
  });
}

/** The Cribl.Cloud workspace watcher and its credentials (no request is sent until its job runs). */
async function workspaceWatcher(
  cd: NonNullable<Config['cloudDiscovery']>,
  deps: RuntimeDeps & Pick<AppDeps, 'workspaceUrl'>,
  self: SelfMetrics,
): Promise<{ watcher: WorkspaceWatcher; cloudAuth: AuthProvider }> {
  const dispatcher =
    deps.dispatcher?.(leaderConfigForWorkspace(cd, { name: 'management', url: cd.managementUrl, labels: {} })) ??
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
    urlForWorkspace: deps.workspaceUrl,
  });
  return { watcher, cloudAuth };
}
