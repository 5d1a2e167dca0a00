import type { Env, Handler } from '../../core/env.js';
import { ok } from '../../core/http.js';
import { context } from '../../core/leader-info.js';
import type { SystemInfo } from './shapes.js';

/** GET /system/info: the answering node (the leader), its licence and bulletins, and the `vitals` faults. */

/** GET /system/info's item now. */
export function systemInfoItem(env: Env): SystemInfo {
  const c = context(env);
  const f = env.faults;
  const info = env.leaderInfo;
  return info.systemInfo(f.vitals, info.licenses(f.license, c), info.messages(f.messages, c), c);
}

/** GET /system/info: `{count:1, items:[SystemInfo]}`. */
export const systemInfo: Handler = (env) => {
  return ok({ count: 1, items: [systemInfoItem(env)] });
};
