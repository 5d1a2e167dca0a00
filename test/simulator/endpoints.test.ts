import { afterEach, describe, expect, it } from 'vitest';
import { AUTH_FAILED, HOSTILE_IDS, MAX_REQUEST_BODY, startSimulator } from '@cribl-exporter/simulator';
import type { Simulator, SimulatorOptions } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { JSON_BODY, call, idsOf, itemsOf } from './helpers.js';
import { expectWorkerEntry } from './shapes.js';

const sims: Simulator[] = [];
afterEach(async () => {
  while (sims.length) await sims.pop()!.close();
});

async function sim(opts: SimulatorOptions = {}): Promise<{ s: Simulator; clock: FakeClock }> {
  const clock = new FakeClock();
  const s = await startSimulator({ nodes: 40, clock, ...opts });
  sims.push(s);
  return { s, clock };
}

const api = (path: string): string => `/api/v1${path}`;
const CURRENT_ERROR = { status: 'error', message: expect.any(String) };

describe('GET /products/{product}/workers (4.17+)', () => {
  it('lists every node of the product as {count, items} when no limit is given', async () => {
    const { s } = await sim();
    for (const product of ['stream', 'edge'] as const) {
      const r = await call(s.origin, api(`/products/${product}/workers`), { token: s.token });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Object.keys(r.json)).toEqual(['count', 'items']);
      expect(r.json.count).toBe(s.fleet.size(product));
      expect(r.json.items).toHaveLength(r.json.count);
      for (const e of r.json.items) expectWorkerEntry(e, product);
      expect(idsOf(r.json)).toEqual(
        s.fleet
          .nodes()
          .filter((n) => n.product === product)
          .map((n) => n.id),
      );
    }
  });

  it('pages with limit/offset and sends offset, limit and totalCount only when a limit is given', async () => {
    const { s } = await sim();
    const total = s.fleet.size('stream');
    const seen: string[] = [];
    for (let offset = 0; offset < total; offset += 7) {
      const r = await call(s.origin, api(`/products/stream/workers?limit=7&offset=${offset}`), { token: s.token });
      expect(Object.keys(r.json)).toEqual(['count', 'items', 'offset', 'limit', 'totalCount']);
      expect(r.json).toMatchObject({ offset, limit: 7, totalCount: total, count: Math.min(7, total - offset) });
      seen.push(...idsOf(r.json));
    }
    expect(seen).toEqual(
      s.fleet
        .nodes()
        .filter((n) => n.product === 'stream')
        .map((n) => n.id),
    );
    const past = await call(s.origin, api(`/products/stream/workers?limit=5&offset=${total}`), { token: s.token });
    expect(past.json).toEqual({ count: 0, items: [], offset: total, limit: 5, totalCount: total });
  });

  it('serves the listing entry the fleet reports, with heartbeats advancing', async () => {
    const { s, clock } = await sim();
    const node = s.fleet.nodes()[0]!;
    const first = (await call(s.origin, api('/products/stream/workers?limit=1'), { token: s.token })).json.items[0];
    expect(first).toEqual(node.entry);
    await clock.advance(30_000);
    const later = (await call(s.origin, api('/products/stream/workers?limit=1'), { token: s.token })).json.items[0];
    expect(later.lastMsgTime).toBe(first.lastMsgTime + 30_000);
    expect(later.firstMsgTime).toBe(first.firstMsgTime);
  });

  it('answers 200 with no items for outpost, 400 for an unknown product', async () => {
    const { s } = await sim();
    expect((await call(s.origin, api('/products/outpost/workers'), { token: s.token })).json).toEqual({
      count: 0,
      items: [],
    });
    const bad = await call(s.origin, api('/products/search/workers'), { token: s.token });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({
      status: 'error',
      message: 'Invalid product "search": expected stream, edge or outpost',
    });
  });

  it.each([['limit=-1'], ['limit=abc'], ['offset=1.5']])('rejects %s with 400', async (q) => {
    const { s } = await sim();
    const r = await call(s.origin, api(`/products/stream/workers?${q}`), { token: s.token });
    expect(r.status).toBe(400);
    expect(r.json).toEqual(CURRENT_ERROR);
  });
});

describe('GET /master/workers', () => {
  it('lists both products with only {count, items}, honouring limit/offset', async () => {
    const { s } = await sim();
    const all = await call(s.origin, api('/master/workers'), { token: s.token });
    expect(Object.keys(all.json)).toEqual(['count', 'items']);
    expect(all.json.count).toBe(40);
    expect(new Set(itemsOf(all.json).map((e) => String(e.info.cribl.distMode)))).toEqual(
      new Set(['worker', 'managed-edge']),
    );
    const page = await call(s.origin, api('/master/workers?limit=10&offset=35'), { token: s.token });
    expect(page.json).toEqual({ count: 5, items: itemsOf(all.json).slice(35) });
  });
});

describe('leader generations', () => {
  it('4.16 serves only /master/workers, errors as {message}, no group paging, no role in /health', async () => {
    const { s } = await sim({ leaderVersion: '4.16' });
    const nf = await call(s.origin, api('/products/stream/workers'), { token: s.token });
    expect(nf.status).toBe(404);
    expect(nf.json).toEqual({ message: expect.stringContaining('/api/v1/products/stream/workers') });
    const legacy = await call(s.origin, api('/master/workers?limit=3'), { token: s.token });
    expect(legacy.status).toBe(200);
    expect(Object.keys(legacy.json)).toEqual(['count', 'items']);
    expect(legacy.json.items[0].info.cribl.version).toMatch(/^4\.1[56]\./);
    const groups = await call(s.origin, api('/products/stream/groups?limit=1'), { token: s.token });
    expect(Object.keys(groups.json)).toEqual(['count', 'items']);
    expect(groups.json.count).toBe(3);
    expect((await call(s.origin, api('/health'))).json).toEqual({ status: 'healthy', startTime: expect.any(Number) });
    expect((await call(s.origin, api('/master/workers'))).json).toEqual({ message: AUTH_FAILED });
  });

  it.each(['4.17', '4.19.0', '5.0'])('%s serves /products/{product}/workers and {status:"error"} bodies', async (v) => {
    const { s } = await sim({ leaderVersion: v });
    expect((await call(s.origin, api('/products/edge/workers'), { token: s.token })).status).toBe(200);
    expect((await call(s.origin, api('/products/edge/workers'))).json).toEqual({
      status: 'error',
      message: AUTH_FAILED,
    });
  });
});

describe('GET /health (leader)', () => {
  it('answers 200 healthy without auth', async () => {
    const { s, clock } = await sim();
    const r = await call(s.origin, api('/health'));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      status: 'healthy',
      startTime: clock.now(),
      role: 'primary',
      overlay: { state: 'inactive' },
    });
  });

  it.each([
    ['standby', 'standby'],
    ['shutting down', 'primary'],
  ] as const)(
    'answers 420 with the same body shape when the leader is %s, and so does the whole API',
    async (state, role) => {
      const { s, clock } = await sim();
      s.fleet.setLeaderState(state);
      const h = await call(s.origin, api('/health'));
      expect(h.status).toBe(420);
      expect(h.json).toEqual({ status: state, startTime: clock.now(), role, overlay: { state: 'inactive' } });
      const node = s.fleet.nodes()[0]!.id;
      for (const path of [
        '/products/stream/workers',
        '/master/workers',
        `/w/${node}/health`,
        '/products/edge/groups',
      ]) {
        const r = await call(s.origin, api(path), { token: s.token });
        expect(r.status).toBe(420);
        expect(r.json.status).toBe(state);
      }
      const login = await call(s.origin, api('/auth/login'), {
        method: 'POST',
        headers: JSON_BODY,
        body: '{"username":"admin","password":"admin"}',
      });
      expect(login.status).toBe(420);
      s.fleet.setLeaderState('healthy');
      expect((await call(s.origin, api('/products/stream/workers'), { token: s.token })).status).toBe(200);
    },
  );
});

describe('host context: /w/{nodeId}/health', () => {
  it('answers for each node by its own health mode', async () => {
    const { s } = await sim();
    const [a, b, c, d, e] = s.fleet.nodes();
    s.fleet.setHealth(b!.id, 'shutting down');
    s.fleet.setHealth(c!.id, 'standby');
    s.fleet.setHealth(d!.id, 'unreachable');
    s.fleet.setDisconnected(e!.id, true);
    const get = (id: string) => call(s.origin, api(`/w/${encodeURIComponent(id)}/health`), { token: s.token });

    const ok = await get(a!.id);
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ status: 'healthy', startTime: a!.startTime, overlay: { state: 'inactive' } });
    expect(ok.json.startTime).toBe(a!.entry.info.cribl.startTime);

    expect(await get(b!.id)).toMatchObject({ status: 420, json: { status: 'shutting down', startTime: b!.startTime } });
    expect(await get(c!.id)).toMatchObject({ status: 420, json: { status: 'standby', startTime: c!.startTime } });
    for (const n of [d!, e!]) {
      const r = await get(n.id);
      expect(r.status).toBe(502);
      expect(r.json).toEqual({ status: 'error', message: expect.stringContaining('Failed to proxy') });
    }
    const missing = await get('no-such-node');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual(CURRENT_ERROR);
  });

  it('matches node ids as one percent-decoded path segment (hostile ids)', async () => {
    const { s } = await sim({ nodes: 2 });
    s.fleet.addHostileNodes();
    // encodeURIComponent leaves "." alone; dot segments must be encoded too or URL parsers drop them.
    const enc = (id: string): string => encodeURIComponent(id).replace(/\./g, '%2E');
    for (const id of HOSTILE_IDS) {
      const r = await call(s.origin, api(`/w/${enc(id)}/health`), { token: s.token });
      expect(r.status, id).toBe(200);
      expect(r.json.startTime).toBe(s.fleet.node(id)!.startTime);
      const m = await call(s.origin, api(`/w/${enc(id)}/edge/metadata`), { token: s.token });
      expect(m.json.items[0].os.hostname).toBe(id);
    }
    expect((await call(s.origin, api('/w/slash/inside/health'), { token: s.token })).status).toBe(404);
    expect((await call(s.origin, api('/w/%E0%A4/health'), { token: s.token })).status).toBe(400);
  });
});

describe('host context: /w/{nodeId}/edge/metadata', () => {
  it('answers {count:1, items:[Metadata]} with snake_case fields, consistent with the listing', async () => {
    const { s, clock } = await sim();
    const node = s.fleet.nodes().find((n) => n.product === 'edge')!;
    const r = await call(s.origin, api(`/w/${node.id}/edge/metadata`), { token: s.token });
    expect(r.status).toBe(200);
    expect(r.json.count).toBe(1);
    const m = r.json.items[0];
    expect(m.timestamp).toBe(clock.now());
    expect(Object.keys(m.cribl).sort()).toEqual(['config_version', 'group', 'install_type', 'mode', 'tags', 'version']);
    expect(m.cribl).toMatchObject({
      mode: 'managed-edge',
      version: node.entry.info.cribl.version,
      config_version: node.configVersion,
      group: node.group,
    });
    expect(Object.keys(m.os).sort()).toEqual(
      [
        'arch',
        'cpu_count',
        'cpu_speed_mhz',
        'cpu_type',
        'gid',
        'homedir',
        'hostname',
        'interfaces',
        'machine_id',
        'memory',
        'os_id',
        'os_name',
        'os_version',
        'os_version_id',
        'platform',
        'release',
        'timezone',
        'timezone_offset',
        'uid',
        'username',
      ].sort(),
    );
    expect(m.os).toMatchObject({
      hostname: node.entry.info.hostname,
      cpu_count: node.entry.info.cpus,
      memory: node.entry.info.totalmem,
    });
    expect(typeof m.os.os_name).toBe('string');
    expect(m.env).toEqual({});
  });

  it('includes kube (namespace, pod) for nodes running in Kubernetes', async () => {
    const { s } = await sim({ nodes: 200 });
    const kube = s.fleet.nodes().find((n) => n.hostname.startsWith('cribl-worker-'))!;
    const m = (await call(s.origin, api(`/w/${kube.id}/edge/metadata`), { token: s.token })).json.items[0];
    expect(m.kube).toEqual({ namespace: 'cribl', source: 'kubernetes', pod: { name: kube.hostname } });
    expect(m.cribl.install_type).toBe('kubernetes');
  });

  it('fails like the health endpoint for unreachable nodes', async () => {
    const { s } = await sim();
    const id = s.fleet.nodes()[3]!.id;
    s.fleet.setHealth(id, 'unreachable');
    expect((await call(s.origin, api(`/w/${id}/edge/metadata`), { token: s.token })).status).toBe(502);
  });
});

describe('GET /products/{product}/groups', () => {
  it('lists groups with the ConfigGroup fields real leaders send', async () => {
    const { s } = await sim();
    const r = await call(s.origin, api('/products/edge/groups'), { token: s.token });
    expect(Object.keys(r.json)).toEqual(['count', 'items']);
    expect(idsOf(r.json)).toEqual(['default_fleet', 'retail-stores', 'factories']);
    const g = r.json.items[1];
    expect(g).toEqual({
      id: 'retail-stores',
      name: 'retail-stores',
      type: 'edge',
      configVersion: expect.stringMatching(/^[0-9a-f]{7}$/),
      workerCount: s.fleet.nodes().filter((n) => n.group === 'retail-stores').length,
      incompatibleWorkerCount: 0,
      deployingWorkerCount: 0,
      onPrem: true,
      workerRemoteAccess: true,
      isFleet: true,
      inherits: 'default_fleet',
      lookupDeployments: [],
    });
    expect(r.json.items[0]).not.toHaveProperty('inherits');
    expect(r.json.items[0].description).toBe('Default Fleet');
  });

  it('adds git fields on request and pages with totalCount only when a limit is given', async () => {
    const { s } = await sim();
    const r = await call(
      s.origin,
      api('/products/stream/groups?fields=git.commit,git.localChanges,git.log&limit=1&offset=1'),
      { token: s.token },
    );
    expect(r.json).toMatchObject({ count: 1, offset: 1, limit: 1, totalCount: 3 });
    const g = r.json.items[0];
    expect(g.id).toBe('prod-east');
    expect(g.git.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(String(g.git.commit).slice(0, 7)).toBe(g.configVersion);
    expect(g.git.localChanges).toBe(0);
    expect(g.git.log[0]).toEqual({
      date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000$/),
      hash: g.git.commit,
      message: expect.any(String),
      short: g.configVersion,
      author_email: 'admin@example.com',
      author_name: 'Admin User',
    });
    const only = await call(s.origin, api('/products/stream/groups?fields=git.commit'), { token: s.token });
    expect(Object.keys(only.json.items[0].git)).toEqual(['commit']);
  });

  it('GET /master/groups filters by ?product=', async () => {
    const { s } = await sim();
    const edge = await call(s.origin, api('/master/groups?product=edge'), { token: s.token });
    expect(itemsOf(edge.json).every((g) => g.type === 'edge')).toBe(true);
    expect((await call(s.origin, api('/master/groups'), { token: s.token })).json.count).toBe(6);
  });
});

describe('GET /m/{group}/version', () => {
  it('lists the commit history newest first, with count/limit/offset', async () => {
    const { s } = await sim();
    const commits = s.fleet.commits('default')!;
    const all = await call(s.origin, api('/m/default/version'), { token: s.token });
    expect(all.json).toEqual({ count: commits.length, items: commits });
    expect(all.json.items[0]).toEqual({
      hash: expect.stringMatching(/^[0-9a-f]{40}$/),
      date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000$/),
      message: expect.any(String),
      body: '',
      refs: 'HEAD -> master',
      author_name: 'Admin User',
      author_email: 'admin@example.com',
    });
    expect(all.json.items[0].date > all.json.items[1].date).toBe(true);
    const paged = await call(s.origin, api('/m/default/version?count=3&offset=1&limit=5'), { token: s.token });
    expect(paged.json).toEqual({ count: 2, items: commits.slice(1, 3), offset: 1, limit: 5, totalCount: 3 });
    const deployed = s.fleet.deployGroup('default', { message: 'new pipeline' });
    const head = (await call(s.origin, api('/m/default/version?limit=1'), { token: s.token })).json.items[0];
    expect(String(head.hash).slice(0, 7)).toBe(deployed);
    expect(head.message).toBe('new pipeline');
  });

  it('answers 404 for an unknown group', async () => {
    const { s } = await sim();
    const r = await call(s.origin, api('/m/nope/version'), { token: s.token });
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ status: 'error', message: 'Group "nope" not found' });
  });
});

describe('authentication and generic errors', () => {
  it.each([
    ['no header', undefined],
    ['a wrong token', 'Bearer wrong'],
    ['another scheme', 'Basic YWRtaW46YWRtaW4='],
  ])('answers 401 for %s', async (_label, header) => {
    const { s } = await sim();
    const r = await call(s.origin, api('/products/stream/workers'), {
      headers: header ? { authorization: header } : {},
    });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ status: 'error', message: AUTH_FAILED });
  });

  it('answers 403 for a token without permission', async () => {
    const { s } = await sim();
    const r = await call(s.origin, api(`/w/${s.fleet.nodes()[0]!.id}/health`), { token: s.forbiddenToken });
    expect(r.status).toBe(403);
    expect(r.json).toEqual({ status: 'error', message: 'Not authorized or licensed' });
  });

  it('answers 404 for unknown paths and 405 with Allow for a wrong method', async () => {
    const { s } = await sim();
    const nf = await call(s.origin, api('/nope'), { token: s.token });
    expect(nf.status).toBe(404);
    expect(nf.json).toEqual({ status: 'error', message: 'Not Found: GET /api/v1/nope' });
    const m = await call(s.origin, api('/products/stream/workers'), { method: 'DELETE', token: s.token });
    expect(m.status).toBe(405);
    expect(m.headers.allow).toBe('GET, HEAD');
    expect(m.json).toEqual(CURRENT_ERROR);
    const login = await call(s.origin, api('/auth/login'), { method: 'GET' });
    expect(login.status).toBe(405);
    expect(login.headers.allow).toBe('POST');
  });

  it.each([
    ['no Content-Type', {}],
    ['text/plain', { 'content-type': 'text/plain' }],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }],
  ])('answers 415 to a login with %s', async (_label, headers) => {
    const { s } = await sim();
    const r = await call(s.origin, api('/auth/login'), {
      method: 'POST',
      headers,
      body: '{"username":"admin","password":"admin"}',
    });
    expect(r.status).toBe(415);
    expect(r.json).toEqual(CURRENT_ERROR);
  });

  it('answers 413 to a body over 5 MB (5,000,000 bytes), declared or streamed', async () => {
    const { s } = await sim();
    expect(MAX_REQUEST_BODY).toBe(5_000_000);
    const big = Buffer.alloc(5_000_001, 'a');
    const declared = await call(s.origin, api('/auth/login'), { method: 'POST', headers: JSON_BODY, body: big });
    expect(declared.status).toBe(413);
    expect(declared.json).toEqual(CURRENT_ERROR);
    const chunked = await call(s.origin, api('/auth/login'), {
      method: 'POST',
      headers: { ...JSON_BODY, 'transfer-encoding': 'chunked' },
      body: big,
    });
    expect(chunked.status).toBe(413);
    const justUnder = await call(s.origin, api('/auth/login'), {
      method: 'POST',
      headers: JSON_BODY,
      body: Buffer.alloc(5_000_000, ' '),
    });
    expect(justUnder.status).toBe(400);
    // Under 5 MiB but over 5 MB: refused (the login route's own rate limit allows two a second, so another route).
    const overMB = await call(s.origin, api('/m/default/system/outputs'), {
      method: 'POST',
      token: s.token,
      headers: { ...JSON_BODY, 'transfer-encoding': 'chunked' },
      body: Buffer.alloc(5 * 1024 * 1024 - 1, ' '),
    });
    expect(overMB.status).toBe(413);
    expect(overMB.json).toEqual({ status: 'error', message: 'Request body larger than 5 MB' });
  });

  it('answers HEAD like GET without a body', async () => {
    const { s } = await sim();
    const r = await call(s.origin, api('/health'), { method: 'HEAD' });
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    expect(Number(r.headers['content-length'])).toBeGreaterThan(0);
  });
});

describe('POST /auth/login', () => {
  const login = (s: Simulator, body: unknown) =>
    call(s.origin, api('/auth/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(body),
    });

  it('returns {token, forcePasswordChange} with a JWT whose exp is the token TTL, usable as bearer', async () => {
    const { s, clock } = await sim();
    const r = await login(s, { username: 'admin', password: 'admin' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(['token', 'forcePasswordChange']);
    expect(r.json.forcePasswordChange).toBe(false);
    const [header, payload, sig] = String(r.json.token).split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims.sub).toBe('admin');
    expect(claims.exp).toBe(Math.floor((clock.now() + 3_600_000) / 1000));
    expect(sig.length).toBeGreaterThan(20);
    expect((await call(s.origin, api('/master/workers?limit=1'), { token: r.json.token })).status).toBe(200);
    const again = await login(s, { username: 'admin', password: 'admin' });
    expect(again.json.token).not.toBe(r.json.token);
  });

  it('401 for wrong credentials, 400 for missing fields or bad JSON', async () => {
    const { s, clock } = await sim();
    expect(await login(s, { username: 'admin', password: 'nope' })).toMatchObject({
      status: 401,
      json: { status: 'error', message: AUTH_FAILED },
    });
    expect((await login(s, { username: 'admin' })).status).toBe(400);
    await clock.advance(1000); // the default login rate limit is 2/second
    const bad = await call(s.origin, api('/auth/login'), { method: 'POST', headers: JSON_BODY, body: '{"username":' });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ status: 'error', message: 'Request body is not valid JSON' });
  });

  it('gives users without permission tokens that answer 403', async () => {
    const { s } = await sim({ users: [{ username: 'viewer', password: 'pw', permitted: false }] });
    const r = await login(s, { username: 'viewer', password: 'pw' });
    expect((await call(s.origin, api('/master/workers'), { token: r.json.token })).status).toBe(403);
    expect((await login(s, { username: 'admin', password: 'admin' })).status).toBe(401);
  });
});

describe('OAuth client-credentials token endpoint', () => {
  const fields = {
    grant_type: 'client_credentials',
    client_id: 'sim-client',
    client_secret: 'sim-secret',
    audience: 'https://api.cribl.cloud',
  };

  it.each([
    ['JSON', 'application/json', JSON.stringify(fields)],
    ['form', 'application/x-www-form-urlencoded', new URLSearchParams(fields).toString()],
  ])('accepts a %s body and returns {access_token, token_type, expires_in}', async (_label, type, body) => {
    const { s, clock } = await sim();
    expect(s.oauthTokenUrl).toBe(`${s.origin}/oauth/token`);
    const r = await call(s.origin, '/oauth/token', { method: 'POST', headers: { 'content-type': type }, body });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 86_400 });
    const claims = JSON.parse(Buffer.from(String(r.json.access_token).split('.')[1]!, 'base64url').toString());
    expect(claims.exp).toBe(Math.floor((clock.now() + 86_400_000) / 1000));
    expect((await call(s.origin, api('/products/stream/workers?limit=1'), { token: r.json.access_token })).status).toBe(
      200,
    );
  });

  it.each([
    [{ ...fields, client_secret: 'wrong' }, 401, 'access_denied'],
    [{ ...fields, grant_type: 'password' }, 400, 'unsupported_grant_type'],
  ])('rejects %j', async (body, status, error) => {
    const { s } = await sim();
    const r = await call(s.origin, '/oauth/token', { method: 'POST', headers: JSON_BODY, body: JSON.stringify(body) });
    expect(r.status).toBe(status);
    expect(r.json).toEqual({ error, error_description: expect.any(String) });
  });

  it('answers 415 to other media types', async () => {
    const { s } = await sim();
    const r = await call(s.origin, '/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(r.status).toBe(415);
    expect(r.json.error).toBe('invalid_request');
  });
});

describe('management plane: GET /v1/organizations/{organizationId}/workspaces', () => {
  const ws = {
    workspaceId: 'main',
    region: 'us-west-2',
    leaderFQDN: '127.0.0.1:1',
    state: 'Active' as const,
    alias: 'Main',
  };

  it('lists the workspaces with a bearer token, errors as {statusCode, message}', async () => {
    const { s } = await sim({ workspaces: [ws], organizationId: 'acme' });
    const url = new URL(`${s.managementUrl}/v1/organizations/acme/workspaces`);
    const r = await call(s.origin, url.pathname, { token: s.token });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ items: [ws], count: 1 });
    expect(await call(s.origin, url.pathname)).toMatchObject({
      status: 401,
      json: { statusCode: 401, message: 'Unauthorized' },
    });
    expect(await call(s.origin, '/v1/organizations/other/workspaces', { token: s.token })).toMatchObject({
      status: 403,
      json: { statusCode: 403, message: 'Forbidden' },
    });
    s.setWorkspaces([]);
    expect((await call(s.origin, url.pathname, { token: s.token })).json).toEqual({ items: [], count: 0 });
  });
});

describe('TLS', () => {
  it('serves HTTPS when given a certificate', async () => {
    const { generatePki } = await import('../http/certs.js');
    const pki = generatePki();
    try {
      const { s } = await sim({ tls: { cert: pki.read(pki.serverCert), key: pki.read(pki.serverKey) } });
      expect(s.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
      const { Agent, request } = await import('undici');
      const agent = new Agent({ connect: { ca: pki.read(pki.caFile) } });
      const r = await request(`${s.baseUrl}/health`, { dispatcher: agent });
      expect(r.statusCode).toBe(200);
      expect(await r.body.json()).toMatchObject({ status: 'healthy' });
      await agent.close();
    } finally {
      pki.cleanup();
    }
  });
});

describe('idle keep-alive connections', () => {
  it('outlive those of an undici client (capped at 60 s, closing 2 s before the announced timeout)', async () => {
    // Closing first would race a client reusing the connection at that moment ("other side closed").
    const { s } = await sim();
    for (const path of [api('/health'), '/_sim/stats']) {
      const r = await call(s.origin, path, { headers: { connection: 'keep-alive' } });
      expect(r.headers.connection).toBe('keep-alive');
      const timeout = Number(/timeout=(\d+)/.exec(String(r.headers['keep-alive']))?.[1]);
      expect(timeout).toBeGreaterThan(62);
    }
  });
});
