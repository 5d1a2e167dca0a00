import type { InputOutputStatus } from './shapes.js';
import type { Env, Handler, Request } from '../../core/env.js';
import { renderStatus } from '../../core/dataflow.js';
import type { FlowKind } from '../../core/dataflow.js';
import { versionAtLeast } from '../../core/fleet-model.js';
import { ok, pageEnvelope, parsePaging } from '../../core/http.js';
import type { Reply } from '../../core/http.js';

/**
 * The status of a group's destinations and sources: GET /m/{group}/system/status/outputs and …/inputs, from
 * the flow model (core/dataflow.ts) and the `dataflow` faults; paged from 4.18.0, item `type` from 4.17.
 */

export const destinationStatus: Handler = (app, r) => status(app, r, 'output');
export const sourceStatus: Handler = (app, r) => status(app, r, 'input');

/** Status paging (`limit`/`offset`) arrived with 4.18.0; item `type` with 4.17. */
const PAGING_SINCE = [4, 18, 0] as const;
const TYPE_SINCE = [4, 17, 0] as const;

/** The status items of a group's destinations or sources as the API lists them now; undefined for unknown groups. */
export function statusItems(env: Env, group: string, kind: FlowKind, metrics = false): InputOutputStatus[] | undefined {
  const product = env.fleet.groupProduct(group);
  if (product === undefined) return undefined;
  const flow = env.dataflow.group(group, product);
  const now = env.clock.now();
  return renderStatus({
    kind,
    group,
    items: kind === 'output' ? flow.outputs : flow.inputs,
    processes: env.fleet.processes(group),
    behaviour: env.faults.dataflow,
    now,
    t: now - env.startedAt,
    metrics,
    legacy: !versionAtLeast(env.version, TYPE_SINCE),
  });
}

/** GET /m/{group}/system/status/outputs and …/inputs. */
function status(env: Env, r: Request, kind: FlowKind): Reply {
  const group = r.params[0] ?? '';
  const items = statusItems(env, group, kind, r.query.get('metrics') === 'true');
  if (!items) return env.fail('control', 404, `Group "${group}" not found`);
  const pages = versionAtLeast(env.version, PAGING_SINCE) && (r.query.has('limit') || r.query.has('offset'));
  if (!pages) return ok({ count: items.length, items });
  const paging = parsePaging(r.query);
  if (typeof paging === 'string') return env.fail('control', 400, paging);
  // Past the end: an empty page, which is what stops the SDK's iterator.
  if (paging.offset > 0 && paging.offset >= items.length) return ok({ count: 0, items: [] });
  return ok(pageEnvelope(items, paging));
}
