import type { SearchJobRequest } from '@cribl-exporter/api/resources';
import type { Env, Handler, Request } from '../../core/env.js';
import { NDJSON_TYPE, drain, isObject, ok, parsePaging, readJsonBody } from '../../core/http.js';
import type { Reply } from '../../core/http.js';
import { counted } from '../../core/replies.js';

/** The create body (CreateSearchJobSchema), or the reason it is invalid. */
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

/**
 * Search jobs in the search context (/m/default_search/search/jobs…): create and list, read, update (PATCH status or
 * isPrivate) and delete one, its status, its NDJSON results, cancel; timings and outcomes from the `search` faults.
 */

/** GET (newest first) and POST /m/default_search/search/jobs. */
export const searchJobs: Handler = async (env, r) => {
  const now = env.clock.now();
  const jobs = env.search;
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
};

/** A handler of one job's routes: its id when the job exists, else 404 (the body unread). */
function ofJob(handle: (env: Env, r: Request, id: string, now: number) => Reply | Promise<Reply>): Handler {
  return (env, r) => {
    const now = env.clock.now();
    const id = r.params[0] ?? '';
    if (!env.search.has(id)) {
      drain(r.req);
      return env.fail('control', 404, `Search job "${id}" not found`);
    }
    return handle(env, r, id, now);
  };
}

/** GET /m/default_search/search/jobs/{id}/status. */
export const searchJobStatus = ofJob((env, _r, id, now) => ok(env.search.status(id, now)));

/** GET /m/default_search/search/jobs/{id}/results: NDJSON, a header line then the events of a page. */
export const searchJobResults = ofJob((env, r, id, now) => {
  const paging = parsePaging(r.query);
  if (typeof paging === 'string') return env.fail('control', 400, paging);
  return { status: 200, body: env.search.results(id, now, paging.offset, paging.limit) ?? '', type: NDJSON_TYPE };
});

/** POST /m/default_search/search/jobs/{id}/cancel. */
export const searchJobCancel = ofJob((env, r, id, now) => {
  drain(r.req);
  env.search.cancel(id, now);
  return counted(env.search.job(id, now));
});

/** GET, PATCH and DELETE /m/default_search/search/jobs/{id}. */
export const searchJob = ofJob(async (env, r, id, now) => {
  const jobs = env.search;
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
});
