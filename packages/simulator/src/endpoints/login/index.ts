import { AUTH_FAILED, type AppEnv, type Handler, type Request } from '../../core/env.js';
import { isObject, mediaType, readBody } from '../../core/http.js';
import type { Reply } from '../../core/http.js';

/** POST /auth/login (on-prem): a JWT for a username and password; its own rate limit (`loginRateLimit`). */
export const login: Handler = (app, r, hooks) => post(app, r, hooks.retryAfter);

async function post(app: AppEnv, r: Request, retryAfter: (reply: Reply, waitMs: number) => void): Promise<Reply> {
  const wait = app.engine.loginLimit(`addr:${r.req.socket.remoteAddress ?? ''}`);
  if (wait !== undefined) {
    app.stats.fault('login-ratelimit');
    const reply = app.fail('control', 429, 'Too many login attempts, please try again later.');
    retryAfter(reply, wait);
    return reply;
  }
  if (mediaType(r.req) !== 'application/json') {
    return app.fail('control', 415, 'Unsupported Media Type: expected application/json');
  }
  const raw = await readBody(r.req);
  if (raw === undefined) return { ...app.fail('control', 413, 'Request body larger than 5 MB'), close: true };
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return app.fail('control', 400, 'Request body is not valid JSON');
  }
  const { username, password } = isObject(body) ? body : {};
  if (typeof username !== 'string' || typeof password !== 'string') {
    return app.fail('control', 400, 'username and password are required');
  }
  const user = app.users.find((u) => u.username === username && u.password === password);
  if (!user) return app.fail('control', 401, AUTH_FAILED);
  const access = user.access ?? (user.permitted === false ? 'none' : 'full');
  const { token } = app.tokens.issue(username, app.engine.faults.tokenTtl, access, user.deny);
  return { status: 200, body: JSON.stringify({ token, forcePasswordChange: false }), mutable: true };
}
