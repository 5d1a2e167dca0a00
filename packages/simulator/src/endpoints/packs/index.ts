import type { PackInfo } from '../../core/resources.js';
import type { Env, Handler, Request } from '../../core/env.js';
import type { Reply } from '../../core/http.js';
import { counted, jsonObject, list } from '../../core/replies.js';

/**
 * Packs, in the global context (group `default`: /packs, /packs/{id}, and the spec's /pack/{id}) and under
 * /m/{group}: list, install (POST), read, update (PATCH), uninstall (DELETE). Writes follow the spec's body rules.
 */

/** The group the global context's pack routes read: `{groupName}` is `default` on a single-group leader. */
export const GLOBAL_PACK_GROUP = 'default';

export const globalPacks: Handler = (app, r) => packs(app, r, true, false);
export const globalPack: Handler = (app, r) => packs(app, r, true, true);
export const groupPacks: Handler = (app, r) => packs(app, r, false, false);
export const groupPack: Handler = (app, r) => packs(app, r, false, true);

function withCounts(p: PackInfo, fields: ReadonlySet<string>): PackInfo {
  if (fields.has('inputs')) p.inputs = p.exports?.includes('inputs') ? 1 : 0;
  if (fields.has('outputs')) p.outputs = 0;
  if (fields.has('collectors')) p.collectors = 0;
  return p;
}

/** /packs, /packs/{id}, /pack/{id} in the global context (`global`) or under /m/{group}. */
async function packs(env: Env, r: Request, global: boolean, item: boolean): Promise<Reply> {
  const group = global ? GLOBAL_PACK_GROUP : (r.params[0] ?? '');
  const id = item ? (r.params[global ? 0 : 1] ?? '') : undefined;
  if (!env.config.has(group)) return env.fail('control', 404, `Group "${group}" not found`);
  const fields = new Set((r.query.get('with') ?? '').split(',').map((s) => s.trim()));
  if (id === undefined) {
    if (r.method === 'POST') return installPack(env, r, group);
    return list(
      env,
      r,
      (env.config.packs(group) ?? []).map((p) => withCounts(p, fields)),
    );
  }
  const pack = env.config.pack(group, id);
  if (!pack) return env.fail('control', 404, `Pack "${id}" not found`);
  if (r.method === 'DELETE') {
    env.config.deletePack(group, id);
    return counted({ id: pack.id, source: pack.source });
  }
  if (r.method === 'PATCH') {
    const parsed = await jsonObject(env, r);
    if (!parsed.ok) return parsed.reply;
    const body = parsed.body;
    if (typeof body.source !== 'string' || body.source === '') return env.fail('control', 400, 'source is required');
    pack.source = body.source;
    const version = /(\d+\.\d+\.\d+)(?:\.crbl)?$/.exec(body.source)?.[1];
    if (version) pack.version = version;
    if (typeof body.spec === 'string') pack.spec = body.spec;
    env.config.putPack(group, pack);
  }
  return counted(withCounts(pack, fields));
}

async function installPack(env: Env, r: Request, group: string): Promise<Reply> {
  const parsed = await jsonObject(env, r);
  if (!parsed.ok) return parsed.reply;
  const body = parsed.body;
  const source = typeof body.source === 'string' ? body.source : undefined;
  const fromSource = source && /([^/]+?)(?:-\d+\.\d+\.\d+)?(?:\.crbl)?$/.exec(source)?.[1];
  const id = typeof body.id === 'string' && body.id !== '' ? body.id : fromSource;
  if (!id) return env.fail('control', 400, 'id or source is required');
  if (env.config.pack(group, id)) return env.fail('control', 409, `Pack "${id}" already exists`);
  const info: PackInfo = {
    id,
    source: source ?? '',
    version: '0.0.1',
    displayName: id,
    author: '',
    description: '',
    exports: [],
  };
  env.config.putPack(group, info, []);
  return counted({ ...info, warnings: [] });
}
