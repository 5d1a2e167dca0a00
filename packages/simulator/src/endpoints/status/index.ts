import type { InputOutputStatus, SystemInfo } from './shapes.js';
import type { Env, Request } from '../../core/env.js';
import { renderStatus } from '../../core/dataflow.js';
import type { FlowKind } from '../../core/dataflow.js';
import { versionAtLeast } from '../../core/fleet-model.js';
import { ok, pageEnvelope, parsePaging } from '../../core/http.js';
import type { Reply } from '../../core/http.js';
import type { LeaderContext } from '../../core/leader-info.js';

/**
 * Handlers of the data-flow and leader routes (§25): destination/source status per group, licences and their usage,
 * the leader's system info and its bulletins.
 */

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
export function status(env: Env, r: Request, kind: FlowKind): Reply {
  const group = r.params[0] ?? '';
  const items = statusItems(env, group, kind, r.query.get('metrics') === 'true');
  if (!items) return env.fail('control', 404, `Group "${group}" not found`);
  const pages = versionAtLeast(env.version, PAGING_SINCE) && (r.query.has('limit') || r.query.has('offset'));
  if (!pages) return ok({ count: items.length, items });
  const paging = parsePaging(r.query);
  if (typeof paging === 'string') return env.fail('control', 400, paging);
  // Past the end: an empty page, which is what stops the SDK's iterator (§25.1).
  if (paging.offset > 0 && paging.offset >= items.length) return ok({ count: 0, items: [] });
  return ok(pageEnvelope(items, paging));
}

/** Now, and the time since the simulator started (for scheduled changes). */
export function context(env: Env): LeaderContext {
  const now = env.clock.now();
  return { now, t: now - env.startedAt };
}

/** A Cribl.Cloud leader: the licence routes answer 403 (or 404). */
function cloudRefusal(env: Env): Reply | undefined {
  const cloud = env.faults.license.cloud;
  if (cloud === 403) return env.fail('control', 403, 'Forbidden: licenses are managed by Cribl.Cloud');
  if (cloud === 404) return env.fail('control', 404, 'Not Found');
  return undefined;
}

/** GET /system/licenses. */
export function licenses(env: Env): Reply {
  const refused = cloudRefusal(env);
  if (refused) return refused;
  const items = env.leaderInfo.licenses(env.faults.license, context(env));
  return ok({ count: items.length, items });
}

/** GET /system/licenses/usage. */
export function licenseUsage(env: Env): Reply {
  const refused = cloudRefusal(env);
  if (refused) return refused;
  const items = env.leaderInfo.usage(env.faults.license, context(env));
  return ok({ count: items.length, items });
}

/** GET /system/info's item now. */
export function systemInfoItem(env: Env): SystemInfo {
  const c = context(env);
  const f = env.faults;
  const info = env.leaderInfo;
  return info.systemInfo(f.vitals, info.licenses(f.license, c), info.messages(f.messages, c), c);
}

/** GET /system/info: `{count:1, items:[SystemInfo]}`. */
export function systemInfo(env: Env): Reply {
  return ok({ count: 1, items: [systemInfoItem(env)] });
}

/** GET /system/messages. */
export function messages(env: Env): Reply {
  const items = env.leaderInfo.messages(env.faults.messages, context(env));
  return ok({ count: items.length, items });
}
