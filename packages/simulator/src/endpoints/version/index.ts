import type { Env, Handler, Request } from '../../core/env.js';
import { ok, pageEnvelope, parsePaging } from '../../core/http.js';
import type { Reply } from '../../core/http.js';
import { counted } from '../../core/replies.js';

/** A group's commit history (GET /m/{group}/version) and its versioning (GET /m/{group}/version/info). */

export const groupVersion: Handler = (app, r) => version(app, r);
export const groupVersionInfo: Handler = (app, r) => versionInfo(app, r);

/** GET /m/{group}/version: the commit history, newest first; `count` commits read, then offset/limit. */
function version(env: Env, r: Request): Reply {
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

/** GET /m/{group}/version/info: `{versioning, remote}`, remote false when the git settings have none. */
function versionInfo(env: Env, r: Request): Reply {
  const group = r.params[0] ?? '';
  if (!env.fleet.hasGroup(group)) return env.fail('control', 404, `Group "${group}" not found`);
  const remote = env.config.git().remote;
  return counted({ versioning: true, remote: remote ? remote : false });
}
