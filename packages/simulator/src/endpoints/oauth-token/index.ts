import type { AppEnv, Handler, Request } from '../../core/env.js';
import { isObject, mediaType, readBody } from '../../core/http.js';
import type { Reply } from '../../core/http.js';

/** POST /oauth/token (Cribl.Cloud client credentials), outside /api/v1; OAuth's error bodies. */
export const oauthToken: Handler = (app, r) => oauth(app, r);

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
