/**
 * docs/simulator.md's "Endpoints" tables, generated from the route table: a table per context, a row per route (or
 * per method, where its line describes each), in the table's order, each with the description beside its line
 * (`doc`). test/docs/simulator.test.ts checks the page against them (UPDATE_DOCS=1 regenerates it).
 */
import type { RouteLine } from './router.js';

/** The contexts of the page's sections: the spec's, and what lives outside /api/v1. */
export const ROUTE_CONTEXTS = ['global', 'host', 'group', 'search', 'outside'] as const;
export type RouteContext = (typeof ROUTE_CONTEXTS)[number];

/** The context a route lives in, from its template and plane. */
export function contextOf(line: Pick<RouteLine, 'route' | 'plane'>): RouteContext {
  if (line.plane !== 'control') return 'outside';
  if (line.route.startsWith('/m/default_search/')) return 'search';
  if (line.route.startsWith('/m/{group}/')) return 'group';
  if (line.route.startsWith('/w/{nodeId}/')) return 'host';
  return 'global';
}

/** The rows of one line: `| route | answers |`. A line without a description is an error (one to write). */
function rows(line: RouteLine): string[] {
  const methods = line.methods.filter((m) => m !== 'HEAD');
  const { doc } = line;
  if (doc === undefined) throw new Error(`the route table's line ${line.route} has no doc`);
  if (typeof doc === 'string') {
    // `GET`, `PATCH /system/settings/git-settings`
    return [`| \`${methods.join('`, `')} ${line.route}\` | ${doc} |`];
  }
  const missing = methods.filter((m) => doc[m] === undefined);
  if (missing.length > 0) throw new Error(`the route table's line ${line.route} has no doc for ${missing.join(', ')}`);
  return methods.map((m) => `| \`${m} ${line.route}\` | ${doc[m]} |`);
}

/** The table of one context's routes. */
export function endpointsTable(lines: readonly RouteLine[], context: RouteContext): string {
  const mine = lines.filter((l) => contextOf(l) === context);
  return ['| route | answers |', '|---|---|', ...mine.flatMap(rows)].join('\n');
}
