/**
 * Route templates the simulator answers, used as the `route` key of its statistics and in the `routes`
 * filters of faults. The names match the exporter's `ENDPOINTS` where both exist. Control-plane templates are
 * relative to /api/v1 and carry their context: none (global), `/m/{group}`, `/w/{nodeId}`, `/m/default_search`.
 */
export const ROUTES = [
  // global context
  '/health',
  '/auth/login',
  '/products/{product}/workers',
  '/products/{product}/workers/{id}',
  '/master/workers',
  '/master/workers/{id}',
  '/products/{product}/groups',
  '/products/{product}/groups/{id}',
  '/products/{product}/groups/{id}/configVersion',
  '/master/groups',
  '/system/settings/git-settings',
  '/system/licenses',
  '/system/licenses/usage',
  '/system/info',
  '/system/messages',
  '/system/metrics/query',
  '/system/metrics/enum',
  '/pack/{id}',
  '/packs',
  '/packs/{id}',
  // host context
  '/w/{nodeId}/health',
  '/w/{nodeId}/edge/metadata',
  // group context
  '/m/{group}/version',
  '/m/{group}/version/info',
  '/m/{group}/pack/{id}',
  '/m/{group}/packs',
  '/m/{group}/packs/{id}',
  '/m/{group}/p/{pack}/pipelines',
  '/m/{group}/p/{pack}/pipelines/{id}',
  '/m/{group}/system/outputs',
  '/m/{group}/system/outputs/{id}',
  '/m/{group}/system/status/outputs',
  '/m/{group}/system/status/inputs',
  // search context
  '/m/default_search/search/jobs',
  '/m/default_search/search/jobs/{id}',
  '/m/default_search/search/jobs/{id}/status',
  '/m/default_search/search/jobs/{id}/results',
  '/m/default_search/search/jobs/{id}/cancel',
  // outside /api/v1
  '/oauth/token',
  '/v1/organizations/{organizationId}/workspaces',
  '/v1/organizations/{organizationId}/workspaces/{workspaceId}',
] as const;

/** One route template. */
export type Route = (typeof ROUTES)[number];

/** Statistics key of requests that matched no route. */
export const UNMATCHED = '(unmatched)';

const GET = ['GET', 'HEAD'] as const;
const POST = ['POST'] as const;
const LIST_CREATE = ['GET', 'HEAD', 'POST'] as const;
const READ_UPDATE = ['GET', 'HEAD', 'PATCH'] as const;
const ITEM = ['GET', 'HEAD', 'PATCH', 'DELETE'] as const;

/** Methods each route answers (HEAD wherever GET); anything else gets 405 with this list in `Allow`. */
export const ROUTE_METHODS: Readonly<Record<Route, readonly string[]>> = {
  '/health': GET,
  '/auth/login': POST,
  '/products/{product}/workers': GET,
  '/products/{product}/workers/{id}': GET,
  '/master/workers': GET,
  '/master/workers/{id}': GET,
  '/products/{product}/groups': GET,
  '/products/{product}/groups/{id}': GET,
  '/products/{product}/groups/{id}/configVersion': GET,
  '/master/groups': GET,
  '/system/settings/git-settings': READ_UPDATE,
  '/system/licenses': GET,
  '/system/licenses/usage': GET,
  '/system/info': GET,
  '/system/messages': GET,
  '/system/metrics/query': POST,
  '/system/metrics/enum': POST,
  '/pack/{id}': GET,
  '/packs': LIST_CREATE,
  '/packs/{id}': ITEM,
  '/w/{nodeId}/health': GET,
  '/w/{nodeId}/edge/metadata': GET,
  '/m/{group}/version': GET,
  '/m/{group}/version/info': GET,
  '/m/{group}/pack/{id}': GET,
  '/m/{group}/packs': LIST_CREATE,
  '/m/{group}/packs/{id}': ITEM,
  '/m/{group}/p/{pack}/pipelines': GET,
  '/m/{group}/p/{pack}/pipelines/{id}': GET,
  '/m/{group}/system/outputs': LIST_CREATE,
  '/m/{group}/system/outputs/{id}': ITEM,
  '/m/{group}/system/status/outputs': GET,
  '/m/{group}/system/status/inputs': GET,
  '/m/default_search/search/jobs': LIST_CREATE,
  '/m/default_search/search/jobs/{id}': ITEM,
  '/m/default_search/search/jobs/{id}/status': GET,
  '/m/default_search/search/jobs/{id}/results': GET,
  '/m/default_search/search/jobs/{id}/cancel': POST,
  '/oauth/token': POST,
  '/v1/organizations/{organizationId}/workspaces': LIST_CREATE,
  '/v1/organizations/{organizationId}/workspaces/{workspaceId}': ITEM,
};

/** Routes that arrived with 4.17 (older leaders answer 404). */
const SINCE_4_17: ReadonlySet<Route> = new Set(['/products/{product}/workers', '/products/{product}/workers/{id}']);

/** Routes under /api/v1 (the control plane). The OAuth and management-plane routes live outside it. */
export const CONTROL_PLANE_ROUTES: ReadonlySet<Route> = new Set(
  ROUTES.filter((r) => r !== '/oauth/token' && !r.startsWith('/v1/')),
);

/** Where a request landed after routing. */
export type RouteMatch =
  | { kind: 'route'; route: Route; methods: readonly string[]; params: readonly string[] }
  | { kind: 'admin'; rest: readonly string[] }
  | { kind: 'not-found' }
  | { kind: 'bad-path' };

interface Compiled {
  route: Route;
  /** Literal segments, or undefined where the template has a parameter. */
  segments: (string | undefined)[];
}

/** Templates by number of path segments (after /api/v1 for control-plane routes), most literal first. */
const BY_LENGTH = new Map<string, Compiled[]>();
for (const route of ROUTES) {
  const control = CONTROL_PLANE_ROUTES.has(route);
  const segments = route
    .split('/')
    .slice(1)
    .map((s) => (s.startsWith('{') ? undefined : s));
  const key = `${control ? 'api' : 'root'}:${segments.length}`;
  const list = BY_LENGTH.get(key) ?? [];
  list.push({ route, segments });
  // A literal segment wins over a parameter in the same place (/m/default_search/… before /m/{group}/…).
  list.sort((a, b) => literalWeight(b) - literalWeight(a));
  BY_LENGTH.set(key, list);
}

function literalWeight(c: Compiled): number {
  return c.segments.filter((s) => s !== undefined).length;
}

/**
 * Matches a raw request path (no query). Dynamic segments are percent-decoded one segment at a time,
 * so an id containing `/` must arrive as `%2F`, and `..` as a segment is an id, not a step up.
 * `legacyOnly` (leaders before 4.17) hides the /products/{product}/workers routes.
 */
export function matchRoute(pathname: string, legacyOnly: boolean): RouteMatch {
  const seg = pathname.split('/');
  // A single trailing slash is tolerated, as Express does by default.
  if (seg.length > 2 && seg[seg.length - 1] === '') seg.pop();
  if (seg[0] !== '') return { kind: 'not-found' };
  if (seg[1] === '_sim') return { kind: 'admin', rest: seg.slice(2) };
  const api = seg[1] === 'api' && seg[2] === 'v1';
  const rest = api ? seg.slice(3) : seg.slice(1);
  const candidates = BY_LENGTH.get(`${api ? 'api' : 'root'}:${rest.length}`);
  if (!candidates) return { kind: 'not-found' };
  for (const c of candidates) {
    if (legacyOnly && SINCE_4_17.has(c.route)) continue;
    if (!c.segments.every((lit, i) => lit === undefined || lit === rest[i])) continue;
    const params: string[] = [];
    for (let i = 0; i < c.segments.length; i++) {
      if (c.segments[i] !== undefined) continue;
      const p = rest[i];
      if (!p) return { kind: 'not-found' };
      try {
        params.push(p.includes('%') ? decodeURIComponent(p) : p);
      } catch {
        return { kind: 'bad-path' };
      }
    }
    return { kind: 'route', route: c.route, methods: ROUTE_METHODS[c.route], params };
  }
  return { kind: 'not-found' };
}
