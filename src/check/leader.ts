/**
 * The API checks of `cribl-exporter check` against one leader, through its client and budget
 * (src/auth/connection.ts): the leader's own health and clock, the credentials, permission on each endpoint the
 * exporter calls, the fleet, the leader's version, and the request rate the configured intervals need against the
 * allowed rate.
 */
import type { Logger } from 'pino';
import type { Product } from '@cribl-exporter/api/products';
import { ENDPOINTS } from '@cribl-exporter/api/routes';
import type { LeaderConnection } from '../auth/connection.js';
import type { AuthConfig } from '../auth/types.js';
import type { Collector } from '../collectors/collector.js';
import { decodeGroupPage, groupsPage } from '../collectors/groups/index.js';
import { decodeWorkerEnvelope, masterWorkersPage, workersPage } from '../collectors/listing/index.js';
import { decodeHealth, healthRequest } from '../collectors/node-health/index.js';
import { leaderHealth } from '../collectors/leader-health/index.js';
import { metadataRequest } from '../collectors/node-metadata/index.js';
import { COLLECTORS } from '../collectors/registry.js';
import { settingsOf, targetOf, type Config, type LeaderConfig } from '../config/types.js';
import { Discoverer, type ListedFleetGroup, type ListedFleetNode } from '../discovery/discovery.js';
import type { HostReading, LeaderFailure, LeaderRequest, LeaderResult } from '../leader/types.js';
import { nodeCollectors } from '../polling/node-poll.js';
import { allowedRate, rateNeed, type AllowedRate, type PollingPlan } from '../polling/rate.js';
import { AUTO_DETAIL, detailFor, rotates, type NodeDetail } from '../collectors/detail.js';
import { discoveryIntervalFor } from '../polling/discovery-step.js';
import type { Clock } from '@cribl-exporter/api/clock';
import { formatDuration } from '@cribl-exporter/api/duration';
import { iso, type CheckResult } from './report.js';
import { checkCredentials } from './credentials.js';

/** What the API checks of one leader need. */
export interface LeaderCheckOptions {
  cfg: LeaderConfig;
  config: Config;
  conn: LeaderConnection;
  clock: Clock;
  logger: Logger;
}

/** Whether a collector runs for a leader. */
const runs = (config: Config, cfg: LeaderConfig, c: Collector): boolean =>
  c.enabled?.(settingsOf(config, c), targetOf(cfg)) !== false;

/**
 * The requests of the per-discovery and interval collectors that run for a leader, besides the listing, per
 * discovery interval (an interval collector's at its own interval, scaled to the discovery's).
 */
function discoveryCost(config: Config, cfg: LeaderConfig): { perDiscovery: number; perGroup: number } {
  let perDiscovery = 0;
  let perGroup = 0;
  for (const c of COLLECTORS) {
    const s = c.schedule;
    if ((s.kind !== 'discovery' && s.kind !== 'interval') || !runs(config, cfg, c)) continue;
    const scale = s.kind === 'interval' ? config.discovery.discoveryMs / s.intervalMs(settingsOf(config, c)) : 1;
    perDiscovery += (s.cost?.perRun ?? (s.kind === 'interval' && s.perGroup ? 0 : 1)) * scale;
    perGroup += (s.cost?.perGroup ?? (s.kind === 'interval' && s.perGroup ? 1 : 0)) * scale;
  }
  return { perDiscovery, perGroup };
}

/** The node collectors' intervals, the primary first. */
function nodeIntervals(config: Config): { name: string; intervalMs: number }[] {
  const { primary, riders } = nodeCollectors(
    COLLECTORS,
    (c) => settingsOf(config, c),
    () => true,
  );
  return [primary, ...riders].map((c) => ({ name: c.name, intervalMs: c.schedule.intervalMs(c.settings) }));
}

/** Clock differences up to this are fine; up to SKEW_FAIL_MS a warning; beyond, a problem. */
export const SKEW_WARN_MS = 5_000;
export const SKEW_FAIL_MS = 60_000;

const REFUSED: Readonly<Record<number, string>> = { 401: 'refused (401)', 403: 'forbidden (403)', 404: 'absent (404)' };

type Add = (check: string, status: CheckResult['status'], message: string, fix?: string) => void;

/** What the steps of one leader's check share: the leader, its requests, the lines so far, what earlier steps found. */
interface LeaderCheck {
  o: LeaderCheckOptions;
  out: CheckResult[];
  add: Add;
  /** Bounds each request and its retries. */
  timeoutMs: number;
  deadline(): number;
  /** Through the client without credentials (`raw`) or with them (`auth`). */
  request<T>(client: 'raw' | 'auth', req: LeaderRequest<T>): Promise<LeaderResult<T>>;
  /** The leader lists nodes with GET /master/workers (before 4.17); the permission step finds out. */
  legacy: boolean;
  /** The fleet as the exporter lists it; the fleet step fills it in (the steps after it run only then). */
  fleet: { nodes: ListedFleetNode[]; groups: readonly ListedFleetGroup[] };
}

/** One step: its lines; `stop` when the steps after it would say nothing new (one problem, said once). */
type Step = (c: LeaderCheck) => Promise<'stop' | undefined> | 'stop' | undefined;

/** The steps, in order. */
const STEPS: readonly Step[] = [
  haHosts,
  leaderHealthAndClock,
  credentials,
  listingPermissions,
  fleet,
  nodePermissions,
  collectorProbes,
  versionLine,
  rateLine,
  detailLine,
];

/** Runs the API checks of one leader: its steps, until one stops them. */
export async function checkLeaderApi(o: LeaderCheckOptions): Promise<CheckResult[]> {
  const { budget } = o.cfg;
  const timeoutMs = budget.connectTimeoutMs + budget.headersTimeoutMs + budget.bodyTimeoutMs;
  const out: CheckResult[] = [];
  const c: LeaderCheck = {
    o,
    out,
    add: (check, status, message, fix) => {
      out.push({ target: o.cfg.name, check, status, message, ...(fix ? { fix } : {}) });
    },
    timeoutMs,
    deadline: () => o.clock.now() + timeoutMs,
    request: (client, req) =>
      (client === 'raw' ? o.conn.raw : o.conn.client).request({ deadline: o.clock.now() + timeoutMs, ...req }),
    legacy: false,
    fleet: { nodes: [], groups: [] },
  };
  for (const step of STEPS) if ((await step(c)) === 'stop') break;
  return out;
}

/**
 * The HA hosts, when given: each one's health and role, and the host the exporter would use (direct: it follows
 * the primary now, so the checks below go there).
 */
async function haHosts(c: LeaderCheck): Promise<undefined> {
  const hosts = c.o.conn.raw.hosts;
  if (hosts) haLines(c, await hosts.read(), hosts.direct ? hosts.inUse : undefined);
  return undefined;
}

/** The leader's own health (no credentials) and its clock, from the answer's Date header. */
async function leaderHealthAndClock(c: LeaderCheck): Promise<'stop' | undefined> {
  const { add } = c;
  let date: { header: string; receivedAt: number } | undefined;
  const health = await c.request('raw', {
    endpoint: ENDPOINTS.leaderHealth,
    path: '/health',
    anonymous: true,
    accept: [200, 420],
    decode: (json, status, headers) => {
      const h = decodeHealth(json, status);
      const header = headers.date;
      if (typeof header === 'string') date = { header, receivedAt: c.o.clock.now() };
      return h;
    },
  });
  if (!health.ok) {
    const f = describeFailure('GET /health', health, c.o.cfg.auth);
    add('health', 'fail', f.message, f.fix);
    if (health.reason === 'connect' || health.reason === 'timeout') return 'stop';
    // Every leader answers GET /health without credentials: a 404 there says the base path is wrong, and what the
    // other requests get at that path (a proxy's or a web server's 401, say) says nothing about the credentials.
    if (health.status === 404) {
      add('api', 'skip', 'API not checked: not found, GET /health answers 404 at this base path (the URL is wrong)');
      return 'stop';
    }
  } else if (health.status === 420) {
    add(
      'health',
      'fail',
      `the leader answers "${health.body.status}" (420): it is not serving`,
      health.body.status === 'standby'
        ? 'point the leader URL at the primary leader'
        : 'wait until the leader is back, then check again',
    );
    // Every other request would wait for the leader to serve again (the client holds the budget on a 420).
    checkClock(date, add);
    add('api', 'skip', 'API not checked: the leader is not serving');
    return 'stop';
  } else {
    const role = health.body.role ? `role ${health.body.role}` : 'no role reported (leaders before 4.17)';
    const since = health.body.startTime ? `, up since ${iso(health.body.startTime)}` : '';
    add('health', 'ok', `GET /health: healthy, ${role}${since}`);
  }
  checkClock(date, add);
  return undefined;
}

/** Credentials: can a token be had, and how long is it good for. */
async function credentials(c: LeaderCheck): Promise<'stop' | undefined> {
  const cred = await checkCredentials(c.o.conn.auth, c.o.cfg.auth, c.o.clock);
  c.add('auth', cred.status, cred.message, cred.fix);
  // Without a token every request below would be refused for the same reason: one problem, said once.
  if (cred.status !== 'fail') return undefined;
  c.add('api', 'skip', 'API not checked: no usable token (see auth above)');
  return 'stop';
}

/** Permission on the listing and the groups of every product (401 vs 403 vs 404); finds a leader before 4.17. */
async function listingPermissions(c: LeaderCheck): Promise<'stop' | undefined> {
  for (const product of c.o.cfg.products) {
    const path = `/products/${product}/workers`;
    let listing = await c.request('auth', { ...workersPage(product, 1, 0), decode: decodeWorkerEnvelope });
    let what = `GET ${path}`;
    if (!listing.ok && listing.status === 404 && !c.legacy) {
      const old = await c.request('auth', { ...masterWorkersPage(1, 0), decode: decodeWorkerEnvelope });
      if (old.ok) c.legacy = true;
      else [listing, what] = [old, `GET ${path} and GET /master/workers`];
    }
    if (c.legacy) c.add('permission', 'ok', `GET /master/workers: allowed (${path} answers 404: a leader before 4.17)`);
    else permission(c, what, listing);
    const groups = await c.request('auth', { ...groupsPage(product, 1, 0, c.legacy), decode: decodeGroupPage });
    permission(c, c.legacy ? `GET /master/groups?product=${product}` : `GET /products/${product}/groups`, groups);
    if (c.legacy) break;
  }
  return c.out.some((r) => r.check === 'permission' && r.status === 'fail') ? 'stop' : undefined;
}

/** The fleet, listed as the exporter lists it: one line per product. */
async function fleet(c: LeaderCheck): Promise<'stop' | undefined> {
  const { cfg, config, conn, clock, logger } = c.o;
  const discovery = await new Discoverer({ client: conn.client, products: cfg.products, logger }).discover(
    clock.now() + Math.max(config.discovery.discoveryMs, c.timeoutMs),
  );
  if (!discovery.ok) {
    const f = describeFailure('listing the fleet', discovery, cfg.auth);
    c.add('fleet', 'fail', f.message, f.fix);
    return 'stop';
  }
  c.fleet = { nodes: [...discovery.nodes.values()], groups: discovery.groups };
  for (const product of cfg.products) fleetLine(c, product, c.fleet.nodes, c.fleet.groups);
  return undefined;
}

/** Permission in host context, on one connected node (a node that does not answer still shows 401/403 apart). */
async function nodePermissions(c: LeaderCheck): Promise<undefined> {
  const { nodes } = c.fleet;
  const sample = nodes.find((n) => n.listed.disconnected !== true) ?? nodes[0];
  if (sample) {
    const id = sample.listed.id;
    permission(c, `GET /w/{nodeId}/health`, await c.request('auth', healthRequest(id, c.deadline())), id);
    permission(c, `GET /w/{nodeId}/edge/metadata`, await c.request('auth', metadataRequest(id, c.deadline())), id);
  } else {
    c.add('permission', 'skip', 'GET /w/{nodeId}/health and /edge/metadata: no node to ask');
  }
  return undefined;
}

/** Each collector that runs: its probe, on a Stream group when there is one. */
async function collectorProbes(c: LeaderCheck): Promise<undefined> {
  const { cfg, config } = c.o;
  const group = c.fleet.groups.find((g) => g.product === 'stream') ?? c.fleet.groups[0];
  for (const col of COLLECTORS) {
    // The leader's own /health is checked apart, first.
    if (!col.probe || col.name === leaderHealth.name || !runs(config, cfg, col)) continue;
    const s = settingsOf(config, col);
    collectorLine(
      c,
      col,
      col.probe(s, undefined, 0),
      await c.request('auth', col.probe(s, group?.group.id, c.deadline())),
    );
  }
  return undefined;
}

function haLines(c: LeaderCheck, readings: readonly HostReading[], inUse: string | undefined): void {
  const { add } = c;
  for (const r of readings) {
    const h = r.health;
    if (!h) {
      add(
        'ha',
        'warn',
        `host ${r.host}: GET /health does not answer (${r.failure ?? 'no answer'})`,
        'check that the host runs and that the exporter reaches it at this --leader.ha-url',
      );
      continue;
    }
    const role = h.role ? `role ${h.role}` : 'no role reported (leaders before 4.17)';
    const since = h.startTime ? `, up since ${iso(h.startTime)}` : '';
    const line = `host ${r.host}: ${h.status}, ${role}${since}`;
    if (h.status === 'shutting down') add('ha', 'warn', line, 'wait until the host is back, then check again');
    else add('ha', 'ok', line);
  }
  const primaries = readings.filter((r) => r.health?.role === 'primary').map((r) => r.host);
  const api = new URL(c.o.cfg.url).host;
  const via = inUse ? `requests go to ${inUse}` : `requests go to the load balancer ${api}`;
  if (primaries.length === 1) {
    add('ha', 'ok', `${via}${inUse === primaries[0] ? ' (the primary)' : `; the primary is ${primaries[0]}`}`);
  } else if (primaries.length === 0) {
    add('ha', 'fail', `no HA host is primary; ${via}`, 'fail over to a host, or finish the failover in progress');
  } else {
    add(
      'ha',
      'fail',
      `${primaries.length} HA hosts are primary (${primaries.join(', ')}); ${via}`,
      'stop the host that should not be primary (split brain)',
    );
  }
}

function permission(c: LeaderCheck, what: string, res: LeaderResult<unknown>, nodeId?: string): void {
  if (res.ok) return c.add('permission', 'ok', `${what}: allowed${nodeId ? ` (node ${nodeId} answered)` : ''}`);
  // In host context a 502/504 is the node's own state: the request itself was allowed.
  if (nodeId && res.reason === 'http_5xx') {
    return c.add('permission', 'ok', `${what}: allowed (node ${nodeId} does not answer: HTTP ${res.status ?? '5xx'})`);
  }
  const f = describeFailure(what, res, c.o.cfg.auth);
  c.add('permission', 'fail', f.message, f.fix);
}

/** One line per collector: allowed, or what its refusal means (off, for an optional collector). */
function collectorLine(c: LeaderCheck, col: Collector, req: LeaderRequest<unknown>, res: LeaderResult<unknown>): void {
  const what = `${req.method ?? 'GET'} ${req.endpoint} (collector ${col.name})`;
  if (res.ok) return c.add('collector', 'ok', `${what}: allowed`);
  const refused = REFUSED[res.status ?? 0];
  if (refused === undefined || !col.optional) {
    const f = describeFailure(what, res, c.o.cfg.auth);
    return c.add('collector', col.optional ? 'warn' : 'fail', f.message, f.fix);
  }
  // The leader refuses it by design (the license on Cribl.Cloud).
  const expected = col.refusalExpected?.(targetOf(c.o.cfg)) ?? false;
  const flag = Object.values(col.settings ?? {}).find((r) => r.name.startsWith('collector.'))?.name;
  const off = flag ? ` (or turn it off: --no-${flag})` : '';
  const fix =
    res.status === 404
      ? `the leader has no such endpoint (an older version, or Cribl.Cloud)${off}`
      : `give the exporter's credentials ${col.permission ?? 'read access to it'}${off}`;
  c.add(
    'collector',
    expected ? 'ok' : 'warn',
    `${what}: ${refused}: collector ${col.name} will be off` + (expected ? ' (as on every Cribl.Cloud leader)' : ''),
    ...(expected ? [] : [fix]),
  );
}

function fleetLine(
  c: LeaderCheck,
  product: Product,
  all: ListedFleetNode[],
  groups: readonly ListedFleetGroup[],
): void {
  const list = all.filter((n) => n.product === product);
  if (list.length === 0) {
    c.add(
      'fleet',
      'warn',
      `${product}: no nodes listed`,
      `nothing to monitor for ${product}: leave it out (--products) if you do not use it`,
    );
    return;
  }
  const byGroup = new Map<string, number>();
  for (const g of groups) if (g.product === product) byGroup.set(g.group.id, 0);
  for (const n of list) byGroup.set(n.listed.group, (byGroup.get(n.listed.group) ?? 0) + 1);
  const shown = [...byGroup].slice(0, 8).map(([g, count]) => `${g} ${count}`);
  const more = byGroup.size > 8 ? `, and ${byGroup.size - 8} more` : '';
  const disconnected = list.filter((n) => n.listed.disconnected === true).length;
  const kind = product === 'edge' ? 'fleet' : 'group';
  c.add(
    'fleet',
    'ok',
    `${product}: ${list.length} node${list.length === 1 ? '' : 's'} in ${byGroup.size} ${kind}` +
      `${byGroup.size === 1 ? '' : 's'} (${shown.join(', ')}${more})` +
      (disconnected ? `; ${disconnected} disconnected` : ''),
  );
}

function versionLine(c: LeaderCheck): undefined {
  const versions = new Map<string, number>();
  for (const n of c.fleet.nodes) {
    const v = n.listed.version ?? 'unknown';
    versions.set(v, (versions.get(v) ?? 0) + 1);
  }
  const top = [...versions].sort((a, b) => b[1] - a[1]).slice(0, 4);
  const nodesRun = top.length ? `; nodes run ${top.map(([v, count]) => `${v} (${count})`).join(', ')}` : '';
  c.add(
    'version',
    'ok',
    (c.legacy
      ? 'leader before 4.17: the exporter lists nodes with GET /master/workers'
      : 'leader 4.17 or later: the exporter lists nodes with GET /products/{product}/workers') + nodesRun,
  );
  return undefined;
}

/** The fleet's plan as the exporter would run it: each product's level, the discovery interval in force, the rate. */
function fleetPlan(c: LeaderCheck): {
  plan: PollingPlan;
  listed: Partial<Record<Product, number>>;
  levels: Partial<Record<Product, NodeDetail>>;
  allowed: AllowedRate;
} {
  const { cfg, config } = c.o;
  const shards = Math.max(1, config.shard.total);
  const listed: Partial<Record<Product, number>> = {};
  for (const n of c.fleet.nodes) listed[n.product] = (listed[n.product] ?? 0) + 1;
  // As each discovery decides (src/polling/discovery-step.ts): the level by the whole listing, per product.
  const settings = { edge: config.discovery.edgeNodeDetail, stream: config.discovery.streamNodeDetail };
  const levels: Partial<Record<Product, NodeDetail>> = {};
  const rotating: Partial<Record<Product, number>> = {};
  const rotatingLevels: Partial<Record<Product, NodeDetail>> = {};
  for (const [product, count] of Object.entries(listed) as [Product, number][]) {
    const level = (levels[product] = detailFor(settings[product], count));
    if (!rotates(level)) continue;
    rotating[product] = Math.ceil(count / shards);
    rotatingLevels[product] = level;
  }
  const { perDiscovery, perGroup } = discoveryCost(config, cfg);
  // This process polls its shard's share; src/polling/rate.ts is the one computation of need and allowance.
  const plan: PollingPlan = {
    nodes: Math.ceil(c.fleet.nodes.length / shards),
    rotating,
    rotatingLevels,
    nodeIntervalsMs: nodeIntervals(config),
    discoveryIntervalMs: discoveryIntervalFor(config.discovery.discoveryMs, listed),
    products: cfg.products.length,
    // Per discovery besides the listing: the leader's own /health, each group's commits, the git settings.
    extraPerDiscovery: perDiscovery + c.fleet.groups.length * perGroup,
  };
  return { plan, listed, levels, allowed: allowedRate(cfg.budget.maxRps, cfg.budget.maxRpsCeiling, plan) };
}

/**
 * The node detail level each product would get, how its health would be polled (every interval, or rotating: at
 * what rate and how long a rotation takes) and the discovery interval in force.
 */
function detailLine(c: LeaderCheck): undefined {
  const { config } = c.o;
  const { plan, listed, levels, allowed } = fleetPlan(c);
  const settings = { edge: config.discovery.edgeNodeDetail, stream: config.discovery.streamNodeDetail };
  const healthMs = plan.nodeIntervalsMs[0]?.intervalMs ?? 0;
  const parts = (Object.entries(levels) as [Product, NodeDetail][]).map(([product, level]) => {
    const why = settings[product] === 'auto' ? `auto for ${listed[product] ?? 0} nodes` : `--${product}.node-detail`;
    const r = allowed.rotation[product];
    const polls =
      r === undefined
        ? `health of every node every ${formatDuration(healthMs)}`
        : `health polls rotate at ${r.rps >= 10 ? r.rps.toFixed(0) : r.rps.toFixed(1)}/s, each node every ` +
          `${formatDuration(Math.ceil(r.seconds) * 1000)} (liveness from the listing)`;
    return `${product} ${level} (${why}): ${polls}`;
  });
  if (parts.length === 0) return undefined;
  const slowed = plan.discoveryIntervalMs > config.discovery.discoveryMs;
  const discovery = slowed
    ? `; discovery every ${formatDuration(plan.discoveryIntervalMs)}, not --discovery.interval's ` +
      `${formatDuration(config.discovery.discoveryMs)} (100,000 listed nodes or more)`
    : '';
  const auto = `auto: full up to ${AUTO_DETAIL.fullUpTo} nodes, basic up to ${AUTO_DETAIL.basicUpTo}, minimal above`;
  c.add('detail', 'ok', `${parts.join('; ')}${discovery} (${auto})`);
  return undefined;
}

function rateLine(c: LeaderCheck): undefined {
  const { config } = c.o;
  const nodeCount = c.fleet.nodes.length;
  const shards = config.shard.total;
  const { plan, allowed } = fleetPlan(c);
  const need = rateNeed(plan);
  const r = (x: number): string => (x >= 10 ? x.toFixed(0) : x.toFixed(1));
  const parts = [...need.nodes.map((n) => `${n.name} ${r(n.rps)}`), `discovery ${r(need.discovery)}`].join(', ');
  const per = shards > 1 ? ` (this shard's share of ${nodeCount} nodes)` : ` for ${nodeCount} nodes`;
  const capped = allowed.capped ? ' (capped by --leader.max-rps-ceiling)' : '';
  const bound =
    allowed.mode === 'auto'
      ? `--leader.max-rps auto allows ${r(allowed.rps)}${capped}`
      : `--leader.max-rps allows ${r(allowed.rps)}`;
  const text = `needs ${r(need.total)} requests/s${per} (${parts}); ${bound}`;
  const wanted = Math.ceil(need.total * 1.25);
  if (!allowed.covers) {
    const healthMs = plan.nodeIntervalsMs[0]?.intervalMs ?? 0;
    const interval = Math.ceil(
      (healthMs * need.primary) / Math.max(allowed.rps - need.riders - need.discovery, 1e-9) / 1000,
    );
    const cycle = Number.isFinite(allowed.cycleSeconds)
      ? formatDuration(Math.ceil(allowed.cycleSeconds) * 1000)
      : 'forever';
    const raise =
      allowed.mode === 'auto'
        ? `raise --leader.max-rps-ceiling to at least ${wanted}`
        : `raise --leader.max-rps to at least ${wanted} (or set it to auto)`;
    c.add(
      'rate',
      'fail',
      `${text}: a health cycle would take about ${cycle} instead of ${formatDuration(healthMs)}`,
      `${raise} if the leader can take it, or --health.interval to at least ${formatDuration(interval * 1000)}, ` +
        'or shard (--shard.total)',
    );
  } else if (allowed.mode === 'pinned' && need.total > allowed.rps * 0.8) {
    c.add(
      'rate',
      'warn',
      `${text}: little headroom for retries, logins and a growing fleet`,
      `raise --leader.max-rps to about ${wanted}, set it to auto, or lengthen --health.interval`,
    );
  } else {
    c.add('rate', 'ok', text);
  }
  return undefined;
}

function checkClock(date: { header: string; receivedAt: number } | undefined, add: Add): void {
  if (!date) return add('clock', 'skip', 'the leader sent no Date header: clock skew not checked');
  const leaderMs = Date.parse(date.header);
  if (!Number.isFinite(leaderMs)) return add('clock', 'skip', 'the Date header of the leader does not parse');
  // The header has whole seconds (cut, not rounded): half a second is the best guess of what was cut.
  const skew = date.receivedAt - leaderMs - 500;
  const abs = Math.abs(skew);
  const side = skew > 0 ? 'behind' : 'ahead of';
  const text = `the leader's clock (Date header) is ${Math.round(abs / 1000)}s ${side} this machine's`;
  const fix =
    'synchronise both clocks (NTP): heartbeat-age alerts compare the leader’s timestamps with Prometheus time, ' +
    'and token expiry with this machine’s';
  if (abs <= 1000) add('clock', 'ok', "the leader's clock (Date header) agrees with this machine's to the second");
  else if (abs <= SKEW_WARN_MS) add('clock', 'ok', `${text}: close enough`);
  else if (abs <= SKEW_FAIL_MS) add('clock', 'warn', text, fix);
  else add('clock', 'fail', text, fix);
}

/** A failed request as one line and its fix: 401, 403 and 404 each say something different. */
export function describeFailure(
  what: string,
  f: Pick<LeaderFailure, 'reason' | 'message'> & { status?: number },
  auth: AuthConfig,
): { message: string; fix: string } {
  switch (f.status) {
    case 401:
      return {
        message: `${what}: 401, the credentials were refused`,
        fix:
          auth.mode === 'none'
            ? 'the leader wants credentials: set CRIBL_TOKEN or --leader.token-file (or a user, or Cribl.Cloud ' +
              'client credentials)'
            : auth.mode === 'token'
              ? 'the token is wrong, expired or revoked: create a new API token for the exporter'
              : 'the credentials log in but the token is refused: check that they belong to this leader',
      };
    case 403:
      return {
        message: `${what}: 403, the credentials are valid but not allowed here`,
        fix:
          'give the exporter’s user or API credentials read access to the worker groups and fleets (at least ' +
          'Read Only on Stream and Edge)',
      };
    case 404:
      return {
        message: `${what}: 404, not found`,
        fix: 'the leader URL must be the global-context API base, ending in /api/v1 (e.g. https://leader:9000/api/v1)',
      };
    case 420:
      return { message: `${what}: 420, the leader is not serving`, fix: 'point the URL at the primary leader' };
  }
  switch (f.reason) {
    case 'throttled':
      return {
        message: `${what}: the leader kept answering 429/503 (${f.message})`,
        fix: 'the leader is busy or rate-limits the exporter: try again, and keep --leader.max-rps modest',
      };
    case 'connect':
    case 'timeout':
      return {
        message: f.message,
        fix: 'see the DNS, TCP and TLS lines above; check --leader.timeout.* for a slow leader',
      };
    case 'decode':
      return {
        message: `${what}: the answer is not what a Cribl leader sends (${f.message})`,
        fix: 'check that the URL points at a Cribl Stream or Edge leader, not a proxy or another service',
      };
    case 'redirect':
      return {
        message: `${what}: ${f.status ?? '3xx'}, a redirect (not followed)`,
        fix:
          'use the leader’s API base itself (scheme, host and port as the leader serves them, ending in /api/v1); ' +
          'a proxy that redirects to a login page cannot be used',
      };
    case 'too_large':
      return {
        message: `${what}: the answer is larger than --leader.max-response-size (${f.message})`,
        fix: 'raise --leader.max-response-size for this leader',
      };
    case 'settings':
      return {
        message: f.message,
        fix: 'make the credential file exist and be readable by the exporter’s user, with one usable secret in it',
      };
    default:
      return { message: f.message, fix: 'see the leader’s logs for this request' };
  }
}
