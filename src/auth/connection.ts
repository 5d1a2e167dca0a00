/**
 * One leader's connection, wired the same way wherever the exporter talks to a leader (the running exporter in
 * src/exporter/runtime.ts, `cribl-exporter check` in src/check/): its transport, its request budget (at the rate
 * the caller gives: src/polling/rate.ts moves it as the fleet changes), the client through that budget, the auth
 * provider, and the client with credentials on every request (pausing node polling after a refusal).
 */
import { forLeader } from '../util/logger.js';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { createDispatcher, type TransportConfig } from '../http/transport.js';
import { RequestBudget } from '../leader/budget.js';
import { createLeaderClient, type LeaderClientMetrics, type NamedLeaderClient } from '../leader/client.js';
import { clientLimitsFromConfig, type BudgetConfig } from '../leader/settings.js';
import type { ProbeObserver } from '../leader/probe.js';
import type { HostReading, LeaderClient } from '../leader/types.js';
import type { Clock, Random } from '@cribl-exporter/api/clock';
import type { ReadFile } from '../util/files.js';
import { createAuthProvider } from './index.js';
import type { AuthConfig, AuthMetrics, AuthProvider } from './types.js';
import { withAuth } from './with-auth.js';

/** What a connection is built from: a leader's settings. */
export interface LeaderTarget {
  name: string;
  /** Global-context base URL, ending in /api/v1. */
  url: string;
  /** The leader's HA hosts (`--leader.ha-url`), watched; followed when `url` is one of them. */
  haUrls?: readonly string[];
  auth: AuthConfig;
  transport: TransportConfig;
  budget: BudgetConfig;
}

/** What a connection needs from the outside world. */
export interface ConnectDeps {
  /** The budget's rate at the start (`--leader.max-rps`, or auto's before any discovery) and its bucket. */
  rate: { maxRps: number; burst: number };
  clock: Clock;
  random?: Random;
  logger: Logger;
  readFile: ReadFile;
  /** For HTTPS_PROXY / HTTP_PROXY / NO_PROXY. */
  env: Readonly<Record<string, string | undefined>>;
  /** For the User-Agent. */
  version: string;
  metrics?: LeaderClientMetrics & AuthMetrics;
  /** Replaces the dispatcher built from the transport settings (tests). */
  dispatcher?: Dispatcher;
  /** Each answer of GET /health while the leader is held unavailable (420): its status and JSON. */
  onHealthProbe?: ProbeObserver;
  /** Each round of readings of the HA hosts. */
  onHosts?: (readings: readonly HostReading[]) => void;
}

/** A leader's transport, budget and clients. Closing the client closes the budget and the dispatcher. */
export interface LeaderConnection {
  readonly dispatcher: Dispatcher;
  readonly budget: RequestBudget;
  /** Without credentials (anonymous requests such as GET /health and POST /auth/login go through it too). */
  readonly raw: NamedLeaderClient;
  readonly auth: AuthProvider;
  /** With the provider's bearer on every request that is not anonymous. */
  readonly client: LeaderClient;
}

/**
 * Builds one leader's connection (the transport's CA and client certificate files are read here). Rejects with
 * TransportConfigError or AuthConfigError (settings errors) when a file it names cannot be used or the credentials
 * are incomplete.
 */
export async function connectLeader(target: LeaderTarget, deps: ConnectDeps): Promise<LeaderConnection> {
  const dispatcher =
    deps.dispatcher ??
    (await createDispatcher(target.transport, {
      readFile: deps.readFile,
      env: deps.env,
      logger: deps.logger,
      leader: target.name,
      connectTimeoutMs: target.budget.connectTimeoutMs,
    }));
  const budget = new RequestBudget({
    ...deps.rate,
    maxConcurrency: target.budget.maxConcurrency,
    clock: deps.clock,
    ...(deps.metrics ? { observer: deps.metrics } : {}),
    logger: forLeader(deps.logger, target.name),
  });
  const raw = createLeaderClient({
    baseUrl: target.url,
    name: target.name,
    dispatcher,
    budget,
    clock: deps.clock,
    random: deps.random ?? Math.random,
    logger: deps.logger,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    limits: clientLimitsFromConfig(target.budget),
    userAgent: `cribl-exporter/${deps.version}`,
    ...(deps.onHealthProbe ? { onHealthProbe: deps.onHealthProbe } : {}),
    ...(target.haUrls?.length ? { haUrls: target.haUrls } : {}),
    ...(deps.onHosts ? { onHosts: deps.onHosts } : {}),
  });
  let auth: AuthProvider;
  try {
    auth = createAuthProvider(target.auth, {
      clock: deps.clock,
      readFile: deps.readFile,
      logger: deps.logger,
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
      client: raw,
      dispatcher,
      ...(deps.random ? { random: deps.random } : {}),
    });
  } catch (e) {
    void raw.close();
    throw e;
  }
  const client = withAuth(raw, auth, {
    clock: deps.clock,
    logger: deps.logger,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    backoff: { baseMs: target.budget.backoffBaseMs, capMs: target.budget.backoffMaxMs },
  });
  return { dispatcher, budget, raw, auth, client };
}
