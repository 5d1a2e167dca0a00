/**
 * What a real leader does that the exporter must not misread (issue 40, simulator side): least-privilege tokens
 * refused on some routes only, standby windows, a leader's own rate limit with a fixed Retry-After, and config
 * versions that are not commit hashes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RESTRICTED_ROUTES, parseScenario, startSimulator } from '@cribl-exporter/simulator';
import type { Simulator, SimulatorOptions } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { JSON_BODY, call } from './helpers.js';
import type { Item } from './helpers.js';

const sims: Simulator[] = [];
afterEach(async () => {
  while (sims.length) await sims.pop()!.close();
});

async function sim(opts: SimulatorOptions = {}): Promise<{ s: Simulator; clock: FakeClock }> {
  const clock = new FakeClock();
  const s = await startSimulator({ nodes: 12, clock, ...opts });
  sims.push(s);
  return { s, clock };
}

const api = (p: string): string => `/api/v1${p}`;
const json = (method: string, body: unknown) => ({ method, headers: JSON_BODY, body: JSON.stringify(body) });
const scenario = (text: string) => parseScenario(text, 'x.yaml');

/** Every read the exporter makes, by route template, with one concrete path each. */
function reads(s: Simulator): Record<string, string> {
  const node = s.fleet.nodes()[0]!.id;
  return {
    '/products/{product}/workers': '/products/stream/workers',
    '/products/{product}/groups': '/products/stream/groups?fields=git.localChanges',
    '/w/{nodeId}/health': `/w/${node}/health`,
    '/w/{nodeId}/edge/metadata': `/w/${node}/edge/metadata`,
    '/system/settings/git-settings': '/system/settings/git-settings',
    '/m/{group}/version': '/m/default/version',
    '/m/{group}/packs': '/m/default/packs',
    '/m/{group}/system/status/outputs': '/m/default/system/status/outputs',
    '/m/{group}/system/status/inputs': '/m/default/system/status/inputs',
    '/system/licenses': '/system/licenses',
    '/system/licenses/usage': '/system/licenses/usage',
    '/system/info': '/system/info',
    '/system/messages': '/system/messages',
  };
}

async function statuses(s: Simulator, token: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [route, path] of Object.entries(reads(s)))
    out[route] = (await call(s.origin, api(path), { token })).status;
  return out;
}

describe('restricted tokens', () => {
  it('sim.restrictedToken: 403 on git settings and /m/{group}/version only; all else as the full token', async () => {
    const { s } = await sim();
    expect(DEFAULT_RESTRICTED_ROUTES).toEqual(['/system/settings/git-settings', '/m/{group}/version']);
    const full = await statuses(s, s.token);
    const restricted = await statuses(s, s.restrictedToken);
    expect(Object.values(full).every((st) => st === 200)).toBe(true);
    expect(restricted).toEqual({ ...full, '/system/settings/git-settings': 403, '/m/{group}/version': 403 });
    const refused = await call(s.origin, api('/m/prod-east/version'), { token: s.restrictedToken });
    expect(refused.json).toEqual({ status: 'error', message: 'Not authorized or licensed' });
    for (const path of ['/products/edge/workers', '/m/prod-east/system/status/outputs']) {
      const a = await call(s.origin, api(path), { token: s.token });
      const b = await call(s.origin, api(path), { token: s.restrictedToken });
      expect(b.text).toBe(a.text);
    }
    // Read-only: its writes are refused too.
    const post = await call(s.origin, api('/m/default/system/outputs'), {
      ...json('POST', { id: 'x', type: 'devnull' }),
      token: s.restrictedToken,
    });
    expect(post.status).toBe(403);
  });

  it('the refused routes are configurable: any new endpoint, by option, scenario, admin or addToken', async () => {
    const { s } = await sim({ restrictedRoutes: ['/system/licenses', '/system/licenses/usage'] });
    const st = await statuses(s, s.restrictedToken);
    expect(
      Object.entries(st)
        .filter(([, v]) => v === 403)
        .map(([k]) => k),
    ).toEqual(['/system/licenses', '/system/licenses/usage']);
    const routes = [
      '/m/{group}/system/status/outputs',
      '/m/{group}/system/status/inputs',
      '/system/info',
      '/system/messages',
    ];
    const added = await call(
      s.origin,
      '/_sim/tokens',
      json('POST', { token: 'least-privilege-1', access: 'read-only', deny: routes }),
    );
    expect(added.status).toBe(201);
    expect(added.json).toEqual({ added: true, access: 'read-only', deny: routes });
    const byAdmin = await statuses(s, 'least-privilege-1');
    expect(
      Object.entries(byAdmin)
        .filter(([, v]) => v === 403)
        .map(([k]) => k),
    ).toEqual(routes);
    s.addToken('least-privilege-2', 'full', ['/products/{product}/groups']);
    expect((await call(s.origin, api('/products/stream/groups'), { token: 'least-privilege-2' })).status).toBe(403);
    expect((await call(s.origin, api('/products/stream/workers'), { token: 'least-privilege-2' })).status).toBe(200);
    const bad = await call(s.origin, '/_sim/tokens', json('POST', { token: 'least-privilege-3', deny: ['/nope'] }));
    expect(bad.status).toBe(400);

    const sc = (
      await sim({
        scenario: scenario(
          [
            'tokens:',
            '  - token: cloud-reader-1',
            '    access: read-only',
            '    deny: ["/system/settings/git-settings", "/system/info"]',
            'clients: [{ clientId: c1, clientSecret: s1, deny: ["/system/messages"] }]',
          ].join('\n'),
        ),
      })
    ).s;
    expect((await call(sc.origin, api('/system/info'), { token: 'cloud-reader-1' })).status).toBe(403);
    expect((await call(sc.origin, api('/system/messages'), { token: 'cloud-reader-1' })).status).toBe(200);
    const oauth = await call(sc.origin, '/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=c1&client_secret=s1',
    });
    const issued = String(oauth.json.access_token);
    expect((await call(sc.origin, api('/system/messages'), { token: issued })).status).toBe(403);
    expect((await call(sc.origin, api('/system/info'), { token: issued })).status).toBe(200);
  });
});

describe('standby', () => {
  it('a standby window: /health and every host-context request answer 420 with the leader’s own body', async () => {
    const { s, clock } = await sim({
      scenario: scenario('faults: { leaderWindows: [{ start: 10s, duration: 20s, state: standby }] }'),
    });
    const node = s.fleet.nodes()[0]!;
    const nodeHealth = (): ReturnType<typeof call> => call(s.origin, api(`/w/${node.id}/health`), { token: s.token });
    const before = await nodeHealth();
    expect(before.status).toBe(200);
    expect(before.json).toEqual({ status: 'healthy', startTime: node.startTime, overlay: { state: 'inactive' } });
    await clock.advance(10_000);
    const leader = await call(s.origin, api('/health'));
    const standby = {
      status: 'standby',
      startTime: expect.any(Number),
      role: 'standby',
      overlay: { state: 'inactive' },
    };
    expect(leader.status).toBe(420);
    expect(leader.json).toEqual(standby);
    const proxied = await nodeHealth();
    expect(proxied.status).toBe(420);
    expect(proxied.json).toEqual(leader.json);
    expect(proxied.json.startTime).not.toBe(node.startTime);
    for (const p of ['/products/stream/workers', `/w/${node.id}/edge/metadata`, '/m/default/system/status/outputs']) {
      expect((await call(s.origin, api(p), { token: s.token })).status).toBe(420);
    }
    await clock.advance(20_000);
    expect((await nodeHealth()).status).toBe(200);
    expect((await call(s.origin, '/_sim/leader')).json).toMatchObject({ state: 'healthy', role: true });
  });

  it('role: false leaves the role out of 420 bodies (scenario window, admin); /health still says standby', async () => {
    const { s, clock } = await sim({
      scenario: scenario('faults: { leaderWindows: [{ start: 0s, duration: 1m, state: standby, role: false }] }'),
    });
    const node = s.fleet.nodes()[0]!.id;
    const h = await call(s.origin, api(`/w/${node}/health`), { token: s.token });
    expect(h.status).toBe(420);
    expect(h.json).toEqual({ status: 'standby', startTime: expect.any(Number), overlay: { state: 'inactive' } });
    expect((await call(s.origin, api('/health'))).json.status).toBe('standby');
    await clock.advance(60_000);
    expect((await call(s.origin, api('/health'))).status).toBe(200);

    const r = await call(s.origin, '/_sim/leader', json('POST', { state: 'standby', role: false }));
    expect(r.json).toMatchObject({ state: 'standby', role: false, manual: 'standby' });
    const manual = await call(s.origin, api(`/w/${node}/health`), { token: s.token });
    expect(manual.status).toBe(420);
    expect(manual.json.role).toBeUndefined();
    await call(s.origin, '/_sim/leader', json('POST', { state: 'healthy', role: true }));
    expect((await call(s.origin, api(`/w/${node}/health`), { token: s.token })).status).toBe(200);
  });
});

describe('rate limits and Retry-After', () => {
  it('a leader limit of 40/s with burst 10 and Retry-After: 2', async () => {
    const { s, clock } = await sim();
    s.setFaults({ rateLimit: { rate: 40, burst: 10, retryAfterSeconds: 2 } });
    const path = api('/products/stream/workers');
    const answers: number[] = [];
    for (let i = 0; i < 12; i++) answers.push((await call(s.origin, path, { token: s.token })).status);
    expect(answers.filter((a) => a === 200)).toHaveLength(10);
    const limited = await call(s.origin, path, { token: s.token });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('2');
    await clock.advance(100);
    // 40/s refills 4 tokens in 100 ms.
    for (let i = 0; i < 4; i++) expect((await call(s.origin, path, { token: s.token })).status).toBe(200);
    expect(s.faults().rateLimit).toMatchObject({ rate: 40, burst: 10, retryAfterSeconds: 2 });
  });

  it('a proxy-like Retry-After: 86400 (429, and 503)', async () => {
    const { s } = await sim({
      scenario: scenario('faults: { rateLimit: { rate: 0.001, burst: 1, retryAfterSeconds: 86400 } }'),
    });
    const path = api('/products/stream/workers');
    expect((await call(s.origin, path, { token: s.token })).status).toBe(200);
    const r = await call(s.origin, path, { token: s.token });
    expect(r.status).toBe(429);
    expect(r.headers['retry-after']).toBe('86400');
    s.setFaults({ rateLimit: null, unavailable: { share: 1, retryAfter: 86400 } });
    const u = await call(s.origin, path, { token: s.token });
    expect([u.status, u.headers['retry-after']]).toEqual([503, '86400']);
  });
});

describe('config versions like 1.0.0', () => {
  it('scenario fleet.configVersions: semver: groups, nodes, drift and deploys use 1.0.N', async () => {
    const { s } = await sim({ scenario: scenario('fleet: { configVersions: semver, drift: 1 }') });
    const groups = (await call(s.origin, api('/products/stream/groups'), { token: s.token })).json.items as Item[];
    for (const g of groups) {
      const commits = s.fleet.commits(g.id)!;
      expect(g.configVersion).toBe(`1.0.${commits.length - 1}`);
    }
    const entries = (await call(s.origin, api('/products/stream/workers'), { token: s.token })).json.items as Item[];
    const versions = new Set(entries.map((e) => String(e.info.cribl.config.version)));
    for (const v of versions) expect(v).toMatch(/^1\.0\.\d+$/);
    const deployed = new Map(groups.map((g) => [g.id, g.configVersion]));
    const all = [
      ...entries,
      ...((await call(s.origin, api('/products/edge/workers'), { token: s.token })).json.items as Item[]),
    ];
    expect(all.filter((e) => e.info.cribl.config.version !== s.fleet.versionAt(e.group, 0)).length).toBe(1);
    expect(deployed.get('default')).toBe(s.fleet.versionAt('default', 0));
    const v = s.fleet.deployGroup('default');
    expect(v).toBe(`1.0.${s.fleet.commits('default')!.length - 1}`);
    const one = await call(s.origin, api('/products/stream/groups/default/configVersion'), { token: s.token });
    expect(one.json.items).toEqual([v]);
  });

  it('admin POST /_sim/leader {configVersions} switches a running leader; nodes keep their commit', async () => {
    const { s } = await sim();
    const node = s.fleet.nodes().find((n) => n.group === 'default')!;
    s.fleet.drift(node.id, 1);
    const r = await call(s.origin, '/_sim/leader', json('POST', { configVersions: 'semver' }));
    expect(r.json.configVersions).toBe('semver');
    const n = s.fleet.commits('default')!.length;
    expect(s.fleet.node(node.id)!.configVersion).toBe(`1.0.${n - 2}`);
    expect(s.fleet.groups('stream').find((g) => g.id === 'default')!.configVersion).toBe(`1.0.${n - 1}`);
    const back = await call(s.origin, '/_sim/leader', json('POST', { configVersions: 'hash' }));
    expect(back.json.configVersions).toBe('hash');
    expect(s.fleet.node(node.id)!.configVersion).toBe(s.fleet.commits('default')![1]!.hash!.slice(0, 7));
    expect((await call(s.origin, '/_sim/leader', json('POST', {}))).status).toBe(400);
  });
});
