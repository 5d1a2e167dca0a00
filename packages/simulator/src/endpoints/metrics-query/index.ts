import type { Env, Handler, Request } from '../../core/env.js';
import { activeAt } from '../../core/schedule.js';
import { ok, readJsonBody } from '../../core/http.js';
import type { Reply } from '../../core/http.js';
import { answer, parseQuery } from './query.js';
import { flowGroups, flowInputs } from './truth.js';

/**
 * POST /system/metrics/query and /system/metrics/enum (global context only: `/m/{group}/system/metrics/*` is no
 * route, so it answers 404 as real leaders do), answered from the flow model (throughput.ts) and the `throughput`
 * faults; truth.ts is what a window adds up to, for tests.
 */

export const metricsQuery: Handler = (app, r) => query(app, r);
export const metricsEnum: Handler = (app, r) => enumerate(app, r);

/** POST /system/metrics/query. */
async function query(env: Env, r: Request): Promise<Reply> {
  const body = await readJsonBody(r.req);
  if (!body.ok) return env.fail('control', body.status, body.message);
  const q = parseQuery(body.value);
  if (typeof q === 'string') return env.fail('control', 400, q);
  const t = env.clock.now() - env.startedAt;
  if (env.faults.throughput.outages.some((o) => activeAt(o, t))) {
    return env.fail('control', 500, 'metrics store unavailable');
  }
  const inputs = flowInputs(env);
  return ok(answer(q, flowGroups(env), (g, b) => env.throughput.bucket(g, b, inputs)));
}

const METRICS: readonly [string, string][] = [
  ['total.in_events', 'counter'],
  ['total.in_bytes', 'counter'],
  ['total.out_events', 'counter'],
  ['total.out_bytes', 'counter'],
  ['total.dropped_events', 'counter'],
  ['blocked.outputs', 'counter'],
  ['backpressure.outputs', 'counter'],
  ['pq.queue_size', 'gauge'],
  ['system.free_mem', 'gauge'],
  ['system.load_avg', 'gauge'],
  ['system.max_worker_process_heartbeat_lag', 'gauge'],
];

/** POST /system/metrics/enum: the metric names (the 4.15.1 definition's `{count, items}`; the spec leaves it open). */
async function enumerate(env: Env, r: Request): Promise<Reply> {
  const body = await readJsonBody(r.req);
  if (!body.ok && body.status !== 400) return env.fail('control', body.status, body.message);
  const items = METRICS.map(([name, type]) => ({ name, type }));
  return ok({ count: items.length, items });
}
