import type { Env, Handler, Request } from '../../core/env.js';
import type { Reply } from '../../core/http.js';
import { counted, list } from '../../core/replies.js';

export const packPipelines: Handler = (app, r) => pipelines(app, r, false);
export const packPipeline: Handler = (app, r) => pipelines(app, r, true);

/** /m/{group}/p/{pack}/pipelines[/{id}]. */
function pipelines(env: Env, r: Request, item: boolean): Reply {
  const [group = '', pack = '', id] = r.params;
  if (!env.config.has(group)) return env.fail('control', 404, `Group "${group}" not found`);
  const all = env.config.pipelines(group, pack);
  if (!all) return env.fail('control', 404, `Pack "${pack}" not found`);
  if (!item) return list(env, r, all);
  const p = all.find((x) => x.id === id);
  return p ? counted(p) : env.fail('control', 404, `Pipeline "${id ?? ''}" not found in pack "${pack}"`);
}
