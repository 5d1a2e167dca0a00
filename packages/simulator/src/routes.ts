/**
 * The route table: one line per route the simulated leader answers (its template, its methods, its handler in
 * endpoints/<name>/), as src/collectors/registry.ts is on the exporter's side, then one line per hook of the admin
 * endpoint (/_sim/…). The names match the exporter's `ENDPOINTS` where both exist. To add an endpoint: a folder in
 * endpoints/ and a line here (docs/simulator.md, "How to add an endpoint"); a test adds one of its own with
 * `registerEndpoint`.
 */
import { ADMIN_TABLE, admin } from './core/admin.js';
import * as core from './core/admin-hooks.js';
import { GET, ITEM, LIST_CREATE, POST, READ_UPDATE, ROUTE_TABLE, route } from './core/router.js';
import type { RouteLine } from './core/router.js';
import { getGit, putGit } from './endpoints/git-settings/admin.js';
import { addThroughput, getThroughput } from './endpoints/metrics-query/admin.js';
import { getSearchJobs } from './endpoints/search-jobs/admin.js';
import { getDataflow } from './endpoints/status/admin.js';
import { getWorkspaces, putWorkspaces } from './endpoints/workspaces/admin.js';
import { gitSettings } from './endpoints/git-settings/index.js';
import { groupConfigVersion, masterGroups, productGroup, productGroups } from './endpoints/groups/index.js';
import { leaderHealth } from './endpoints/leader-health/index.js';
import { licenseUsage, licenses } from './endpoints/licenses/index.js';
import { login } from './endpoints/login/index.js';
import { messages } from './endpoints/messages/index.js';
import { metricsEnum, metricsQuery } from './endpoints/metrics-query/index.js';
import { nodeHealth } from './endpoints/node-health/index.js';
import { nodeMetadata } from './endpoints/node-metadata/index.js';
import { oauthToken } from './endpoints/oauth-token/index.js';
import { destinationStatus, sourceStatus } from './endpoints/status/index.js';
import { groupOutput, groupOutputs } from './endpoints/outputs/index.js';
import { globalPack, globalPacks, groupPack, groupPacks } from './endpoints/packs/index.js';
import { packPipeline, packPipelines } from './endpoints/pipelines/index.js';
import {
  searchJob,
  searchJobCancel,
  searchJobResults,
  searchJobStatus,
  searchJobs,
} from './endpoints/search-jobs/index.js';
import { systemInfo } from './endpoints/system-info/index.js';
import { groupVersion, groupVersionInfo } from './endpoints/version/index.js';
import { masterWorker, masterWorkers, productWorker, productWorkers } from './endpoints/workers/index.js';
import { workspace, workspaceList } from './endpoints/workspaces/index.js';

const LINES = [
  // global context
  route('/health', GET, leaderHealth, { auth: false }),
  route('/auth/login', POST, login, { auth: false }),
  route('/products/{product}/workers', GET, productWorkers, { since: '4.17' }),
  route('/products/{product}/workers/{id}', GET, productWorker, { since: '4.17' }),
  route('/master/workers', GET, masterWorkers),
  route('/master/workers/{id}', GET, masterWorker),
  route('/products/{product}/groups', GET, productGroups),
  route('/products/{product}/groups/{id}', GET, productGroup),
  route('/products/{product}/groups/{id}/configVersion', GET, groupConfigVersion),
  route('/master/groups', GET, masterGroups),
  route('/system/settings/git-settings', READ_UPDATE, gitSettings),
  route('/system/licenses', GET, licenses),
  route('/system/licenses/usage', GET, licenseUsage),
  route('/system/info', GET, systemInfo),
  route('/system/messages', GET, messages),
  route('/system/metrics/query', POST, metricsQuery),
  route('/system/metrics/enum', POST, metricsEnum),
  route('/pack/{id}', GET, globalPack),
  route('/packs', LIST_CREATE, globalPacks),
  route('/packs/{id}', ITEM, globalPack),
  // host context
  route('/w/{nodeId}/health', GET, nodeHealth),
  route('/w/{nodeId}/edge/metadata', GET, nodeMetadata),
  // group context
  route('/m/{group}/version', GET, groupVersion),
  route('/m/{group}/version/info', GET, groupVersionInfo),
  route('/m/{group}/pack/{id}', GET, groupPack),
  route('/m/{group}/packs', LIST_CREATE, groupPacks),
  route('/m/{group}/packs/{id}', ITEM, groupPack),
  route('/m/{group}/p/{pack}/pipelines', GET, packPipelines),
  route('/m/{group}/p/{pack}/pipelines/{id}', GET, packPipeline),
  route('/m/{group}/system/outputs', LIST_CREATE, groupOutputs),
  route('/m/{group}/system/outputs/{id}', ITEM, groupOutput),
  route('/m/{group}/system/status/outputs', GET, destinationStatus),
  route('/m/{group}/system/status/inputs', GET, sourceStatus),
  // search context
  route('/m/default_search/search/jobs', LIST_CREATE, searchJobs),
  route('/m/default_search/search/jobs/{id}', ITEM, searchJob),
  route('/m/default_search/search/jobs/{id}/status', GET, searchJobStatus),
  route('/m/default_search/search/jobs/{id}/results', GET, searchJobResults),
  route('/m/default_search/search/jobs/{id}/cancel', POST, searchJobCancel),
  // outside /api/v1
  route('/oauth/token', POST, oauthToken, { plane: 'oauth', auth: false }),
  route('/v1/organizations/{organizationId}/workspaces', LIST_CREATE, workspaceList, { plane: 'mgmt' }),
  route('/v1/organizations/{organizationId}/workspaces/{workspaceId}', ITEM, workspace, { plane: 'mgmt' }),
] as const;

ROUTE_TABLE.add(...LINES);

ADMIN_TABLE.add(
  admin(
    'GET',
    '',
    core.rootListing(() => ADMIN_TABLE.listing()),
  ),
  admin(
    'GET',
    '/',
    core.rootListing(() => ADMIN_TABLE.listing()),
  ),
  admin('GET', 'stats', core.getStats),
  admin('POST', 'stats/reset', core.resetStats),
  admin('GET', 'faults', core.getFaults),
  admin('PUT', 'faults', core.putFaults),
  admin('PATCH', 'faults', core.patchFaults),
  admin('GET', 'nodes', core.getNodes),
  admin('POST', 'nodes', core.addNodes),
  admin('GET', 'nodes/{id}', core.node),
  admin('PATCH', 'nodes/{id}', core.node),
  admin('DELETE', 'nodes/{id}', core.node),
  admin('GET', 'leader', core.getLeader),
  admin('POST', 'leader', core.setLeader),
  admin('GET', 'groups', core.getGroups),
  admin('GET', 'truth', core.getTruth),
  admin('PATCH', 'groups/{id}', core.patchGroup),
  admin('GET', 'groups/{id}/dataflow', getDataflow),
  admin('GET', 'groups/{id}/throughput', getThroughput),
  admin('POST', 'groups/{id}/throughput', addThroughput),
  admin('POST', 'groups/{id}/deploy', core.deployGroup),
  admin('POST', 'groups/{id}/commit', core.commitGroup),
  admin('GET', 'groups/{id}/config', core.getGroupConfig),
  admin('PUT', 'groups/{id}/config', core.putGroupConfig),
  admin('POST', 'groups/{id}/reset', core.resetGroup),
  admin('POST', 'state/reset', core.resetState),
  admin('GET', 'git', getGit),
  admin('PUT', 'git', putGit),
  admin('GET', 'search', getSearchJobs, { docs: [] }),
  admin('GET', 'search/jobs', getSearchJobs),
  admin('POST', 'tokens', core.addToken),
  admin('POST', 'tokens/revoke', core.revokeTokens),
  admin('GET', 'workspaces', getWorkspaces),
  admin('PUT', 'workspaces', putWorkspaces),
  admin('*', 'ha', core.haHooks, {
    prefix: true,
    docs: ['GET /_sim/ha', 'POST /_sim/ha/failover', 'PATCH /_sim/ha/hosts/{index}'],
  }),
);

/** One route template of the simulator's own table. */
export type Route = (typeof LINES)[number]['route'];

/** The templates of the simulator's own routes (not those a test registers). */
export const ROUTES: readonly Route[] = LINES.map((l) => l.route);

/** Methods each of its own routes answers. */
export const ROUTE_METHODS: Readonly<Record<Route, readonly string[]>> = Object.fromEntries(
  LINES.map((l) => [l.route, l.methods]),
) as Record<Route, readonly string[]>;

/**
 * Adds routes to every simulator (started before or after): an endpoint that exists only in a test, with its
 * handler (`route(template, methods, handler, options)`); a template the table has already is an error.
 */
export function registerEndpoint(...lines: readonly RouteLine[]): void {
  ROUTE_TABLE.add(...lines);
}

/** Matches a raw request path (no query) against the table (see RouteTable.match). */
export function matchRoute(pathname: string, legacyOnly: boolean): ReturnType<typeof ROUTE_TABLE.match> {
  return ROUTE_TABLE.match(pathname, legacyOnly);
}
