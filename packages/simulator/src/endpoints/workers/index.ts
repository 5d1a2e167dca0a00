import { PRODUCTS } from '@cribl-exporter/api/products';
import type { Product } from '@cribl-exporter/api/products';
import type { ConfigGroup } from '@cribl-exporter/api/shapes';
import type { Env, Request } from '../../core/env.js';
import { formatDuration } from '@cribl-exporter/api/duration';
import { activeAt } from '../../core/faults-signals.js';
import type { GroupWindow } from '../../core/faults-signals.js';
import { ok, pageEnvelope, parsePaging } from '../../core/http.js';
import type { Reply } from '../../core/http.js';

/** Handlers of the fleet routes: node listings and by-id reads, groups, config versions, commit history. */

/** 404 body of a group by id (spec 4.19). */
export const GROUP_NOT_FOUND = 'Worker Group, Outpost Group, or Edge Fleet not found.';

function product(p: string): Product | 'outpost' | undefined {
  if (p === 'outpost') return 'outpost';
  return (PRODUCTS as readonly string[]).includes(p) ? (p as Product) : undefined;
}

const badProduct = (env: Env, p: string): Reply =>
  env.fail('control', 400, `Invalid product "${p}": expected stream, edge or outpost`);

/** GET /products/{product}/workers ('all' = /master/workers). */
export function workers(env: Env, r: Request, p: string): Reply {
  const scope = p === 'all' ? 'all' : product(p);
  if (scope === undefined) return badProduct(env, p);
  const paging = parsePaging(r.query);
  if (typeof paging === 'string') return env.fail('control', 400, paging);
  const { offset, limit } = paging;
  const now = env.clock.now();
  const page =
    scope === 'outpost' ? { items: '', count: 0, total: 0 } : env.fleet.renderPage(scope, offset, limit, now);
  let body = `{"count":${page.count},"items":[${page.items}]`;
  // The old /master/workers envelope is only {count, items}.
  if (p !== 'all' && !env.legacy) {
    if (limit !== undefined) body += `,"offset":${offset},"limit":${limit},"totalCount":${page.total}`;
    else if (paging.offsetGiven) body += `,"offset":${offset}`;
  }
  return { status: 200, body: body + '}', mutable: true };
}

/** GET /products/{product}/workers/{id} ('all' = /master/workers/{id}): `{count:1, items:[entry]}`. */
export function worker(env: Env, p: string, id: string): Reply {
  const scope = p === 'all' ? 'all' : product(p);
  if (scope === undefined) return badProduct(env, p);
  const rec = env.fleet.lookup(id);
  if (!rec || (scope !== 'all' && rec.product !== scope)) return env.fail('control', 404, `Node "${id}" not found`);
  return { status: 200, body: `{"count":1,"items":[${env.fleet.entryJson(rec, env.clock.now())}]}`, mutable: true };
}

/** The group windows in force now, by group id (later entries win). */
function activeGroupWindows(env: Env): Map<string, GroupWindow> {
  const out = new Map<string, GroupWindow>();
  const windows = env.faults.groupWindows;
  if (windows.length === 0) return out;
  const t = env.clock.now() - env.startedAt;
  for (const w of windows) if (activeAt(w, t)) out.set(w.group, { ...out.get(w.group), ...w });
  return out;
}

function groupsOf(env: Env, scope: Product | 'outpost' | 'all'): ConfigGroup[] {
  const list =
    scope === 'all'
      ? [...env.fleet.groups('stream'), ...env.fleet.groups('edge')]
      : scope === 'outpost'
        ? []
        : [...env.fleet.groups(scope)];
  const windows = activeGroupWindows(env);
  const maxAge = env.faults.maxWorkerAge;
  if (windows.size === 0 && maxAge === null) return list;
  return list.map((g) => {
    const out: ConfigGroup & { maxWorkerAge?: string } = { ...g };
    const deploying = windows.get(g.id)?.deploying;
    // A stuck deploy: the leader keeps counting nodes as deploying.
    if (deploying !== undefined) out.deployingWorkerCount = deploying;
    if (maxAge !== null) out.maxWorkerAge = formatDuration(maxAge);
    return out;
  });
}

function withGit(env: Env, r: Request, groups: ConfigGroup[]): ConfigGroup[] {
  const requested = (r.query.get('fields') ?? '').split(',').map((f) => f.trim());
  const fields = new Set(requested.filter((f) => f.startsWith('git.')));
  if (fields.size === 0) return groups;
  const windows = activeGroupWindows(env);
  return groups.map((g) => {
    const changes = windows.get(g.id)?.localChanges ?? env.fleet.localChanges(g.id) ?? 0;
    const sent = changes === 0 && env.faults.cleanLocalChanges === 'omit' ? undefined : changes;
    return { ...g, git: env.fleet.git(g.id, fields, sent) };
  });
}

/** GET /products/{product}/groups ('all' or ?product= for /master/groups). */
export function groups(env: Env, r: Request, p: string, paged: boolean): Reply {
  const scope = p === 'all' ? 'all' : product(p);
  if (scope === undefined) return badProduct(env, p);
  const list = withGit(env, r, groupsOf(env, scope));
  // Group paging arrived with 4.17 (4.15.1 documents only `fields`).
  if (!paged || env.legacy) return ok({ count: list.length, items: list });
  const paging = parsePaging(r.query);
  if (typeof paging === 'string') return env.fail('control', 400, paging);
  return ok(pageEnvelope(list, paging));
}

/** GET /products/{product}/groups/{id} and …/configVersion. */
export function group(env: Env, r: Request, configVersion: boolean): Reply {
  const [p = '', id = ''] = r.params;
  const scope = product(p);
  if (scope === undefined) return badProduct(env, p);
  const g = groupsOf(env, scope).find((x) => x.id === id);
  if (!g) return env.fail('control', 404, GROUP_NOT_FOUND);
  if (configVersion) return ok({ count: 1, items: [g.configVersion ?? ''] });
  return ok({ count: 1, items: withGit(env, r, [g]) });
}

/** GET /m/{group}/version: the commit history, newest first; `count` commits read, then offset/limit. */
export function version(env: Env, r: Request): Reply {
  const id = r.params[0] ?? '';
  const commits = env.fleet.commits(id);
  if (!commits) return env.fail('control', 404, `Group "${id}" not found`);
  const countParam = r.query.get('count');
  if (countParam !== null && !/^\d+$/.test(countParam)) {
    return env.fail('control', 400, 'count must be a non-negative integer');
  }
  const considered = countParam === null ? commits : commits.slice(0, Number(countParam));
  const paging = parsePaging(r.query);
  if (typeof paging === 'string') return env.fail('control', 400, paging);
  return ok(pageEnvelope(considered, paging));
}
