import type { Handler } from './env.js';
import { noteRoute } from './route-names.js';
import type { Plane } from './route-names.js';

/**
 * The route table's machinery: what one line of it is (`route(…)`), and the table the pipeline routes by. The lines
 * themselves are in src/routes.ts, one per route template; `registerEndpoint` adds more at run time (a test's own
 * endpoint). Control-plane templates are relative to /api/v1 and carry their context: none (global), `/m/{group}`,
 * `/w/{nodeId}`, `/m/default_search`; the OAuth and management-plane ones live outside /api/v1.
 */

/** One line of the route table. */
export interface RouteLine<T extends string = string> {
  /** The template: the `route` key of the statistics, and what the `routes` filters of faults name. */
  readonly route: T;
  /** Methods it answers (HEAD wherever GET); anything else gets 405 with this list in `Allow`. */
  readonly methods: readonly string[];
  readonly handle: Handler;
  /** Which error body a failure gets; `control` routes live under /api/v1. */
  readonly plane: Plane;
  /** False: answered without a bearer token (the credential routes, /health). */
  readonly auth: boolean;
  /** `4.17`: leaders before 4.17 answer 404 (legacy leaders). */
  readonly since?: '4.17';
  /** What it answers, for docs/simulator.md's "Endpoints" (core/route-docs.ts). */
  readonly doc?: RouteDoc;
}

/** A route's description: one for all its methods, or one per method (HEAD goes with GET). */
export type RouteDoc = string | Readonly<Record<string, string>>;

/** What a line may set besides its template, methods and handler. */
export interface RouteOptions {
  plane?: Plane;
  auth?: false;
  since?: '4.17';
  doc?: RouteDoc;
}

/** A line of the route table. */
export function route<const T extends string>(
  template: T,
  methods: readonly string[],
  handle: Handler,
  opts: RouteOptions = {},
): RouteLine<T> {
  const line: RouteLine<T> = {
    route: template,
    methods,
    handle,
    plane: opts.plane ?? 'control',
    auth: opts.auth ?? true,
    ...(opts.since === undefined ? {} : { since: opts.since }),
    ...(opts.doc === undefined ? {} : { doc: opts.doc }),
  };
  return line;
}

export const GET = ['GET', 'HEAD'] as const;
export const POST = ['POST'] as const;
export const LIST_CREATE = ['GET', 'HEAD', 'POST'] as const;
export const READ_UPDATE = ['GET', 'HEAD', 'PATCH'] as const;
export const ITEM = ['GET', 'HEAD', 'PATCH', 'DELETE'] as const;

/** Statistics key of requests that matched no route. */
export const UNMATCHED = '(unmatched)';

/** Where a request landed after routing. */
export type RouteMatch =
  | { kind: 'route'; line: RouteLine; route: string; methods: readonly string[]; params: readonly string[] }
  | { kind: 'admin'; rest: readonly string[] }
  | { kind: 'not-found' }
  | { kind: 'bad-path' };

interface Compiled {
  line: RouteLine;
  /** Literal segments, or undefined where the template has a parameter. */
  segments: (string | undefined)[];
  weight: number;
}

/** The routes the simulator answers; one instance (`ROUTE_TABLE`), filled by src/routes.ts. */
export class RouteTable {
  readonly #lines = new Map<string, RouteLine>();
  /** Templates by number of path segments (after /api/v1 for control-plane routes), most literal first. */
  #byLength = new Map<string, Compiled[]>();

  /** Adds lines; a template already in the table is an error (two handlers for one route). */
  add(...lines: readonly RouteLine[]): void {
    for (const line of lines) {
      if (this.#lines.has(line.route)) throw new Error(`the route table already has ${line.route}`);
      if (!line.route.startsWith('/')) throw new Error(`a route template starts with "/": ${line.route}`);
      this.#lines.set(line.route, line);
      noteRoute(line.route, line.plane);
      const segments = line.route
        .split('/')
        .slice(1)
        .map((s) => (s.startsWith('{') ? undefined : s));
      const key = `${line.plane === 'control' ? 'api' : 'root'}:${segments.length}`;
      const list = this.#byLength.get(key) ?? [];
      list.push({ line, segments, weight: segments.filter((s) => s !== undefined).length });
      // A literal segment wins over a parameter in the same place (/m/default_search/… before /m/{group}/…).
      list.sort((a, b) => b.weight - a.weight);
      this.#byLength.set(key, list);
    }
  }

  has(route: string): boolean {
    return this.#lines.has(route);
  }

  get(route: string): RouteLine | undefined {
    return this.#lines.get(route);
  }

  /** Every template, in the order added. */
  routes(): string[] {
    return [...this.#lines.keys()];
  }

  /**
   * Matches a raw request path (no query). Dynamic segments are percent-decoded one segment at a time, so an id
   * containing `/` must arrive as `%2F`, and `..` as a segment is an id, not a step up. `legacyOnly` (leaders
   * before 4.17) hides the routes that arrived with 4.17.
   */
  match(pathname: string, legacyOnly: boolean): RouteMatch {
    const seg = pathname.split('/');
    // A single trailing slash is tolerated, as Express does by default.
    if (seg.length > 2 && seg[seg.length - 1] === '') seg.pop();
    if (seg[0] !== '') return { kind: 'not-found' };
    if (seg[1] === '_sim') return { kind: 'admin', rest: seg.slice(2) };
    const api = seg[1] === 'api' && seg[2] === 'v1';
    const rest = api ? seg.slice(3) : seg.slice(1);
    const candidates = this.#byLength.get(`${api ? 'api' : 'root'}:${rest.length}`);
    if (!candidates) return { kind: 'not-found' };
    for (const c of candidates) {
      if (legacyOnly && c.line.since === '4.17') continue;
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
      const { line } = c;
      return { kind: 'route', line, route: line.route, methods: line.methods, params };
    }
    return { kind: 'not-found' };
  }
}

/** The simulator's routes: src/routes.ts adds its lines, `registerEndpoint` more. */
export const ROUTE_TABLE = new RouteTable();
