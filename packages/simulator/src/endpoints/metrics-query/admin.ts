import { AdminError, readJson } from '../../core/admin.js';
import { ofGroup } from '../../core/admin-hooks.js';
import { flowTruth } from './truth.js';

/**
 * GET /_sim/groups/{id}/throughput: what the metrics store holds of the group over `[earliest, latest)` (epoch s or
 * ms; the last minute by default); POST adds a throughput window for the group (from now unless it has a `start`).
 */
export const getThroughput = ofGroup((deps, _req, id, search) => {
  const q = new URLSearchParams(search);
  const now = deps.clock.now();
  const time = (k: string, def: number): number => {
    const v = q.get(k);
    const n = v === null ? def : Number(v);
    if (!Number.isFinite(n)) throw new AdminError(400, `${k} must be epoch seconds or ms`);
    return n < 1e11 ? n * 1000 : n;
  };
  const latestMs = time('latest', now);
  const earliestMs = time('earliest', latestMs - 60_000);
  return [200, { group: id, earliestMs, latestMs, ...flowTruth(deps, id, earliestMs, latestMs) }];
});

export const addThroughput = ofGroup(async (deps, req, id) => {
  const body = await readJson(req);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AdminError(400, 'expected a throughput window (a JSON object)');
  }
  const faults = deps.addThroughputWindow({ ...body, group: id });
  return [200, { group: id, windows: faults.throughput.windows.filter((w) => w.group === id) }];
});
