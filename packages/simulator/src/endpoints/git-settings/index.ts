import type { Env, Handler, Request } from '../../core/env.js';
import type { Reply } from '../../core/http.js';
import { counted, jsonObject } from '../../core/replies.js';

/**
 * GET and PATCH /system/settings/git-settings (global). Writes follow the spec's body rules: JSON only (415), 5 MB
 * (413), valid JSON (400); a PATCH body is the complete representation.
 */
export const gitSettings: Handler = (app, r) => settings(app, r);

async function settings(env: Env, r: Request): Promise<Reply> {
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
