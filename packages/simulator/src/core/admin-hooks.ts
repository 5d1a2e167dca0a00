import type { IncomingMessage } from 'node:http';
import * as z from 'zod';
import { TOKEN_ACCESS } from './auth.js';
import type { TokenAccess } from './auth.js';
import { AdminError, decodeSegment, drain, parse, readJson } from './admin.js';
import type { AdminDeps, AdminHandler } from './admin.js';
import { NODE_HEALTH_MODES, UPGRADE_STATES } from './fleet.js';
import type { SimFleet, SimNode } from './fleet.js';
import { HA_HOST_STATES, type HaHostState, type HaModel } from './ha.js';
import { duration } from './schema-util.js';
import { fleetTruth } from './fleet-truth.js';
import { groupSchema } from './scenario.js';
import { routeName } from './route-names.js';

/**
 * The admin hooks of the shared machinery: statistics, faults, nodes, the leader, groups (deploy, commit, config,
 * counts), the state reset, tokens, the HA hosts. An endpoint's own hooks are in its folder; src/routes.ts lists
 * them all.
 */

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
  /** true: its heartbeats stop (lastMsgTime freezes, still connected); false: they resume. */
  silent: z.boolean().optional(),
  criblVersion: z.string().min(1).optional(),
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
    ...(n.silent ? { silent: true } : {}),
  };
}

/** GET /_sim and GET /_sim/: the admin endpoints (set by src/routes.ts, which lists them). */
export function rootListing(list: () => readonly string[]): AdminHandler {
  return () => [200, { endpoints: list() }];
}

export const getStats: AdminHandler = (deps) => [200, deps.stats.snapshot()];

export const resetStats: AdminHandler = (deps, req) => {
  drain(req);
  deps.stats.reset();
  return [200, deps.stats.snapshot()];
};

export const getFaults: AdminHandler = (deps) => [200, deps.engine.faults];
export const putFaults: AdminHandler = async (deps, req) => [200, deps.patchFaults(await readJson(req), true)];
export const patchFaults: AdminHandler = async (deps, req) => [200, deps.patchFaults(await readJson(req))];

export const getNodes: AdminHandler = (deps, _req, { search }) => {
  const q = new URLSearchParams(search);
  const offset = Number(q.get('offset') ?? 0) || 0;
  const limit = q.has('limit') ? Number(q.get('limit')) : undefined;
  const all = deps.fleet.nodes();
  const items = all.slice(offset, limit === undefined ? undefined : offset + limit).map(nodeSummary);
  return [200, { count: items.length, totalCount: all.length, items }];
};

export const addNodes: AdminHandler = async ({ fleet }, req) => {
  const opts = parse(addNodeSchema, await readJson(req));
  if (opts.hostile) return [201, { items: fleet.addHostileNodes(opts.product).map(nodeSummary) }];
  const { count = 1, hostile: _h, ...nodeOpts } = opts;
  if (count > 1 && nodeOpts.id !== undefined) throw new AdminError(400, 'id cannot be combined with count > 1');
  const added: SimNode[] = [];
  for (let i = 0; i < count; i++) added.push(fleet.addNode(nodeOpts as Parameters<SimFleet['addNode']>[0]));
  return [201, { items: added.map(nodeSummary) }];
};

/** GET, DELETE and PATCH /_sim/nodes/{id}. */
export const node: AdminHandler = async ({ fleet }, req, at) => {
  const method = req.method ?? 'GET';
  const id = decodeSegment(at.id ?? '');
  const n = fleet.node(id);
  if (!n) throw new AdminError(404, `unknown node id ${JSON.stringify(id)}`);
  if (method === 'GET') return [200, { ...nodeSummary(n), entry: n.entry }];
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
  if (patch.silent !== undefined) fleet.setSilent(id, patch.silent ? n.lastMsgTime : null);
  if (patch.criblVersion !== undefined) fleet.setCriblVersion(id, patch.criblVersion);
  return [200, nodeSummary(fleet.node(id) as SimNode)];
};

/** GET /_sim/truth?silentAfter=MS: the fleet's truth now (core/fleet-truth.ts). */
export const getTruth: AdminHandler = (deps, _req, { search }) => {
  const raw = new URLSearchParams(search).get('silentAfter');
  const silentAfter = raw === null ? undefined : Number(raw);
  if (silentAfter !== undefined && !(Number.isInteger(silentAfter) && silentAfter >= 0)) {
    throw new AdminError(400, 'silentAfter must be a whole number of milliseconds');
  }
  return [200, fleetTruth(deps.fleet, deps.clock.now(), silentAfter)];
};

export const getLeader: AdminHandler = (deps) => [200, leaderSummary(deps)];

export const setLeader: AdminHandler = async (deps, req) => {
  const body = parse(leaderSchema, await readJson(req));
  if (body.state !== undefined) deps.fleet.setLeaderState(body.state);
  if (body.role !== undefined) deps.leaderRole = body.role;
  if (body.configVersions !== undefined) deps.fleet.setConfigVersionStyle(body.configVersions);
  return [200, leaderSummary(deps)];
};

export const getGroups: AdminHandler = ({ fleet }) => [
  200,
  { stream: fleet.groups('stream'), edge: fleet.groups('edge') },
];

/** A hook of /_sim/groups/{id}/…: 404 for an unknown group, else `handle` with the decoded id. */
export function ofGroup(
  handle: (
    deps: AdminDeps,
    req: IncomingMessage,
    id: string,
    search: string,
  ) => Promise<[number, unknown]> | [number, unknown],
): AdminHandler {
  return (deps, req, at) => {
    const id = decodeSegment(at.id ?? '');
    if (!deps.fleet.hasGroup(id)) throw new AdminError(404, `unknown group ${JSON.stringify(id)}`);
    return handle(deps, req, id, at.search);
  };
}

export const deployGroup = ofGroup(async ({ fleet }, req, id) => {
  const opts = parse(deploySchema, await readJson(req, true));
  const deployOpts: Parameters<SimFleet['deployGroup']>[1] = {};
  if (opts.message !== undefined) deployOpts.message = opts.message;
  if (opts.rollout !== undefined) deployOpts.rollout = opts.rollout;
  if (opts.commit !== undefined) deployOpts.commit = opts.commit;
  return [200, { group: id, configVersion: fleet.deployGroup(id, deployOpts) }];
});

export const commitGroup = ofGroup(async ({ fleet }, req, id) => {
  const opts = parse(commitSchema, await readJson(req, true));
  const hashes: string[] = [];
  const commitOpts = opts.message === undefined ? {} : { message: opts.message };
  for (let i = 0; i < (opts.count ?? 1); i++) hashes.push(fleet.commitGroup(id, commitOpts));
  return [200, { group: id, commits: hashes, undeployedCommits: fleet.undeployedCommits(id) }];
});

export const resetGroup = ofGroup((deps, req, id) => {
  drain(req);
  deps.config.reset(id);
  return [200, { group: id, reset: true }];
});

export const putGroupConfig = ofGroup(async (deps, req, id) => {
  const spec = parse(configSchema, await readJson(req));
  deps.config.setGroup(id, spec);
  return [200, groupConfig(deps, id)];
});

export const getGroupConfig = ofGroup((deps, _req, id) => [200, groupConfig(deps, id)]);

export const patchGroup = ofGroup(async ({ fleet }, req, id) => {
  const { incompatibleWorkerCount, localChanges } = parse(patchGroupSchema, await readJson(req));
  if (incompatibleWorkerCount !== undefined) fleet.setIncompatibleWorkerCount(id, incompatibleWorkerCount);
  if (localChanges !== undefined) fleet.setLocalChanges(id, localChanges);
  const group = [...fleet.groups('stream'), ...fleet.groups('edge')].find((g) => g.id === id);
  return [200, { ...group, localChanges: fleet.localChanges(id) }];
});

/** POST /_sim/state/reset: packs, destinations, git settings and search jobs as the simulator started. */
export const resetState: AdminHandler = (deps, req) => {
  drain(req);
  deps.config.reset();
  deps.search.reset();
  return [200, { reset: true }];
};

export const addToken: AdminHandler = async (deps, req) => {
  const { token, access, deny } = parse(addTokenSchema, await readJson(req));
  deps.tokens.add(token, access, 'api', deny);
  return [201, { added: true, access, deny }];
};

export const revokeTokens: AdminHandler = async (deps, req) => {
  const { token } = parse(revokeSchema, await readJson(req, true));
  if (token === undefined) return [200, { revoked: deps.tokens.revokeIssued() }];
  return [200, { revoked: deps.tokens.revoke(token) ? 1 : 0 }];
};

/** /_sim/ha and below. */
export const haHooks: AdminHandler = (deps, req, at) => haRoute(deps, req, req.method ?? 'GET', at.rest.slice(1));

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
