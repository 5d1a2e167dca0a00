import type { Env, Handler, Request } from '../../core/env.js';
import { parsePaging } from '../../core/http.js';
import type { Reply } from '../../core/http.js';
import { badProduct, productScope } from '../../core/replies.js';

/** The node listings and by-id reads: /products/{product}/workers (4.17+) and /master/workers (every version). */

export const productWorkers: Handler = (app, r) => workers(app, r, r.params[0] ?? '');
export const masterWorkers: Handler = (app, r) => workers(app, r, 'all');
export const productWorker: Handler = (app, r) => worker(app, r.params[0] ?? '', r.params[1] ?? '');
export const masterWorker: Handler = (app, r) => worker(app, 'all', r.params[0] ?? '');

/** GET /products/{product}/workers ('all' = /master/workers). */
function workers(env: Env, r: Request, p: string): Reply {
  const scope = p === 'all' ? 'all' : productScope(p);
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
function worker(env: Env, p: string, id: string): Reply {
  const scope = p === 'all' ? 'all' : productScope(p);
  if (scope === undefined) return badProduct(env, p);
  const rec = env.fleet.lookup(id);
  if (!rec || (scope !== 'all' && rec.product !== scope)) return env.fail('control', 404, `Node "${id}" not found`);
  return { status: 200, body: `{"count":1,"items":[${env.fleet.entryJson(rec, env.clock.now())}]}`, mutable: true };
}
