import type { Env, Handler } from '../../core/env.js';
import { ok } from '../../core/http.js';
import type { Reply } from '../../core/http.js';
import { context } from '../../core/leader-info.js';

/**
 * GET /system/licenses and /system/licenses/usage (on-prem; a Cribl.Cloud leader answers 403 or 404: the `license`
 * faults' `cloud`), from the leader's licences (core/leader-info.ts) and the `license` faults.
 */

/** A Cribl.Cloud leader: the licence routes answer 403 (or 404). */
function cloudRefusal(env: Env): Reply | undefined {
  const cloud = env.faults.license.cloud;
  if (cloud === 403) return env.fail('control', 403, 'Forbidden: licenses are managed by Cribl.Cloud');
  if (cloud === 404) return env.fail('control', 404, 'Not Found');
  return undefined;
}

/** GET /system/licenses. */
export const licenses: Handler = (env) => {
  const refused = cloudRefusal(env);
  if (refused) return refused;
  const items = env.leaderInfo.licenses(env.faults.license, context(env));
  return ok({ count: items.length, items });
};

/** GET /system/licenses/usage. */
export const licenseUsage: Handler = (env) => {
  const refused = cloudRefusal(env);
  if (refused) return refused;
  const items = env.leaderInfo.usage(env.faults.license, context(env));
  return ok({ count: items.length, items });
};
