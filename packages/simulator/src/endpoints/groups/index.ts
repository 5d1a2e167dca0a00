import type { Product } from '@cribl-exporter/api/products';
import type { ConfigGroup } from '@cribl-exporter/api/shapes';
import { formatDuration } from '@cribl-exporter/api/duration';
import type { Env, Handler, Request } from '../../core/env.js';
import { activeAt } from '../../core/schedule.js';
import type { GroupWindow } from './faults.js';
import { ok, pageEnvelope, parsePaging } from '../../core/http.js';
import type { Reply } from '../../core/http.js';
import { badProduct, productScope } from '../../core/replies.js';

/**
 * The groups: /products/{product}/groups (paged from 4.17), /master/groups (`?product=`), a group by id and its
 * configVersion; group windows (a stuck deploy, local changes) and `maxWorkerAge` from the faults.
 */

/** 404 body of a group by id (spec 4.19). */
const GROUP_NOT_FOUND = 'Worker Group, Outpost Group, or Edge Fleet not found.';

export const productGroups: Handler = (app, r) => groups(app, r, r.params[0] ?? '', true);
export const masterGroups: Handler = (app, r) => groups(app, r, r.query.get('product') ?? 'all', false);
export const productGroup: Handler = (app, r) => group(app, r, false);
export const groupConfigVersion: Handler = (app, r) => group(app, r, true);

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
function groups(env: Env, r: Request, p: string, paged: boolean): Reply {
  const scope = p === 'all' ? 'all' : productScope(p);
  if (scope === undefined) return badProduct(env, p);
  const list = withGit(env, r, groupsOf(env, scope));
  // Group paging arrived with 4.17 (4.15.1 documents only `fields`).
  if (!paged || env.legacy) return ok({ count: list.length, items: list });
  const paging = parsePaging(r.query);
  if (typeof paging === 'string') return env.fail('control', 400, paging);
  return ok(pageEnvelope(list, paging));
}

/** GET /products/{product}/groups/{id} and …/configVersion. */
function group(env: Env, r: Request, configVersion: boolean): Reply {
  const [p = '', id = ''] = r.params;
  const scope = productScope(p);
  if (scope === undefined) return badProduct(env, p);
  const g = groupsOf(env, scope).find((x) => x.id === id);
  if (!g) return env.fail('control', 404, GROUP_NOT_FOUND);
  if (configVersion) return ok({ count: 1, items: [g.configVersion ?? ''] });
  return ok({ count: 1, items: withGit(env, r, [g]) });
}
