import type { Handler } from '../../core/env.js';
import { ok } from '../../core/http.js';
import { context } from '../../core/leader-info.js';

/** GET /system/messages. */
export const messages: Handler = (env) => {
  const items = env.leaderInfo.messages(env.faults.messages, context(env));
  return ok({ count: items.length, items });
};
