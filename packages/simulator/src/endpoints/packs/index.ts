import type { Output, PackInfo } from '../../core/resources.js';
import type { Env, Request } from '../../core/env.js';
import { isObject, ok, pageEnvelope, parsePaging, readJsonBody } from '../../core/http.js';
import type { Reply } from '../../core/http.js';

/**
 * Handlers of the configuration routes: git settings (global), packs (global context = group `default`, and
 * `/m/{group}`), pipelines inside packs, and destinations (`/m/{group}/system/outputs`). Writes follow the spec's
 * body rules: JSON only (415), 5 MB (413), valid JSON with the required fields (400).
 */

/** The group the global context's pack routes read: `{groupName}` is `default` on a single-group leader (§1). */
export const GLOBAL_PACK_GROUP = 'default';

function list(env: Env, r: Request, all: readonly unknown[]): Reply {
  const paging = parsePaging(r.query);
  if (typeof paging === 'string') return env.fail('control', 400, paging);
  return ok(pageEnvelope(all, paging));
}

const counted = (item: unknown): Reply => ok({ count: 1, items: [item] });

/** Body of a write: the parsed JSON object, or the refusal to send. */
type Parsed = { ok: true; body: Record<string, unknown> } | { ok: false; reply: Reply };

async function jsonObject(env: Env, r: Request): Promise<Parsed> {
  const body = await readJsonBody(r.req);
  if (!body.ok) return { ok: false, reply: env.fail('control', body.status, body.message) };
  if (!isObject(body.value)) {
    return { ok: false, reply: env.fail('control', 400, 'Request body must be a JSON object') };
  }
  return { ok: true, body: body.value };
}

// ---- git settings ----

export async function gitSettings(env: Env, r: Request): Promise<Reply> {
  if (r.method === 'PATCH') {
    const parsed = await jsonObject(env, r);
    if (!parsed.ok) return parsed.reply;
    const body = parsed.body;
    if (body.gitOps !== undefined && !['none', 'pull', 'push'].includes(body.gitOps as string)) {
      return env.fail('control', 400, 'gitOps must be one of none, pull, push');
    }
    // Control-plane PATCH: the body is the complete representation (rule 5).
    env.config.setGit(body);
  }
  return counted(env.config.git());
}

/** GET /m/{group}/version/info: `{versioning, remote}`, remote false when the git settings have none (§5). */
export function versionInfo(env: Env, r: Request): Reply {
  const group = r.params[0] ?? '';
  if (!env.fleet.hasGroup(group)) return env.fail('control', 404, `Group "${group}" not found`);
  const remote = env.config.git().remote;
  return counted({ versioning: true, remote: remote ? remote : false });
}

// ---- packs and pipelines ----

function withCounts(p: PackInfo, fields: ReadonlySet<string>): PackInfo {
  if (fields.has('inputs')) p.inputs = p.exports?.includes('inputs') ? 1 : 0;
  if (fields.has('outputs')) p.outputs = 0;
  if (fields.has('collectors')) p.collectors = 0;
  return p;
}

/** /packs, /packs/{id}, /pack/{id} in the global context (`global`) or under /m/{group}. */
export async function packs(env: Env, r: Request, global: boolean, item: boolean): Promise<Reply> {
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

/** /m/{group}/p/{pack}/pipelines[/{id}]. */
export function pipelines(env: Env, r: Request, item: boolean): Reply {
  const [group = '', pack = '', id] = r.params;
  if (!env.config.has(group)) return env.fail('control', 404, `Group "${group}" not found`);
  const all = env.config.pipelines(group, pack);
  if (!all) return env.fail('control', 404, `Pack "${pack}" not found`);
  if (!item) return list(env, r, all);
  const p = all.find((x) => x.id === id);
  return p ? counted(p) : env.fail('control', 404, `Pipeline "${id ?? ''}" not found in pack "${pack}"`);
}

// ---- destinations ----

/** The reason a destination body is invalid, or undefined (required fields per type, §18.2). */
export function invalidOutput(o: Record<string, unknown>): string | undefined {
  if (typeof o.id !== 'string' || o.id === '') return 'id is required (a non-empty string)';
  if (typeof o.type !== 'string' || o.type === '') return 'type is required (a non-empty string)';
  const str = (k: string): boolean => typeof o[k] === 'string' && o[k] !== '';
  switch (o.type) {
    case 'webhook':
      if (str('url')) return /^https?:\/\//.test(o.url as string) ? undefined : 'url must start with http(s)://';
      if (Array.isArray(o.urls) && o.urls.length > 0 && o.urls.every((u) => isObject(u) && typeof u.url === 'string')) {
        return undefined;
      }
      return 'type webhook needs url or urls';
    case 'prometheus':
      return str('url') ? undefined : 'type prometheus needs url';
    case 's3':
      return str('bucket') && str('stagePath') ? undefined : 'type s3 needs bucket and stagePath';
    case 'default':
      return typeof o.defaultId === 'string' || o.defaultId === null ? undefined : 'type default needs defaultId';
  }
  return undefined;
}

/** /m/{group}/system/outputs and /m/{group}/system/outputs/{id}. */
export async function outputs(env: Env, r: Request, item: boolean): Promise<Reply> {
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
