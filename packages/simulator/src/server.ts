import { createServer as createHttpServer } from 'node:http';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Workspace } from '@cribl-exporter/api/shapes';
import { systemClock } from '@cribl-exporter/api/clock';
import { SimulatorApp } from './core/app.js';
import { DEFAULT_RESTRICTED_ROUTES, TokenStore } from './core/auth.js';
import { ConfigStore } from './core/config-store.js';
import type { GroupConfigSpec } from './core/config-store.js';
import { DataflowModel } from './core/dataflow.js';
import { ThroughputModel } from './endpoints/metrics-query/throughput.js';
import { flowTruth } from './endpoints/metrics-query/truth.js';
import type { FlowCounts } from './core/dataflow.js';
import { FaultEngine } from './core/fault-engine.js';
import { DEFAULT_FAULTS } from './core/faults.js';
import type { FaultsPatch } from './core/faults.js';
import { versionAtLeast } from './core/fleet-model.js';
import type { NodeRec } from './core/fleet-model.js';
import { UPGRADE_STATES } from './core/fleet-types.js';
import type { FleetOptions } from './core/fleet-types.js';
import { statusItems } from './endpoints/status/index.js';
import { systemInfoItem } from './endpoints/system-info/index.js';
import { LeaderInfo, context } from './core/leader-info.js';
import { SimFleet, parseVersion } from './core/fleet.js';
import { Workspaces } from './endpoints/workspaces/workspaces.js';
import { pick, randomHex, seededRandom } from './core/random.js';
import { ScenarioError, nodeCount } from './core/scenario.js';
import { fleetTruth } from './core/fleet-truth.js';
import type { Scenario } from './core/scenario.js';
import { SearchJobs } from './endpoints/search-jobs/jobs.js';
import { StatsRecorder } from './core/stats.js';
import type { SimHa, Simulator, SimulatorOptions } from './types.js';
import { HaModel } from './core/ha.js';
// The route table: its module adds every line to the table the pipeline routes by.
import './routes.js';

export { MAX_REQUEST_BODY } from './core/http.js';
export { AUTH_FAILED } from './core/app.js';

/**
 * How long an idle keep-alive connection stays open (Node's default is 5 s). A server that closes an idle connection
 * races a client that reuses it at that moment: the request goes out as the FIN comes in, and the client sees
 * "other side closed". undici closes 2 s before the `Keep-Alive: timeout` the server announces (Node closes 1 s
 * after it), so 5 s left a 3 s margin, which a loaded machine ate: the 50k benchmark's admin calls every 5 s died
 * of it when its event loop stalled past its own idle timer. At 65 s, undici (and the exporter, which caps its idle
 * connections at 60 s, src/http/transport.ts) closes first, and calls a few seconds apart never meet the server's
 * close.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** First leader version whose health bodies carry `overlay` (the API spec from 4.18.2 on). */
const OVERLAY_SINCE = [4, 18, 2] as const;

/**
 * Applies the scenario's node and group signals (drift, undeployed commits, restarts, upgrade states, listing
 * statuses, incompatible counts, leader state). Nodes are picked from the fleet's seeded stream, each at most once
 * per signal, after the health and connection states (so a scenario without these keys builds the same fleet).
 */
function applySignals(fleet: SimFleet, scenario: Scenario | undefined): void {
  const f = scenario?.fleet;
  const size = fleet.size();
  const pickNodes = (count: number, apply: (id: string) => void, ok: (r: NodeRec) => boolean = () => true): void => {
    const picked = new Set<string>();
    fleet.seedStates(
      count,
      (id) => {
        picked.add(id);
        apply(id);
      },
      (r) => !picked.has(r.id) && ok(r),
    );
  };
  const hasOlder = (r: NodeRec): boolean => {
    const commits = fleet.commits(r.group) ?? [];
    return commits.length > (fleet.undeployedCommits(r.group) ?? 0) + 1;
  };
  for (const [id, g] of Object.entries(scenario?.groups ?? {})) {
    for (let i = 0; i < (g.undeployedCommits ?? 0); i++) fleet.commitGroup(id);
    if (g.incompatibleWorkerCount !== undefined) fleet.setIncompatibleWorkerCount(id, g.incompatibleWorkerCount);
    if (g.localChanges !== undefined) fleet.setLocalChanges(id, g.localChanges);
  }
  const drifted = new Set<string>();
  const drift = (id: string): void => {
    drifted.add(id);
    fleet.drift(id);
  };
  for (const [id, g] of Object.entries(scenario?.groups ?? {})) {
    pickNodes(g.drift ?? 0, drift, (r) => r.group === id && hasOlder(r) && !drifted.has(r.id));
  }
  if (f?.drift) pickNodes(nodeCount(f.drift, size), drift, (r) => hasOlder(r) && !drifted.has(r.id));
  if (f?.restarted) pickNodes(f.restarted, (n) => fleet.restart(n));
  for (const [i, state] of UPGRADE_STATES.entries()) {
    const count = nodeCount(f?.upgrades?.[state], size);
    const reason = i === 1 ? undefined : 0;
    const status = { state, ...(reason === undefined ? {} : { reason }) };
    pickNodes(
      count,
      (n) => fleet.setUpgradeStatus(n, status),
      (r) => r.product === 'edge',
    );
  }
  for (const [status, count] of Object.entries(f?.statuses ?? {})) {
    pickNodes(count, (n) => fleet.setListingStatus(n, status));
  }
  if (f?.leaderState) fleet.setLeaderState(f.leaderState);
}

/** How long before the start a scenario's silent nodes were last heard from (far past 3 heartbeats of 60 s). */
const SILENT_FOR_MS = 10 * 60_000;

/**
 * A scenario's `criblVersions`: each node's Cribl version drawn by weight, in listing order, from a stream of its own
 * (so that the rest of the fleet is the one the seed gives without the key).
 */
function applyVersions(fleet: SimFleet, weights: Record<string, number>, seed: number): void {
  const random = seededRandom((seed ^ 0x7e5510) >>> 0);
  const versions = Object.keys(weights);
  const w = versions.map((v) => weights[v] ?? 0);
  for (const node of fleet.nodes()) fleet.setCriblVersion(node.id, pick(random, versions, w));
}

/**
 * Destinations and sources per group: a scenario's totals spread evenly over the groups (the first groups get the
 * remainder), then its per-group counts.
 */
function flowCounts(groups: readonly string[], scenario: Scenario | undefined): Map<string, FlowCounts> {
  const out = new Map<string, FlowCounts>();
  const spread = (total: number | undefined, key: keyof FlowCounts): void => {
    if (total === undefined) return;
    groups.forEach((id, i) => {
      const share = Math.floor(total / groups.length) + (i < total % groups.length ? 1 : 0);
      out.set(id, { ...out.get(id), [key]: key === 'outputs' ? Math.max(1, share) : share });
    });
  };
  spread(scenario?.fleet?.destinations, 'outputs');
  spread(scenario?.fleet?.sources, 'inputs');
  for (const [id, g] of Object.entries(scenario?.groups ?? {})) {
    const c: FlowCounts = { ...out.get(id) };
    if (g.destinations !== undefined) c.outputs = g.destinations;
    if (g.sources !== undefined) c.inputs = g.sources;
    out.set(id, c);
  }
  return out;
}

/** Starts a simulated leader (docs/simulator.md); rejects when the address cannot be bound or options are invalid. */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const scenario = opts.scenario;
  const seed = opts.seed ?? scenario?.fleet?.seed ?? 1;
  const nodes = opts.nodes ?? scenario?.fleet?.nodes ?? 50;
  const leaderVersion = opts.leaderVersion ?? scenario?.fleet?.leaderVersion ?? '4.19';
  if (!Number.isInteger(nodes) || nodes < 0) throw new Error(`nodes must be a non-negative integer (got ${nodes})`);
  if (!/^\d+\.\d+(\.\d+)?$/.test(leaderVersion)) {
    throw new Error(`leaderVersion must look like "4.19" (got "${leaderVersion}")`);
  }
  const clock = opts.clock ?? systemClock;
  const startedAt = clock.now();

  // Credentials come from their own stream so that they do not change with the fleet size.
  const idRandom = seededRandom((seed ^ 0x2545f491) >>> 0);
  const token = opts.token ?? `sim-${randomHex(idRandom, 24)}`;
  const forbiddenToken = opts.forbiddenToken ?? `sim-noperm-${randomHex(idRandom, 24)}`;
  const tokens = new TokenStore(clock, randomHex(idRandom, 32));
  const readOnlyToken = opts.readOnlyToken ?? `sim-ro-${randomHex(idRandom, 24)}`;
  const restrictedToken = opts.restrictedToken ?? `sim-restricted-${randomHex(idRandom, 24)}`;
  tokens.add(token, 'full');
  tokens.add(forbiddenToken, 'none');
  tokens.add(readOnlyToken, 'read-only');
  tokens.add(restrictedToken, 'read-only', 'api', opts.restrictedRoutes ?? DEFAULT_RESTRICTED_ROUTES);
  for (const t of scenario?.tokens ?? []) tokens.add(t.token, t.access, 'api', t.deny);

  const f = scenario?.fleet;
  const fleetOpts: FleetOptions = { nodes, leaderVersion, clock, random: seededRandom(seed) };
  const streamGroups = opts.streamGroups ?? f?.streamGroups;
  const edgeFleets = opts.edgeFleets ?? f?.edgeFleets;
  const configVersions = opts.configVersions ?? f?.configVersions;
  const edgeShare = opts.edgeShare ?? f?.edgeShare;
  const groupSizes = opts.groupSizes ?? f?.groupSizes;
  if (edgeShare !== undefined) fleetOpts.edgeShare = edgeShare;
  if (groupSizes !== undefined) fleetOpts.groupSizes = groupSizes;
  if (streamGroups !== undefined) fleetOpts.streamGroups = streamGroups;
  if (edgeFleets !== undefined) fleetOpts.edgeFleets = edgeFleets;
  if (configVersions !== undefined) fleetOpts.configVersions = configVersions;
  const fleet = new SimFleet(fleetOpts);
  for (const id of Object.keys(scenario?.groups ?? {})) {
    if (!fleet.hasGroup(id)) {
      throw new ScenarioError(
        `scenario: groups: unknown group or fleet ${JSON.stringify(id)} (the fleet has ${fleet.groupIds().join(', ')})`,
      );
    }
  }
  if (f?.hostileIds) fleet.addHostileNodes();
  if (f?.health) {
    const h = f.health;
    fleet.seedStates(h.unreachable ?? 0, (id) => fleet.setHealth(id, 'unreachable'));
    fleet.seedStates(h.slow ?? 0, (id) => fleet.setHealth(id, 'slow'));
    fleet.seedStates(h.standby ?? 0, (id) => fleet.setHealth(id, 'standby'));
    fleet.seedStates(h.shuttingDown ?? 0, (id) => fleet.setHealth(id, 'shutting down'));
  }
  if (f?.disconnected) fleet.seedStates(nodeCount(f.disconnected, nodes), (id) => fleet.setDisconnected(id, true));
  if (f?.silent) {
    const lastHeard = startedAt - SILENT_FOR_MS;
    fleet.seedStates(nodeCount(f.silent, nodes), (id) => fleet.setSilent(id, lastHeard));
  }
  if (f?.criblVersions) applyVersions(fleet, f.criblVersions, seed);
  applySignals(fleet, scenario);

  const groupSpecs: Record<string, GroupConfigSpec> = {};
  for (const [id, g] of Object.entries(scenario?.groups ?? {})) {
    const spec: GroupConfigSpec = {};
    if (g.packs) spec.packs = g.packs;
    if (g.outputs) spec.outputs = g.outputs;
    groupSpecs[id] = spec;
  }
  const config = new ConfigStore((g) => fleet.groupProduct(g), groupSpecs, scenario?.git);
  const version = parseVersion(leaderVersion);
  let apiPort = 0;
  const haOpts = opts.ha ?? scenario?.ha;
  let ha: HaModel | undefined;
  try {
    ha = haOpts ? new HaModel(haOpts, clock, startedAt) : undefined;
  } catch (e) {
    if (opts.ha) throw e;
    throw new ScenarioError(`scenario: ${e instanceof Error ? e.message : String(e)}`);
  }
  const dataflow = new DataflowModel(seed, flowCounts(fleet.groupIds(), scenario));
  const app = new SimulatorApp({
    fleet,
    config,
    search: new SearchJobs(seededRandom((seed ^ 0x5ea4c4) >>> 0)),
    workspaces: new Workspaces(opts.workspaces ?? scenario?.workspaces ?? []),
    engine: new FaultEngine(clock, opts.random ?? seededRandom((seed ^ 0x5eed) >>> 0), startedAt, {
      ...DEFAULT_FAULTS,
    }),
    stats: new StatsRecorder(() => clock.now()),
    tokens,
    clock,
    legacy: !versionAtLeast(version, [4, 17, 0]),
    overlay: versionAtLeast(version, OVERLAY_SINCE),
    version,
    dataflow,
    throughput: new ThroughputModel(seed, dataflow),
    leaderInfo: new LeaderInfo(seed, startedAt, version, () => apiPort),
    startedAt,
    users: opts.users ?? scenario?.users ?? [{ username: 'admin', password: 'admin' }],
    clients: opts.clients ?? scenario?.clients ?? [{ clientId: 'sim-client', clientSecret: 'sim-secret' }],
    organizationId: opts.organizationId,
    ha,
  });
  if (scenario) {
    try {
      app.patchFaults(scenario.faults);
    } catch (e) {
      throw new ScenarioError(`scenario: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  const host = opts.host ?? '127.0.0.1';
  const listen = async (handler: Parameters<typeof createHttpServer>[1], port: number): Promise<Server> => {
    const server: Server = opts.tls
      ? createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key }, handler)
      : createHttpServer(handler);
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return server;
  };
  // With HA, the main address is the load balancer, or else the first host; the other hosts get ports of their own.
  const server = await listen(app.handler(ha ? (ha.loadBalancer ? 'lb' : 0) : undefined), opts.port ?? 0);
  const servers = [server];
  try {
    for (let i = ha?.loadBalancer ? 0 : 1; ha && i < ha.size; i++) servers.push(await listen(app.handler(i), 0));
  } catch (e) {
    for (const s of servers) s.close();
    throw e;
  }
  const urlHost =
    host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  const originOf = (s: Server): string =>
    `${opts.tls ? 'https' : 'http'}://${urlHost}:${(s.address() as AddressInfo).port}`;
  const { port } = server.address() as AddressInfo;
  apiPort = port;
  const origin = originOf(server);
  const address = (s: Server): { origin: string; baseUrl: string } => ({
    origin: originOf(s),
    baseUrl: `${originOf(s)}/api/v1`,
  });
  const simHa: SimHa | undefined = ha && {
    hosts: (ha.loadBalancer ? servers.slice(1) : servers).map(address),
    ...(ha.loadBalancer ? { loadBalancer: address(server) } : {}),
    states: () => ha.states(),
    failover: (gapMs, to, down) => ha.failover(gapMs, to, down),
    setHost: (i, state) => ha.set(i, state),
    served: () => ha.served(),
    resetServed: () => ha.resetServed(),
  };
  let closing: Promise<void> | undefined;

  return {
    origin,
    baseUrl: `${origin}/api/v1`,
    adminUrl: `${origin}/_sim`,
    token,
    forbiddenToken,
    readOnlyToken,
    restrictedToken,
    oauthTokenUrl: `${origin}/oauth/token`,
    managementUrl: origin,
    fleet,
    ...(simHa ? { ha: simHa } : {}),
    setFaults: (patch: FaultsPatch) => void app.patchFaults(patch),
    faults: () => structuredClone(app.engine.faults),
    setWorkspaces: (ws: Workspace[]) => app.workspaces.replace(ws),
    workspaces: () => app.workspaceList,
    revokeTokens: () => tokens.revokeIssued(),
    revokeToken: (t: string) => tokens.revoke(t),
    addToken: (t, access = 'full', deny) => tokens.add(t, access, 'api', deny),
    setGroupConfig: (group, spec) => config.setGroup(group, spec),
    packs: (group) => config.packs(group),
    pipelines: (group, pack) => config.pipelines(group, pack),
    outputs: (group) => config.outputs(group),
    setGitSettings: (settings) => config.setGit(settings),
    gitSettings: () => config.git(),
    searchJob: (id) => app.search.job(id, clock.now()),
    dataflow: (group) => app.flow(group),
    throughput: (group, earliestMs, latestMs) => flowTruth(app, group, earliestMs, latestMs),
    addThroughputWindow: (w) => app.addThroughputWindow(w),
    destinationStatus: (group) => statusItems(app, group, 'output'),
    sourceStatus: (group) => statusItems(app, group, 'input'),
    licenses: () => app.leaderInfo.licenses(app.faults.license, context(app)),
    licenseUsage: () => app.leaderInfo.usage(app.faults.license, context(app)),
    systemInfo: () => systemInfoItem(app),
    messages: () => app.leaderInfo.messages(app.faults.messages, context(app)),
    resetState: (group) => {
      config.reset(group);
      if (group === undefined) app.search.reset();
    },
    stats: () => app.stats.snapshot(),
    resetStats: () => app.stats.reset(),
    truth: (silentAfterMs) => fleetTruth(fleet, clock.now(), silentAfterMs),
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        app.stop();
        let open = servers.length;
        for (const s of servers) {
          s.close(() => {
            if (--open === 0) resolve();
          });
          s.closeAllConnections();
        }
      })),
  };
}
