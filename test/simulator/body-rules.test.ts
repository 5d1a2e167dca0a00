/**
 * The spec's body and method rules, one test each: 415, 413 (without reading the whole body), 400, 409, 405 with
 * Allow on every route, 401, 403 for read-only tokens, complete-replacement PATCH on the control plane, partial
 * PATCH on the management plane, and DELETE as Cribl's published API answers it.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTH_FAILED, ROUTES, ROUTE_METHODS, startSimulator } from '@cribl-exporter/simulator';
import type { Route, Simulator, SimulatorOptions } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { JSON_BODY, call } from './helpers.js';

const sims: Simulator[] = [];
afterEach(async () => {
  while (sims.length) await sims.pop()!.close();
});

async function sim(opts: SimulatorOptions = {}): Promise<{ s: Simulator; clock: FakeClock }> {
  const clock = new FakeClock();
  const s = await startSimulator({ nodes: 10, clock, ...opts });
  sims.push(s);
  return { s, clock };
}

const OUTPUTS = '/api/v1/m/default/system/outputs';
const ERROR = { status: 'error', message: expect.any(String) };
const post = (s: Simulator, body: unknown, headers: Record<string, string> = JSON_BODY) =>
  call(s.origin, OUTPUTS, {
    method: 'POST',
    token: s.token,
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** A concrete path for a route template. */
function pathOf(route: Route): string {
  const filled = route
    .replace('{product}', 'stream')
    .replace('{organizationId}', 'acme')
    .replace(/\{[a-zA-Z]+\}/g, 'x');
  return route.startsWith('/v1/') || route === '/oauth/token' ? filled : `/api/v1${filled}`;
}

/** Sends raw bytes and resolves with the response head once it arrives, and how many body bytes had been sent. */
function rawUpload(
  origin: string,
  head: string,
  chunk: Buffer,
  chunks: number,
  chunked: boolean,
): Promise<{ head: string; sent: number }> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let sent = 0;
    let answer = '';
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ head: answer, sent });
    };
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
      if (answer.includes('\r\n\r\n')) finish();
    });
    socket.on('error', (e) => (done ? undefined : reject(e)));
    socket.on('close', finish);
    socket.write(head);
    let i = 0;
    const pump = (): void => {
      while (i < chunks && !done) {
        i++;
        sent += chunk.length;
        const data = chunked
          ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
          : chunk;
        if (!socket.write(data)) {
          socket.once('drain', pump);
          return;
        }
      }
      // Everything planned is sent; the upload stays open (never finished): only an early answer ends the test.
    };
    pump();
  });
}

describe('body rules of POST /m/{group}/system/outputs', () => {
  it('415 when Content-Type is missing or not JSON; nothing is created', async () => {
    const { s } = await sim();
    const variants: Record<string, string>[] = [
      {},
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/x-www-form-urlencoded' },
    ];
    for (const headers of variants) {
      const r = await post(s, { id: 'x', type: 'devnull' }, headers);
      expect(r.status).toBe(415);
      expect(r.json).toEqual(ERROR);
    }
    expect(s.outputs('default')!.map((o) => o.id)).toEqual(['devnull', 'default']);
    expect(
      (await post(s, { id: 'x', type: 'devnull' }, { 'content-type': 'application/json; charset=utf-8' })).status,
    ).toBe(200);
  });

  it('413 for a declared body over 5 MB, answered before the client has sent it', async () => {
    const { s } = await sim();
    const total = 50 * 1024 * 1024;
    const head =
      `POST ${OUTPUTS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${total}\r\n\r\n`;
    const r = await rawUpload(s.origin, head, Buffer.alloc(64 * 1024, 'a'), 4, false);
    expect(r.head).toMatch(/^HTTP\/1\.1 413 /);
    expect(r.head.toLowerCase()).toContain('connection: close');
    expect(r.sent).toBeLessThan(total);
  });

  it('413 for a streamed (chunked) body once it passes 5 MB, without waiting for its end', async () => {
    const { s } = await sim();
    const head =
      `POST ${OUTPUTS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.token}\r\n` +
      `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    // 6 MB sent and the upload left open: the answer must come without the terminating chunk.
    const r = await rawUpload(s.origin, head, Buffer.alloc(1024 * 1024, ' '), 6, true);
    expect(r.head).toMatch(/^HTTP\/1\.1 413 /);
    expect(s.outputs('default')).toHaveLength(2);
  });

  it('400 with an error body: invalid JSON, not an object, no id or type, a type without its fields', async () => {
    const { s } = await sim();
    const cases: [unknown, RegExp][] = [
      ['{"id":', /not valid JSON/],
      ['[1,2]', /JSON object/],
      [{ type: 'devnull' }, /id is required/],
      [{ id: 'a' }, /type is required/],
      [{ id: 'a', type: 'webhook' }, /needs url or urls/],
      [{ id: 'a', type: 's3', bucket: 'b' }, /bucket and stagePath/],
    ];
    for (const [body, message] of cases) {
      const r = await post(s, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json).toEqual({ status: 'error', message: expect.stringMatching(message) });
    }
    expect(s.outputs('default')).toHaveLength(2);
  });

  it('409 for an existing id, leaving the existing destination as it was', async () => {
    const { s } = await sim();
    expect((await post(s, { id: 'hook', type: 'webhook', url: 'https://a.example' })).status).toBe(200);
    const r = await post(s, { id: 'hook', type: 'webhook', url: 'https://b.example' });
    expect(r.status).toBe(409);
    expect(r.json).toEqual({ status: 'error', message: expect.stringContaining('already exists') });
    expect(s.outputs('default')!.find((o) => o.id === 'hook')!.url).toBe('https://a.example');
  });

  it('state lives per group: a destination made in one group is not in another; it lasts until reset', async () => {
    const { s } = await sim();
    await post(s, { id: 'only-here', type: 'devnull' });
    expect(s.outputs('default')!.map((o) => o.id)).toContain('only-here');
    expect(s.outputs('prod-east')!.map((o) => o.id)).not.toContain('only-here');
    expect((await call(s.origin, '/api/v1/m/nope/system/outputs', { token: s.token })).status).toBe(404);
    expect((await call(s.origin, '/_sim/groups/default/reset', { method: 'POST' })).status).toBe(200);
    expect(s.outputs('default')!.map((o) => o.id)).toEqual(['devnull', 'default']);
  });
});

describe('405 with Allow', () => {
  it('answers a wrong method on every route with 405 and the methods the route takes', async () => {
    const { s } = await sim();
    for (const route of ROUTES) {
      const allowed = ROUTE_METHODS[route];
      const wrong = ['PUT', 'POST', 'DELETE', 'GET'].find((m) => !allowed.includes(m))!;
      const r = await call(s.origin, pathOf(route), { method: wrong, token: s.token });
      expect(r.status, `${wrong} ${route}`).toBe(405);
      expect(r.headers.allow, route).toBe(allowed.join(', '));
      expect(r.json, route).toEqual(
        route.startsWith('/v1/') ? { statusCode: 405, message: expect.any(String) } : expect.any(Object),
      );
    }
  });
});

describe('authentication and permissions', () => {
  it('401 with the leader message for a missing, wrong, revoked or expired token, on reads and writes', async () => {
    const { s, clock } = await sim();
    const login = await call(s.origin, '/api/v1/auth/login', {
      method: 'POST',
      headers: JSON_BODY,
      body: '{"username":"admin","password":"admin"}',
    });
    const jwt = String(login.json.token);
    expect((await call(s.origin, OUTPUTS, { token: jwt })).status).toBe(200);
    await clock.advance(3_600_000);
    for (const token of [undefined, 'wrong', jwt]) {
      for (const method of ['GET', 'POST']) {
        const r = await call(s.origin, OUTPUTS, {
          method,
          headers: JSON_BODY,
          body: '{"id":"a","type":"devnull"}',
          ...(token ? { token } : {}),
        });
        expect(r.status).toBe(401);
        expect(r.json).toEqual({ status: 'error', message: AUTH_FAILED });
      }
    }
  });

  it('a read-only token: 200 on every read, 403 on every POST, PATCH and DELETE (nothing changes)', async () => {
    const { s } = await sim();
    const t = s.readOnlyToken;
    for (const path of [
      '/api/v1/products/stream/workers',
      OUTPUTS,
      '/api/v1/m/default/packs',
      '/api/v1/system/settings/git-settings',
      '/api/v1/m/default_search/search/jobs',
    ]) {
      expect((await call(s.origin, path, { token: t })).status, path).toBe(200);
    }
    const writes: [string, string][] = [
      ['POST', OUTPUTS],
      ['PATCH', `${OUTPUTS}/devnull`],
      ['DELETE', `${OUTPUTS}/devnull`],
      ['POST', '/api/v1/m/default/packs'],
      ['DELETE', '/api/v1/m/default/packs/cribl-syslog-input'],
      ['PATCH', '/api/v1/system/settings/git-settings'],
      ['POST', '/api/v1/m/default_search/search/jobs'],
      ['PATCH', '/v1/organizations/acme/workspaces/main'],
    ];
    for (const [method, path] of writes) {
      const r = await call(s.origin, path, {
        method,
        token: t,
        headers: JSON_BODY,
        body: '{"id":"a","type":"devnull","query":"q","source":"s"}',
      });
      expect(r.status, `${method} ${path}`).toBe(403);
    }
    expect(s.outputs('default')).toHaveLength(2);
    expect(s.packs('default')!.map((p) => p.id)).toContain('cribl-syslog-input');
  });

  it('scenario tokens and users can be read-only; a static token is revoked and restored at run time', async () => {
    const { parseScenario } = await import('@cribl-exporter/simulator');
    const scenario = parseScenario(
      'tokens: [{ token: reader-token-1, access: read-only }]\n' +
        'users: [{ username: viewer, password: pw, access: read-only }]',
      'test.yaml',
    );
    const { s } = await sim({ scenario });
    expect((await call(s.origin, OUTPUTS, { token: 'reader-token-1' })).status).toBe(200);
    expect((await post({ ...s, token: 'reader-token-1' }, { id: 'a', type: 'devnull' })).status).toBe(403);
    const login = await call(s.origin, '/api/v1/auth/login', {
      method: 'POST',
      headers: JSON_BODY,
      body: '{"username":"viewer","password":"pw"}',
    });
    expect((await post({ ...s, token: String(login.json.token) }, { id: 'a', type: 'devnull' })).status).toBe(403);

    expect(s.revokeToken(s.token)).toBe(true);
    expect((await call(s.origin, OUTPUTS, { token: s.token })).status).toBe(401);
    s.addToken(s.token);
    expect((await call(s.origin, OUTPUTS, { token: s.token })).status).toBe(200);
    const viaAdmin = await call(s.origin, '/_sim/tokens/revoke', {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ token: s.token }),
    });
    expect(viaAdmin.json).toEqual({ revoked: 1 });
    expect((await call(s.origin, '/api/v1/products/stream/workers', { token: s.token })).status).toBe(401);
  });
});

describe('PATCH and DELETE semantics', () => {
  it('control plane PATCH replaces the whole destination: fields omitted from the body are removed', async () => {
    const { s } = await sim();
    await post(s, {
      id: 'hook',
      type: 'webhook',
      url: 'https://a.example',
      method: 'PUT',
      timeoutSec: 30,
      description: 'old',
    });
    const r = await call(s.origin, `${OUTPUTS}/hook`, {
      method: 'PATCH',
      token: s.token,
      headers: JSON_BODY,
      body: JSON.stringify({ type: 'webhook', url: 'https://b.example' }),
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ count: 1, items: [{ id: 'hook', type: 'webhook', url: 'https://b.example' }] });
    const got = await call(s.origin, `${OUTPUTS}/hook`, { token: s.token });
    expect(got.json.items[0]).toEqual({ id: 'hook', type: 'webhook', url: 'https://b.example' });
    const renamed = await call(s.origin, `${OUTPUTS}/hook`, {
      method: 'PATCH',
      token: s.token,
      headers: JSON_BODY,
      body: '{"id":"other","type":"devnull"}',
    });
    expect(renamed.status).toBe(400);
    expect(
      (
        await call(s.origin, `${OUTPUTS}/nope`, {
          method: 'PATCH',
          token: s.token,
          headers: JSON_BODY,
          body: '{"type":"devnull"}',
        })
      ).status,
    ).toBe(404);
    expect(
      (await call(s.origin, `${OUTPUTS}/hook`, { method: 'PATCH', token: s.token, body: '{"type":"devnull"}' })).status,
    ).toBe(415);
  });

  it('management plane PATCH is partial: only the fields sent change; 204 without a body', async () => {
    const ws = {
      workspaceId: 'main',
      region: 'us-west-2',
      leaderFQDN: 'main-acme.cribl.cloud',
      state: 'Active' as const,
      alias: 'Prod',
      description: 'old',
      tags: ['a'],
    };
    const { s } = await sim({ workspaces: [ws] });
    const path = '/v1/organizations/acme/workspaces/main';
    const r = await call(s.origin, path, {
      method: 'PATCH',
      token: s.token,
      headers: JSON_BODY,
      body: '{"description":"new"}',
    });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect((await call(s.origin, path, { token: s.token })).json).toEqual({ ...ws, description: 'new' });
    const bad = await call(s.origin, path, {
      method: 'PATCH',
      token: s.token,
      headers: JSON_BODY,
      body: '{"state":"Failed"}',
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ statusCode: 400, message: expect.any(String) });
  });

  it('control plane DELETE: 200 with the deleted object, then 404; 409 while referenced', async () => {
    const { s } = await sim();
    await post(s, { id: 'hook', type: 'webhook', url: 'https://a.example' });
    const del = await call(s.origin, `${OUTPUTS}/hook`, { method: 'DELETE', token: s.token });
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ count: 1, items: [{ id: 'hook', type: 'webhook', url: 'https://a.example' }] });
    expect((await call(s.origin, `${OUTPUTS}/hook`, { token: s.token })).status).toBe(404);
    expect((await call(s.origin, `${OUTPUTS}/hook`, { method: 'DELETE', token: s.token })).status).toBe(404);
    const referenced = await call(s.origin, `${OUTPUTS}/devnull`, { method: 'DELETE', token: s.token });
    expect(referenced.status).toBe(409);
    expect(referenced.json).toEqual({ status: 'error', message: expect.stringContaining('referenced') });
  });

  it('management plane DELETE answers 202; the workspace is Deprovisioning, then gone (404)', async () => {
    const { s, clock } = await sim({
      workspaces: [{ workspaceId: 'main', region: 'us-west-2', leaderFQDN: 'x', state: 'Active' }],
    });
    const path = '/v1/organizations/acme/workspaces/main';
    const del = await call(s.origin, path, { method: 'DELETE', token: s.token });
    expect(del.status).toBe(202);
    expect(del.text).toBe('');
    expect((await call(s.origin, path, { token: s.token })).json.state).toBe('Deprovisioning');
    await clock.advance(30_000);
    expect((await call(s.origin, path, { token: s.token })).status).toBe(404);
    expect(s.workspaces()).toEqual([]);
  });
});
