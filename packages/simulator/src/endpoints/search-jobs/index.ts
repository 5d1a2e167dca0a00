import type { SearchJobRequest } from '@cribl-exporter/api/resources';
import type { Env, Request } from '../../core/env.js';
import { NDJSON_TYPE, drain, isObject, ok, parsePaging, readJsonBody } from '../../core/http.js';
import type { Reply } from '../../core/http.js';
import type { Route } from '../../routes.js';

const counted = (item: unknown): Reply => ok({ count: 1, items: [item] });

/** The create body (CreateSearchJobSchema, §19.3), or the reason it is invalid. */
function parseCreate(v: unknown): SearchJobRequest | string {
  if (!isObject(v)) return 'Request body must be a JSON object';
  if (typeof v.query !== 'string' || v.query.trim() === '') return 'query is required (a non-empty string)';
  const out: SearchJobRequest = { query: v.query };
  for (const k of ['earliest', 'latest'] as const) {
    const t = v[k];
    if (t === undefined) continue;
    if (typeof t !== 'string' && typeof t !== 'number') return `${k} must be a string or a number`;
    out[k] = t;
  }
  if (v.sampleRate !== undefined) {
    if (typeof v.sampleRate !== 'number' || !(v.sampleRate > 0 && v.sampleRate <= 1)) {
      return 'sampleRate must be a number in (0, 1]';
    }
    out.sampleRate = v.sampleRate;
  }
  if (v.isPrivate !== undefined) {
    if (typeof v.isPrivate !== 'boolean') return 'isPrivate must be a boolean';
    out.isPrivate = v.isPrivate;
  }
  return out;
}

/** The /m/default_search/search/jobs… routes. */
export async function searchJobs(env: Env, r: Request, route: Route): Promise<Reply> {
  const now = env.clock.now();
  const jobs = env.search;
  if (route === '/m/default_search/search/jobs') {
    if (r.method !== 'POST') {
      const items = jobs
        .ids()
        .reverse()
        .map((id) => jobs.job(id, now));
      return ok({ count: items.length, items });
    }
    const body = await readJsonBody(r.req);
    if (!body.ok) return env.fail('control', body.status, body.message);
    const request = parseCreate(body.value);
    if (typeof request === 'string') return env.fail('control', 400, request);
    const user = (r.token && env.tokens.subject(r.token)) ?? 'api';
    const id = jobs.create(request, user, now, env.faults.search);
    return counted(jobs.job(id, now, true));
  }
  const id = r.params[0] ?? '';
  if (!jobs.has(id)) {
    drain(r.req);
    return env.fail('control', 404, `Search job "${id}" not found`);
  }
  switch (route) {
    case '/m/default_search/search/jobs/{id}/status':
      return ok(jobs.status(id, now));
    case '/m/default_search/search/jobs/{id}/results': {
      const paging = parsePaging(r.query);
      if (typeof paging === 'string') return env.fail('control', 400, paging);
      return { status: 200, body: jobs.results(id, now, paging.offset, paging.limit) ?? '', type: NDJSON_TYPE };
    }
    case '/m/default_search/search/jobs/{id}/cancel':
      drain(r.req);
      jobs.cancel(id, now);
      return counted(jobs.job(id, now));
  }
  if (r.method === 'DELETE') {
    const job = jobs.job(id, now);
    jobs.delete(id);
    return counted(job);
  }
  if (r.method === 'PATCH') {
    const body = await readJsonBody(r.req);
    if (!body.ok) return env.fail('control', body.status, body.message);
    const v = body.value;
    if (!isObject(v)) return env.fail('control', 400, 'Request body must be a JSON object');
    const extra = Object.keys(v).filter((k) => k !== 'status' && k !== 'isPrivate');
    if (extra.length > 0) return env.fail('control', 400, 'Only status and isPrivate fields can be updated');
    if (v.status !== undefined && v.status !== 'canceled' && v.status !== 'completed') {
      return env.fail('control', 400, 'status can only be set to canceled or completed');
    }
    if (v.isPrivate !== undefined && typeof v.isPrivate !== 'boolean') {
      return env.fail('control', 400, 'isPrivate must be a boolean');
    }
    if (v.status === 'canceled') jobs.cancel(id, now);
    if (v.status === 'completed') jobs.complete(id, now);
    if (typeof v.isPrivate === 'boolean') jobs.setPrivate(id, v.isPrivate);
  }
  return counted(jobs.job(id, now));
}
