import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import type { Workspace } from '@cribl-exporter/api/shapes';
import { TOKEN_ACCESS } from './auth.js';
import type { TokenAccess, TokenStore } from './auth.js';
import type { ConfigStore } from './config-store.js';
import type { FaultEngine } from './fault-engine.js';
import { formatIssues } from './faults.js';
import type { Faults } from './faults.js';
import { NODE_HEALTH_MODES, UPGRADE_STATES } from './fleet.js';
import type { SimFleet, SimNode } from './fleet.js';
import type { Workspaces } from '../endpoints/workspaces/workspaces.js';
import { HA_HOST_STATES, type HaHostState, type HaModel } from './ha.js';
import { duration } from './schema-util.js';
import { gitSchema, groupSchema, workspaceSchema } from './scenario.js';
import { routeName } from './route-names.js';
import type { GroupFlow } from './dataflow.js';
import type { Env } from './env.js';
import { statusItems } from '../endpoints/status/index.js';
import { flowTruth } from '../endpoints/metrics-query/truth.js';
import type { SearchJobs } from '../endpoints/search-jobs/jobs.js';
import type { StatsRecorder } from './stats.js';
import type { Clock } from '@cribl-exporter/api/clock';

/** What the admin endpoint reads and changes (the simulator app implements it). */
export interface AdminDeps extends Env {
  readonly fleet: SimFleet;
  readonly stats: StatsRecorder;
  readonly tokens: TokenStore;
  readonly engine: FaultEngine;
  readonly config: ConfigStore;
  readonly search: SearchJobs;
  readonly workspaces: Workspaces;
  readonly workspaceList: Workspace[];
  readonly clock: Clock;
  /** Whether the 420 bodies of a leader set to standby by hand carry `role`. */
  leaderRole: boolean;
  /** Validates and applies faults; throws a one-line Error when invalid. */
  patchFaults(patch: unknown, replace?: boolean): Faults;
  /** A group's destinations and sources, or undefined. */
  flow(group: string): GroupFlow | undefined;
  /** The HA hosts, when there are several. */
  readonly ha: HaModel | undefined;
  /** Appends a throughput window (from now unless it has a `start`); throws a one-line Error when invalid. */
  addThroughputWindow(window: unknown): Faults;
}

const ADMIN_BODY_LIMIT = 1_000_000;
const healthMode = z.enum(NODE_HEALTH_MODES as [string, ...string[]]);

const addNodeSchema = z.strictObject({
  product: z.enum(['stream', 'edge']).optional(),
  group: z.string().min(1).optional(),
  id: z.string().min(1).optional(),
  hostname: z.string().min(1).optional(),
  health: healthMode.optional(),
  disconnected: z.boolean().optional(),
  count: z.number().int().min(1).max(100_000).optional(),
  hostile: z.boolean().optional(),
});

const upgradeSchema = z.strictObject({
  state: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3), z.enum(UPGRADE_STATES)]),
  reason: z.number().int().nonnegative().optional(),
  timestamp: z.number().int().nonnegative().optional(),
});

const patchNodeSchema = z.strictObject({
  health: healthMode.optional(),
  disconnected: z.boolean().optional(),
  restart: z.boolean().optional(),
  configVersion: z.string().min(1).optional(),
  /** Config drift: commits behind the group's deployed one. */
  drift: z.number().int().min(1).optional(),
  /** Listing `status`; null follows the health mode again. */
  status: z.string().min(1).nullable().optional(),
  upgrade: upgradeSchema.nullable().optional(),
});

const leaderSchema = z
  .strictObject({
    state: z.enum(['healthy', 'standby', 'shutting down']).optional(),
    /** false: 420 bodies without `role` (only the leader's /health tells standby apart). */
    role: z.boolean().optional(),
    configVersions: z.enum(['hash', 'semver']).optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'give state, role and/or configVersions' });
const failoverSchema = z.strictObject({
  gap: duration.optional(),
  to: z.number().int().nonnegative().optional(),
  down: z.boolean().optional(),
});
const haHostSchema = z.strictObject({ state: z.enum(HA_HOST_STATES as [HaHostState, ...HaHostState[]]) });
const deploySchema = z.strictObject({
  message: z.string().optional(),
  rollout: z.boolean().optional(),
  commit: z.boolean().optional(),
});
const commitSchema = z.strictObject({
  message: z.string().optional(),
  count: z.number().int().min(1).max(1000).optional(),
});
const patchGroupSchema = z
  .strictObject({
    incompatibleWorkerCount: z.number().int().nonnegative().optional(),
    localChanges: z.number().int().nonnegative().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'give incompatibleWorkerCount and/or localChanges' });
const configSchema = groupSchema.pick({ packs: true, outputs: true });
const revokeSchema = z.strictObject({ token: z.string().min(1).optional() });
const addTokenSchema = z.strictObject({
  token: z.string().min(8).regex(/^\S+$/),
  access: z.enum(TOKEN_ACCESS as [TokenAccess, ...TokenAccess[]]).default('full'),
  /** Route templates the token is refused on (403). */
  deny: z.array(routeName).default([]),
});

class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** True for loopback peers (127.0.0.0/8, ::1, and IPv4-mapped 127.x): the only clients the admin endpoint serves. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** JSON summary of a node on the admin endpoint. */
export function nodeSummary(n: SimNode): Record<string, unknown> {
  return {
    id: n.id,
    product: n.product,
    group: n.group,
    hostname: n.hostname,
    health: n.health,
    status: n.listingStatus,
    disconnected: n.disconnected,
    configVersion: n.configVersion,
    startTime: n.startTime,
    hostile: n.hostile,
    ...(n.upgrade ? { upgrade: n.upgrade } : {}),
  };
}

/**
 * Serves /_sim/… (loopback clients only; checked by the caller). Requests here bypass faults and
 * statistics. Errors are `{error: "<one line>"}`.
 */
export async function handleAdmin(
  deps: AdminDeps,
  req: IncomingMessage,
  res: ServerResponse,
  rest: readonly string[],
  search: string,
): Promise<void> {
  let status = 200;
  let body: unknown;
  try {
    [status, body] = await route(deps, req, rest, search);
  } catch (e) {
    status = e instanceof AdminError ? e.status : 400;
    body = { error: e instanceof Error ? e.message : String(e) };
  }
  if (status === 204) {
    res.writeHead(204).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function route(
  deps: AdminDeps,
  req: IncomingMessage,
  rest: readonly string[],
  search: string,
): Promise<[number, unknown]> {
  const method = req.method ?? 'GET';
  const [a = '', b, c] = rest;
  const { fleet } = deps;
  const key = `${method} ${a}${b === undefined ? '' : b === '' ? '/' : '/:x'}${c === undefined ? '' : `/${c}`}`;
  if (a === 'ha') return haRoute(deps, req, method, rest.slice(1));
  switch (key) {
    case 'GET ':
    case 'GET /':
      return [200, { endpoints: ENDPOINTS }];
    case 'GET stats':
      return [200, deps.stats.snapshot()];
    case 'POST stats/:x':
      if (b !== 'reset') break;
      drain(req);
      deps.stats.reset();
      return [200, deps.stats.snapshot()];
    case 'GET faults':
      return [200, deps.engine.faults];
    case 'PUT faults':
      return [200, deps.patchFaults(await readJson(req), true)];
    case 'PATCH faults':
      return [200, deps.patchFaults(await readJson(req))];
    case 'GET nodes': {
      const q = new URLSearchParams(search);
      const offset = Number(q.get('offset') ?? 0) || 0;
      const limit = q.has('limit') ? Number(q.get('limit')) : undefined;
      const all = fleet.nodes();
      const items = all.slice(offset, limit === undefined ? undefined : offset + limit).map(nodeSummary);
      return [200, { count: items.length, totalCount: all.length, items }];
    }
    case 'POST nodes': {
      const opts = parse(addNodeSchema, await readJson(req));
      if (opts.hostile) return [201, { items: fleet.addHostileNodes(opts.product).map(nodeSummary) }];
      const { count = 1, hostile: _h, ...nodeOpts } = opts;
      if (count > 1 && nodeOpts.id !== undefined) throw new AdminError(400, 'id cannot be combined with count > 1');
      const added: SimNode[] = [];
      for (let i = 0; i < count; i++) added.push(fleet.addNode(nodeOpts as Parameters<SimFleet['addNode']>[0]));
      return [201, { items: added.map(nodeSummary) }];
    }
    case 'GET nodes/:x':
    case 'DELETE nodes/:x':
    case 'PATCH nodes/:x': {
      if (c !== undefined) break;
      const id = decodeSegment(b ?? '');
      const node = fleet.node(id);
      if (!node) throw new AdminError(404, `unknown node id ${JSON.stringify(id)}`);
      if (method === 'GET') return [200, { ...nodeSummary(node), entry: node.entry }];
      if (method === 'DELETE') {
        drain(req);
        fleet.removeNode(id);
        return [204, undefined];
      }
      const patch = parse(patchNodeSchema, await readJson(req));
      if (patch.restart) fleet.restart(id);
      if (patch.health !== undefined) fleet.setHealth(id, patch.health as SimNode['health']);
      if (patch.disconnected !== undefined) fleet.setDisconnected(id, patch.disconnected);
      if (patch.configVersion !== undefined) fleet.setConfigVersion(id, patch.configVersion);
      if (patch.drift !== undefined) fleet.drift(id, patch.drift);
      if (patch.status !== undefined) fleet.setListingStatus(id, patch.status);
      if (patch.upgrade !== undefined) fleet.setUpgradeStatus(id, patch.upgrade);
      return [200, nodeSummary(fleet.node(id) as SimNode)];
    }
    case 'GET leader':
      return [200, leaderSummary(deps)];
    case 'POST leader': {
      const body = parse(leaderSchema, await readJson(req));
      if (body.state !== undefined) fleet.setLeaderState(body.state);
      if (body.role !== undefined) deps.leaderRole = body.role;
      if (body.configVersions !== undefined) fleet.setConfigVersionStyle(body.configVersions);
      return [200, leaderSummary(deps)];
    }
    case 'GET groups':
      return [200, { stream: fleet.groups('stream'), edge: fleet.groups('edge') }];
    case 'POST groups/:x/deploy':
    case 'POST groups/:x/commit':
    case 'POST groups/:x/reset':
    case 'GET groups/:x/config':
    case 'GET groups/:x/dataflow':
    case 'GET groups/:x/throughput':
    case 'POST groups/:x/throughput':
    case 'PUT groups/:x/config':
    case 'PATCH groups/:x':
      return groupRoute(deps, req, method, decodeSegment(b ?? ''), c, search);
    case 'POST state/:x':
      if (b !== 'reset') break;
      drain(req);
      deps.config.reset();
      deps.search.reset();
      return [200, { reset: true }];
    case 'GET git':
      return [200, deps.config.git()];
    case 'PUT git':
      deps.config.setGit(parse(gitSchema, await readJson(req)));
      return [200, deps.config.git()];
    case 'GET search':
    case 'GET search/:x': {
      if (b !== undefined && b !== 'jobs') break;
      const now = deps.clock.now();
      return [200, { items: deps.search.ids().map((id) => deps.search.job(id, now)) }];
    }
    case 'POST tokens': {
      const { token, access, deny } = parse(addTokenSchema, await readJson(req));
      deps.tokens.add(token, access, 'api', deny);
      return [201, { added: true, access, deny }];
    }
    case 'POST tokens/:x': {
      if (b !== 'revoke') break;
      const { token } = parse(revokeSchema, await readJson(req, true));
      if (token === undefined) return [200, { revoked: deps.tokens.revokeIssued() }];
      return [200, { revoked: deps.tokens.revoke(token) ? 1 : 0 }];
    }
    case 'GET workspaces':
      return [200, { items: deps.workspaceList, count: deps.workspaceList.length }];
    case 'PUT workspaces': {
      const body = await readJson(req);
      const items = Array.isArray(body) ? body : (body as { items?: unknown } | null)?.items;
      const list = parse(z.array(workspaceSchema), items);
      deps.workspaces.replace(list);
      return [200, { items: deps.workspaceList, count: deps.workspaceList.length }];
    }
  }
  drain(req);
  const known = ENDPOINTS.some((e) => e.split(' ')[1]?.split('/')[2] === a);
  throw new AdminError(known ? 405 : 404, `no admin endpoint ${method} /_sim/${rest.join('/')}`);
}

async function groupRoute(
  deps: AdminDeps,
  req: IncomingMessage,
  method: string,
  id: string,
  sub: string | undefined,
  search: string,
): Promise<[number, unknown]> {
  const { fleet } = deps;
  if (!fleet.hasGroup(id)) throw new AdminError(404, `unknown group ${JSON.stringify(id)}`);
  switch (`${method} ${sub ?? ''}`) {
    case 'POST deploy': {
      const opts = parse(deploySchema, await readJson(req, true));
      const deployOpts: Parameters<SimFleet['deployGroup']>[1] = {};
      if (opts.message !== undefined) deployOpts.message = opts.message;
      if (opts.rollout !== undefined) deployOpts.rollout = opts.rollout;
      if (opts.commit !== undefined) deployOpts.commit = opts.commit;
      return [200, { group: id, configVersion: fleet.deployGroup(id, deployOpts) }];
    }
    case 'POST commit': {
      const opts = parse(commitSchema, await readJson(req, true));
      const hashes: string[] = [];
      const commitOpts = opts.message === undefined ? {} : { message: opts.message };
      for (let i = 0; i < (opts.count ?? 1); i++) hashes.push(fleet.commitGroup(id, commitOpts));
      return [200, { group: id, commits: hashes, undeployedCommits: fleet.undeployedCommits(id) }];
    }
    case 'POST reset':
      drain(req);
      deps.config.reset(id);
      return [200, { group: id, reset: true }];
    case 'PUT config': {
      const spec = parse(configSchema, await readJson(req));
      deps.config.setGroup(id, spec);
      return [200, groupConfig(deps, id)];
    }
    case 'GET config':
      return [200, groupConfig(deps, id)];
    case 'GET dataflow': {
      const flow = deps.flow(id);
      return [
        200,
        {
          group: id,
          processes: fleet.processes(id),
          destinations: flow?.outputs ?? [],
          sources: flow?.inputs ?? [],
          status: { destinations: statusItems(deps, id, 'output'), sources: statusItems(deps, id, 'input') },
        },
      ];
    }
    case 'GET throughput': {
      const q = new URLSearchParams(search);
      const now = deps.clock.now();
      const time = (k: string, def: number): number => {
        const v = q.get(k);
        const n = v === null ? def : Number(v);
        if (!Number.isFinite(n)) throw new AdminError(400, `${k} must be epoch seconds or ms`);
        return n < 1e11 ? n * 1000 : n;
      };
      const latestMs = time('latest', now);
      const earliestMs = time('earliest', latestMs - 60_000);
      return [200, { group: id, earliestMs, latestMs, ...flowTruth(deps, id, earliestMs, latestMs) }];
    }
    case 'POST throughput': {
      const body = await readJson(req);
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new AdminError(400, 'expected a throughput window (a JSON object)');
      }
      const faults = deps.addThroughputWindow({ ...body, group: id });
      return [200, { group: id, windows: faults.throughput.windows.filter((w) => w.group === id) }];
    }
    case 'PATCH ': {
      const { incompatibleWorkerCount, localChanges } = parse(patchGroupSchema, await readJson(req));
      if (incompatibleWorkerCount !== undefined) fleet.setIncompatibleWorkerCount(id, incompatibleWorkerCount);
      if (localChanges !== undefined) fleet.setLocalChanges(id, localChanges);
      const group = [...fleet.groups('stream'), ...fleet.groups('edge')].find((g) => g.id === id);
      return [200, { ...group, localChanges: fleet.localChanges(id) }];
    }
  }
  drain(req);
  throw new AdminError(405, `no admin endpoint ${method} /_sim/groups/${id}/${sub ?? ''}`);
}

/** /_sim/ha: the hosts' states, a failover, one host's state. */
async function haRoute(
  deps: AdminDeps,
  req: IncomingMessage,
  method: string,
  rest: readonly string[],
): Promise<[number, unknown]> {
  const ha = deps.ha;
  if (!ha) {
    drain(req);
    throw new AdminError(404, 'the simulator runs one leader host (start it with ha, or a scenario with ha:)');
  }
  const [b, c, extra] = rest;
  if (method === 'GET' && b === undefined) return [200, haSummary(ha)];
  if (method === 'POST' && b === 'failover' && c === undefined) {
    const { gap, to, down } = parse(failoverSchema, await readJson(req, true));
    ha.failover(gap ?? 0, to, down === true);
    return [200, haSummary(ha)];
  }
  if (method === 'PATCH' && b === 'hosts' && c !== undefined && extra === undefined) {
    const host = Number(c);
    const { state } = parse(haHostSchema, await readJson(req));
    ha.set(host, state);
    return [200, haSummary(ha)];
  }
  drain(req);
  throw new AdminError(404, `no admin endpoint ${method} /_sim/ha/${rest.join('/')}`);
}

function haSummary(ha: HaModel): unknown {
  const pending = ha.pending();
  return {
    hosts: ha.states().map((state, i) => ({ host: i, state, served: ha.served()[i] })),
    loadBalancer: ha.loadBalancer,
    ...(pending ? { pending } : {}),
  };
}

function leaderSummary(deps: AdminDeps): unknown {
  const { state, role } = deps.engine.leaderWindow(deps.fleet.leaderState(), deps.leaderRole);
  return { state, role, manual: deps.fleet.leaderState(), configVersions: deps.fleet.configVersionStyle() };
}

function groupConfig(deps: AdminDeps, id: string): unknown {
  const packs = (deps.config.packs(id) ?? []).map((p) => ({ ...p, pipelines: deps.config.pipelines(id, p.id) ?? [] }));
  return { group: id, packs, outputs: deps.config.outputs(id) ?? [] };
}

const ENDPOINTS = [
  'GET /_sim/stats',
  'POST /_sim/stats/reset',
  'GET|PUT|PATCH /_sim/faults',
  'GET|POST /_sim/nodes',
  'GET|PATCH|DELETE /_sim/nodes/{id}',
  'GET|POST /_sim/leader',
  'GET /_sim/groups',
  'PATCH /_sim/groups/{id}',
  'GET /_sim/groups/{id}/dataflow',
  'GET|POST /_sim/groups/{id}/throughput',
  'POST /_sim/groups/{id}/deploy',
  'POST /_sim/groups/{id}/commit',
  'GET|PUT /_sim/groups/{id}/config',
  'POST /_sim/groups/{id}/reset',
  'POST /_sim/state/reset',
  'GET|PUT /_sim/git',
  'GET /_sim/search/jobs',
  'POST /_sim/tokens',
  'POST /_sim/tokens/revoke',
  'GET|PUT /_sim/workspaces',
  'GET /_sim/ha',
  'POST /_sim/ha/failover',
  'PATCH /_sim/ha/hosts/{index}',
];

function parse<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw new AdminError(400, formatIssues(r.error, ''));
  return r.data;
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new AdminError(400, 'malformed percent-encoding in path');
  }
}

function drain(req: IncomingMessage): void {
  req.resume();
}

async function readJson(req: IncomingMessage, emptyIsObject = false): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > ADMIN_BODY_LIMIT) throw new AdminError(413, 'admin request body larger than 1 MB');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '' && emptyIsObject) return {};
  if (type !== 'application/json') {
    throw new AdminError(415, 'admin requests with a body need Content-Type: application/json');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AdminError(400, 'request body is not valid JSON');
  }
}
