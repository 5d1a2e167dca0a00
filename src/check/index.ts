/**
 * `cribl-exporter check`: every configured leader (and the Cribl.Cloud management plane with the workspaces it
 * lists) contacted once, through the exporter's own transport, budget, client and credentials, and a report of
 * what works and what to fix. Nothing runs in the background and nothing is served.
 */
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { connectLeader, type LeaderConnection } from '../auth/connection.js';
import { createAuthProvider } from '../auth/index.js';
import type { AuthProvider } from '../auth/types.js';
import type { Config, LeaderConfig } from '../config/types.js';
import { leaderConfigForWorkspace } from '../config/leaders.js';
import { listWorkspaceTargets, type WorkspaceListOptions } from '../discovery/workspaces.js';
import { createDispatcher, tlsOptions, type TlsOptions, type TransportConfig } from '../http/transport.js';
import { AUTO_RATE_MIN, burstFor } from '../polling/rate.js';
import type { Clock } from '@cribl-exporter/api/clock';
import type { ReadFile } from '../util/files.js';
import { withoutCredentials } from '../util/url.js';
import { checkCredentials } from './credentials.js';
import { checkLeaderApi } from './leader.js';
import { checkNetwork, systemLookup, type Lookup } from './network.js';
import type { CheckReport, CheckResult } from './report.js';

/** What the checks need from the outside world. */
export interface CheckDeps {
  clock: Clock;
  logger: Logger;
  readFile: ReadFile;
  env: Readonly<Record<string, string | undefined>>;
  version: string;
  /** @default the system resolver */
  lookup?: Lookup;
  /** Replaces the dispatcher built from a target's transport settings (tests). */
  dispatcher?: (target: { name: string; url: string }) => Dispatcher;
  /** Turns a listed workspace into its leader URL (the simulated management plane serves http). */
  workspaceUrl?: WorkspaceListOptions['urlForWorkspace'];
}

interface Prepared {
  cfg: LeaderConfig;
  conn: LeaderConnection;
  tls: TlsOptions;
}

/**
 * Runs every check and returns the report. Settings that cannot be used (unreadable CA or key files, incomplete
 * credentials) throw before any leader is contacted.
 */
export async function runChecks(config: Config, deps: CheckDeps): Promise<CheckReport> {
  const report: CheckReport = { targets: [], results: [] };
  // Every leader's settings are turned into a connection first, so that a bad file stops the run before a request.
  const prepared: Prepared[] = [];
  for (const cfg of config.leaders) prepared.push(await prepare(cfg, deps));
  let management: { auth: AuthProvider; dispatcher: Dispatcher } | undefined;
  try {
    const cd = config.cloudDiscovery;
    if (cd) {
      const dispatcher =
        deps.dispatcher?.({ name: 'management', url: cd.managementUrl }) ??
        (await createDispatcher(cd.transport, {
          readFile: deps.readFile,
          env: deps.env,
          logger: deps.logger,
          connectTimeoutMs: cd.budget.connectTimeoutMs,
        }));
      management = {
        dispatcher,
        auth: createAuthProvider(cd.auth, {
          clock: deps.clock,
          readFile: deps.readFile,
          logger: deps.logger,
          dispatcher,
        }),
      };
    }
    for (const p of prepared) await checkOne(p, config, deps, report);
    if (cd && management) {
      report.targets.push({ name: 'management', url: cd.managementUrl });
      const add = (check: string, line: Pick<CheckResult, 'status' | 'message' | 'fix'>): void => {
        report.results.push({ target: 'management', check, ...line });
      };
      add('auth', await checkCredentials(management.auth, cd.auth, deps.clock));
      const listed = await listWorkspaceTargets({
        managementUrl: cd.managementUrl,
        organization: cd.organization,
        domain: cd.domain,
        auth: management.auth,
        dispatcher: management.dispatcher,
        timeoutMs: cd.budget.connectTimeoutMs + cd.budget.headersTimeoutMs,
        ...(deps.workspaceUrl ? { urlForWorkspace: deps.workspaceUrl } : {}),
      });
      if (!listed.ok) {
        add('workspaces', {
          status: 'fail',
          message: listed.message,
          fix:
            'check --cloud.organization, --cloud.management-url and that the API credentials may list the ' +
            "organization's workspaces",
        });
      } else if (listed.targets.length === 0) {
        add('workspaces', {
          status: 'warn',
          message: `no Active workspace in organization ${cd.organization}`,
          fix: 'nothing to monitor until a workspace is Active',
        });
      } else {
        const names = listed.targets.map((t) => t.name);
        add('workspaces', {
          status: 'ok',
          message: `${names.length} Active workspace${names.length === 1 ? '' : 's'}: ${names.join(', ')}`,
        });
        for (const t of listed.targets) {
          const p = await prepare(leaderConfigForWorkspace(cd, t), deps);
          await checkOne(p, config, deps, report);
        }
      }
    }
  } finally {
    management?.auth.close();
    await management?.dispatcher.close().catch(() => undefined);
    await Promise.all(prepared.map((p) => close(p)));
  }
  return report;
}

async function prepare(cfg: LeaderConfig, deps: CheckDeps): Promise<Prepared> {
  const tls = await tlsOptions(cfg.transport, {
    readFile: deps.readFile,
    connectTimeoutMs: cfg.budget.connectTimeoutMs,
  });
  const dispatcher = deps.dispatcher?.(cfg);
  // As the exporter starts: `auto` allows its floor until a discovery has counted the fleet.
  const { maxRps, maxRpsCeiling, burst } = cfg.budget;
  const rps = typeof maxRps === 'number' ? maxRps : Math.min(maxRpsCeiling, AUTO_RATE_MIN);
  const conn = await connectLeader(cfg, {
    rate: { maxRps: rps, burst: burstFor(rps, burst) },
    clock: deps.clock,
    logger: deps.logger.child({ leader: cfg.name }),
    readFile: deps.readFile,
    env: deps.env,
    version: deps.version,
    ...(dispatcher ? { dispatcher } : {}),
  });
  return { cfg, conn, tls };
}

async function close(p: Prepared): Promise<void> {
  p.conn.auth.close();
  await p.conn.client.close();
}

async function checkOne(p: Prepared, config: Config, deps: CheckDeps, report: CheckReport): Promise<void> {
  const { cfg } = p;
  report.targets.push({ name: cfg.name, url: cfg.url });
  try {
    const network = await checkNetwork({
      target: cfg.name,
      url: new URL(cfg.url),
      tls: p.tls,
      ...(cfg.transport.caFile !== undefined ? { caFile: cfg.transport.caFile } : {}),
      ...proxyOf(cfg.transport, deps.env, cfg.url),
      lookup: deps.lookup ?? systemLookup,
      clock: deps.clock,
      connectTimeoutMs: cfg.budget.connectTimeoutMs,
    });
    report.results.push(...network);
    if (network.some((r) => r.status === 'fail')) {
      report.results.push({
        target: cfg.name,
        check: 'api',
        status: 'skip',
        message: 'API not checked: the leader cannot be reached (see above)',
      });
      return;
    }
    const api = await checkLeaderApi({
      cfg,
      config,
      conn: p.conn,
      clock: deps.clock,
      logger: deps.logger.child({ leader: cfg.name }),
    });
    report.results.push(...api);
  } finally {
    await close(p);
  }
}

/** The proxy requests to `url` go through, shown without credentials; none when they go direct. */
function proxyOf(
  t: TransportConfig,
  env: Readonly<Record<string, string | undefined>>,
  url: string,
): { proxy?: string } {
  if (t.proxyUrl !== undefined) return { proxy: withoutCredentials(t.proxyUrl) };
  const get = (name: string): string => env[name.toLowerCase()] ?? env[name] ?? '';
  const proxy = get(url.startsWith('https:') ? 'HTTPS_PROXY' : 'HTTP_PROXY');
  if (proxy === '') return {};
  const noProxy = get('NO_PROXY');
  // NO_PROXY is undici's to match; the direct checks are skipped either way and the API checks show the truth.
  return { proxy: `${withoutCredentials(proxy)}${noProxy ? ` (unless NO_PROXY matches)` : ''}` };
}
