import { AUTH_FAILED, type AppEnv, type Request } from '../../core/env.js';
import { isObject, mediaType, readBody } from '../../core/http.js';
import type { Reply } from '../../core/http.js';

/** POST /auth/login (on-prem) and POST /oauth/token (Cribl.Cloud client credentials). */
export async function credentials(
  app: AppEnv,
  r: Request,
  route: '/auth/login' | '/oauth/token',
  retryAfter: (reply: Reply, waitMs: number) => void,
): Promise<Reply> {
  return route === '/auth/login' ? login(app, r, retryAfter) : oauth(app, r);
}

async function login(app: AppEnv, r: Request, retryAfter: (reply: Reply, waitMs: number) => void): Promise<Reply> {
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

function oauthError(status: number, error: string, description: string): Reply {
  return { status, body: JSON.stringify({ error, error_description: description }) };
}

async function oauth(app: AppEnv, r: Request): Promise<Reply> {
  const type = mediaType(r.req);
  if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded') {
    const expected = 'Content-Type must be application/json or application/x-www-form-urlencoded';
    return oauthError(415, 'invalid_request', expected);
  }
  const raw = await readBody(r.req);
  if (raw === undefined) return { ...oauthError(413, 'invalid_request', 'Request body larger than 5 MB'), close: true };
  let fields: Record<string, unknown>;
  try {
    const parsed: unknown =
      type === 'application/json' ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw));
    if (!isObject(parsed)) throw new Error('not an object');
    fields = parsed;
  } catch {
    return oauthError(400, 'invalid_request', 'Malformed request body');
  }
  if (fields.grant_type !== 'client_credentials') {
    return oauthError(400, 'unsupported_grant_type', 'Only client_credentials is supported');
  }
  const client = app.clients.find((c) => c.clientId === fields.client_id && c.clientSecret === fields.client_secret);
  if (!client) return oauthError(401, 'access_denied', 'Unauthorized');
  const ttl = app.engine.faults.oauthTokenTtl;
  const { token } = app.tokens.issue(client.clientId, ttl, client.access ?? 'full', client.deny);
  const body = { access_token: token, token_type: 'Bearer', expires_in: Math.floor(ttl / 1000) };
  return { status: 200, body: JSON.stringify(body), mutable: true };
}
