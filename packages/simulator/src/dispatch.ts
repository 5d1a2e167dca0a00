import type { AppEnv, Request } from './core/env.js';
import { credentials } from './endpoints/login/index.js';
import * as config from './endpoints/packs/index.js';
import * as fleetRoutes from './endpoints/workers/index.js';
import * as signals from './endpoints/status/index.js';
import { metricsEnum, metricsQuery } from './endpoints/metrics-query/truth.js';
import { searchJobs } from './endpoints/search-jobs/index.js';
import type { Reply } from './core/http.js';
import type { Route } from './routes.js';

/** The request paths that go to a node through the leader. */
export type ProxiedRoute = '/w/{nodeId}/health' | '/w/{nodeId}/edge/metadata';

/** What dispatch needs from the pipeline beyond Env. */
export interface DispatchHooks {
  /** The node's own answer (the pipeline holds slow nodes on its clock). */
  proxied: (id: string) => Promise<Reply | undefined>;
  /** Adds a Retry-After and records it for the violation statistics. */
  retryAfter: (reply: Reply, waitMs: number) => void;
}

/** Calls the handler of a route (after routing, faults and authentication). */
export async function dispatch(
  app: AppEnv,
  route: Route,
  r: Request,
  hooks: DispatchHooks,
): Promise<Reply | undefined> {
  const [p0 = '', p1 = ''] = r.params;
  switch (route) {
    case '/health':
      return { status: 200, body: app.leaderHealthBody('healthy'), mutable: true };
    case '/auth/login':
    case '/oauth/token':
      return credentials(app, r, route, hooks.retryAfter);
    case '/v1/organizations/{organizationId}/workspaces':
      return app.workspaces.handle(app, r, 'list');
    case '/v1/organizations/{organizationId}/workspaces/{workspaceId}':
      return app.workspaces.handle(app, r, 'item');
    case '/products/{product}/workers':
      return fleetRoutes.workers(app, r, p0);
    case '/master/workers':
      return fleetRoutes.workers(app, r, 'all');
    case '/products/{product}/workers/{id}':
      return fleetRoutes.worker(app, p0, p1);
    case '/master/workers/{id}':
      return fleetRoutes.worker(app, 'all', p0);
    case '/products/{product}/groups':
      return fleetRoutes.groups(app, r, p0, true);
    case '/master/groups':
      return fleetRoutes.groups(app, r, r.query.get('product') ?? 'all', false);
    case '/products/{product}/groups/{id}':
    case '/products/{product}/groups/{id}/configVersion':
      return fleetRoutes.group(app, r, route.endsWith('/configVersion'));
    case '/m/{group}/version':
      return fleetRoutes.version(app, r);
    case '/m/{group}/version/info':
      return config.versionInfo(app, r);
    case '/w/{nodeId}/health':
    case '/w/{nodeId}/edge/metadata':
      return hooks.proxied(p0);
    case '/system/settings/git-settings':
      return config.gitSettings(app, r);
    case '/pack/{id}':
    case '/packs/{id}':
      return config.packs(app, r, true, true);
    case '/packs':
      return config.packs(app, r, true, false);
    case '/m/{group}/pack/{id}':
    case '/m/{group}/packs/{id}':
      return config.packs(app, r, false, true);
    case '/m/{group}/packs':
      return config.packs(app, r, false, false);
    case '/m/{group}/p/{pack}/pipelines':
      return config.pipelines(app, r, false);
    case '/m/{group}/p/{pack}/pipelines/{id}':
      return config.pipelines(app, r, true);
    case '/m/{group}/system/outputs':
      return config.outputs(app, r, false);
    case '/m/{group}/system/outputs/{id}':
      return config.outputs(app, r, true);
    case '/m/{group}/system/status/outputs':
      return signals.status(app, r, 'output');
    case '/m/{group}/system/status/inputs':
      return signals.status(app, r, 'input');
    case '/system/licenses':
      return signals.licenses(app);
    case '/system/licenses/usage':
      return signals.licenseUsage(app);
    case '/system/info':
      return signals.systemInfo(app);
    case '/system/messages':
      return signals.messages(app);
    case '/system/metrics/query':
      return metricsQuery(app, r);
    case '/system/metrics/enum':
      return metricsEnum(app, r);
    case '/m/default_search/search/jobs':
    case '/m/default_search/search/jobs/{id}':
    case '/m/default_search/search/jobs/{id}/status':
    case '/m/default_search/search/jobs/{id}/results':
    case '/m/default_search/search/jobs/{id}/cancel':
      return searchJobs(app, r, route);
  }
}
