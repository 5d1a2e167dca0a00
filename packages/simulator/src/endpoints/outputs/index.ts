import type { Output } from '../../core/resources.js';
import type { Env, Handler, Request } from '../../core/env.js';
import { invalidOutput } from './shapes.js';
import type { Reply } from '../../core/http.js';
import { counted, jsonObject, list } from '../../core/replies.js';

/**
 * A group's destinations: GET and POST /m/{group}/system/outputs, GET, PATCH (complete replacement) and DELETE
 * (409 while referenced) /m/{group}/system/outputs/{id}; the required fields per type.
 */

export const groupOutputs: Handler = (app, r) => outputs(app, r, false);
export const groupOutput: Handler = (app, r) => outputs(app, r, true);

/** /m/{group}/system/outputs and /m/{group}/system/outputs/{id}. */
async function outputs(env: Env, r: Request, item: boolean): Promise<Reply> {
  const [group = '', id] = r.params;
  if (!env.config.has(group)) return env.fail('control', 404, `Group "${group}" not found`);
  if (!item) {
    if (r.method !== 'POST') {
      const type = r.query.get('type');
      const all = env.config.outputs(group) ?? [];
      return list(env, r, type === null ? all : all.filter((o) => o.type === type));
    }
    const parsed = await jsonObject(env, r);
    if (!parsed.ok) return parsed.reply;
    const body = parsed.body;
    const invalid = invalidOutput(body);
    if (invalid) return env.fail('control', 400, `Invalid destination: ${invalid}`);
    const created = body as Output;
    if (env.config.output(group, created.id)) {
      return env.fail('control', 409, `Destination with the specified ID already exists: "${created.id}"`);
    }
    env.config.putOutput(group, created);
    return counted(created);
  }
  const current = env.config.output(group, id ?? '');
  if (!current) return env.fail('control', 404, `Destination "${id ?? ''}" not found`);
  switch (r.method) {
    case 'PATCH': {
      const parsed = await jsonObject(env, r);
      if (!parsed.ok) return parsed.reply;
      const body = parsed.body;
      if (body.id !== undefined && body.id !== current.id) {
        return env.fail('control', 400, 'id in the body differs from the id in the path');
      }
      const { id: _sameId, ...fields } = body;
      const next = { id: current.id, ...fields };
      const invalid = invalidOutput(next);
      if (invalid) return env.fail('control', 400, `Invalid destination: ${invalid}`);
      // Complete replacement (rule 5): fields omitted from the body are removed.
      env.config.putOutput(group, next as Output);
      return counted(next);
    }
    case 'DELETE': {
      const refs = env.config.referencesTo(group, current.id);
      if (refs.length > 0) {
        return env.fail('control', 409, `Destination is referenced by another entity: ${refs.join(', ')}`);
      }
      env.config.deleteOutput(group, current.id);
      return counted(current);
    }
    default:
      return counted(current);
  }
}
