/**
 * Route templates the simulator answers, used as the `route` key of its statistics and in the `routes`
 * filters of faults. The names match the exporter's `ENDPOINTS` where both exist.
 */
export const ROUTES = [
  '/health',
  '/auth/login',
  '/products/{product}/workers',
  '/master/workers',
  '/products/{product}/groups',
  '/master/groups',
  '/w/{nodeId}/health',
  '/w/{nodeId}/edge/metadata',
  '/m/{group}/version',
  '/oauth/token',
  '/v1/organizations/{organizationId}/workspaces',
] as const;

/** One route template. */
export type Route = (typeof ROUTES)[number];

/** Statistics key of requests that matched no route. */
export const UNMATCHED = '(unmatched)';

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

const GET = ['GET', 'HEAD'] as const;
const POST = ['POST'] as const;

/**
 * Matches a raw request path (no query). Dynamic segments are percent-decoded one segment at a time,
 * so an id containing `/` must arrive as `%2F`, and `..` as a segment is an id, not a step up.
 */
export function matchRoute(pathname: string, legacyOnly: boolean): RouteMatch {
  const seg = pathname.split('/');
  // A single trailing slash is tolerated, as Express does by default.
  if (seg.length > 2 && seg[seg.length - 1] === '') seg.pop();
  if (seg[0] !== '') return { kind: 'not-found' };
  const s1 = seg[1];
  if (s1 === '_sim') return { kind: 'admin', rest: seg.slice(2) };
  if (s1 === 'oauth' && seg[2] === 'token' && seg.length === 3) return route('/oauth/token', POST, []);
  if (s1 === 'v1' && seg[2] === 'organizations' && seg[4] === 'workspaces' && seg.length === 5) {
    return decoded('/v1/organizations/{organizationId}/workspaces', GET, [seg[3]]);
  }
  if (s1 !== 'api' || seg[2] !== 'v1') return { kind: 'not-found' };
  const r = seg.slice(3);
  const [a, b, c, d] = r;
  switch (r.length) {
    case 1:
      if (a === 'health') return route('/health', GET, []);
      break;
    case 2:
      if (a === 'auth' && b === 'login') return route('/auth/login', POST, []);
      if (a === 'master' && b === 'workers') return route('/master/workers', GET, []);
      if (a === 'master' && b === 'groups') return route('/master/groups', GET, []);
      break;
    case 3:
      if (a === 'products' && c === 'workers' && !legacyOnly) return decoded('/products/{product}/workers', GET, [b]);
      if (a === 'products' && c === 'groups') return decoded('/products/{product}/groups', GET, [b]);
      if (a === 'w' && c === 'health') return decoded('/w/{nodeId}/health', GET, [b]);
      if (a === 'm' && c === 'version') return decoded('/m/{group}/version', GET, [b]);
      break;
    case 4:
      if (a === 'w' && c === 'edge' && d === 'metadata') return decoded('/w/{nodeId}/edge/metadata', GET, [b]);
      break;
  }
  return { kind: 'not-found' };
}

function route(r: Route, methods: readonly string[], params: readonly string[]): RouteMatch {
  return { kind: 'route', route: r, methods, params };
}

function decoded(r: Route, methods: readonly string[], raw: readonly (string | undefined)[]): RouteMatch {
  const params: string[] = [];
  for (const p of raw) {
    if (!p) return { kind: 'not-found' };
    try {
      params.push(p.includes('%') ? decodeURIComponent(p) : p);
    } catch {
      return { kind: 'bad-path' };
    }
  }
  return route(r, methods, params);
}
