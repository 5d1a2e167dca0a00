import { afterEach, describe, expect, it } from 'vitest';
import { HOSTILE_IDS, startSimulator } from '@cribl-exporter/simulator';
import type { Faults, Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { JSON_BODY, call, idsOf, itemsOf } from './helpers.js';

const sims: Simulator[] = [];
afterEach(async () => {
  while (sims.length) await sims.pop()!.close();
});

async function sim(): Promise<{ s: Simulator; clock: FakeClock }> {
  const clock = new FakeClock();
  const s = await startSimulator({ nodes: 12, clock });
  sims.push(s);
  return { s, clock };
}

const json = (method: string, body: unknown) => ({ method, headers: JSON_BODY, body: JSON.stringify(body) });
const api = (path: string): string => `/api/v1${path}`;

describe('admin endpoint /_sim', () => {
  it('lives under its own prefix and lists its endpoints', async () => {
    const { s } = await sim();
    expect(s.adminUrl).toBe(`${s.origin}/_sim`);
    const r = await call(s.origin, '/_sim');
    expect(r.status).toBe(200);
    expect(r.json.endpoints).toContain('GET /_sim/stats');
    expect((await call(s.origin, '/api/v1/_sim/stats', { token: s.token })).status).toBe(404);
    expect((await call(s.origin, '/_sim/nope')).status).toBe(404);
    expect((await call(s.origin, '/_sim/stats', { method: 'DELETE' })).status).toBe(405);
  });

  it('GET /_sim/stats and POST /_sim/stats/reset; admin calls are not counted', async () => {
    const { s } = await sim();
    await call(s.origin, api('/health'));
    const st = await call(s.origin, '/_sim/stats');
    expect(st.json).toMatchObject({
      totalRequests: 1,
      requests: { '/health': { '200': 1 } },
      peakConcurrent: 1,
      retryAfterViolations: 0,
    });
    expect(st.json).toEqual(s.stats());
    const reset = await call(s.origin, '/_sim/stats/reset', { method: 'POST' });
    expect(reset.json).toMatchObject({ totalRequests: 0, requests: {} });
  });

  it('GET/PATCH/PUT /_sim/faults: PATCH merges top-level keys, PUT replaces everything', async () => {
    const { s } = await sim();
    const patched = await call(
      s.origin,
      '/_sim/faults',
      json('PATCH', { rateLimit: { rate: 1, burst: 1 }, tokenTtl: '30s' }),
    );
    expect(patched.status).toBe(200);
    expect(patched.json.rateLimit).toEqual({ rate: 1, burst: 1, retryAfter: 'seconds', per: 'global', routes: null });
    expect(patched.json.tokenTtl).toBe(30_000);
    expect(patched.json.loginRateLimit).toBe('2/second');
    expect((await call(s.origin, '/_sim/faults')).json).toEqual(s.faults());
    await call(s.origin, api('/health'));
    expect((await call(s.origin, api('/health'))).status).toBe(429);

    const put = await call(s.origin, '/_sim/faults', json('PUT', { unavailable: { share: 1 } }));
    expect(put.json.rateLimit).toBeNull();
    expect(put.json.tokenTtl).toBe(3_600_000);
    expect((await call(s.origin, api('/health'))).status).toBe(503);
  });

  it('accepts its own Faults back (setFaults takes Partial<Faults>)', async () => {
    const { s } = await sim();
    s.setFaults({
      rateLimit: { rate: 3, burst: 2 },
      leaderWindows: [{ start: '1s', duration: '2s' }],
      latency: { '*': { fixed: 5 } },
    });
    const current: Partial<Faults> = s.faults();
    s.setFaults(current);
    expect(s.faults()).toEqual(current);
    const put = await call(s.origin, '/_sim/faults', json('PUT', current));
    expect(put.json).toEqual(current);
  });

  it('rejects invalid faults with one line naming the field, changing nothing', async () => {
    const { s } = await sim();
    const before = s.faults();
    const r = await call(s.origin, '/_sim/faults', json('PATCH', { rateLimit: { rate: -1 } }));
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/^invalid faults: faults\.rateLimit\.rate: /);
    expect(s.faults()).toEqual(before);
    expect((await call(s.origin, '/_sim/faults', { method: 'PATCH', headers: JSON_BODY, body: '{' })).status).toBe(400);
    expect((await call(s.origin, '/_sim/faults', { method: 'PATCH', body: '{}' })).status).toBe(415);
    expect(() => s.setFaults({ loginRateLimit: 'often' })).toThrow(/faults\.loginRateLimit/);
  });

  it('GET /_sim/nodes lists summaries with paging', async () => {
    const { s } = await sim();
    const r = await call(s.origin, '/_sim/nodes?offset=2&limit=3');
    expect(r.json.totalCount).toBe(12);
    expect(r.json.count).toBe(3);
    const n = s.fleet.nodes()[2]!;
    expect(r.json.items[0]).toEqual({
      id: n.id,
      product: n.product,
      group: n.group,
      hostname: n.hostname,
      health: 'healthy',
      status: 'healthy',
      disconnected: false,
      configVersion: n.configVersion,
      startTime: n.startTime,
      hostile: false,
    });
  });

  it('POST /_sim/nodes adds nodes (also hostile ones), DELETE removes them', async () => {
    const { s } = await sim();
    const added = await call(
      s.origin,
      '/_sim/nodes',
      json('POST', { product: 'edge', group: 'default_fleet', count: 3 }),
    );
    expect(added.status).toBe(201);
    expect(added.json.items).toHaveLength(3);
    expect(s.fleet.size()).toBe(15);
    const listed = await call(s.origin, api('/products/edge/workers'), { token: s.token });
    expect(idsOf(listed.json)).toEqual(expect.arrayContaining(idsOf(added.json)));

    const hostile = await call(s.origin, '/_sim/nodes', json('POST', { hostile: true }));
    expect(idsOf(hostile.json)).toEqual([...HOSTILE_IDS]);
    const weird = 'slash/inside';
    const one = await call(s.origin, `/_sim/nodes/${encodeURIComponent(weird)}`);
    expect(one.json).toMatchObject({ id: weird, hostile: true, entry: { id: weird } });
    const del = await call(s.origin, `/_sim/nodes/${encodeURIComponent(weird)}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect(s.fleet.node(weird)).toBeUndefined();
    expect((await call(s.origin, `/_sim/nodes/${encodeURIComponent(weird)}`, { method: 'DELETE' })).status).toBe(404);

    const dup = await call(s.origin, '/_sim/nodes', json('POST', { id: added.json.items[0].id }));
    expect(dup.status).toBe(400);
    expect(dup.json.error).toMatch(/exists/);
    expect((await call(s.origin, '/_sim/nodes', json('POST', { product: 'outpost' }))).status).toBe(400);
  });

  it('PATCH /_sim/nodes/{id} changes health, connection, config version and restarts', async () => {
    const { s, clock } = await sim();
    const id = s.fleet.nodes()[0]!.id;
    await clock.advance(5000);
    const r = await call(
      s.origin,
      `/_sim/nodes/${id}`,
      json('PATCH', { health: 'standby', disconnected: true, configVersion: 'abc1234', restart: true }),
    );
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      health: 'standby',
      status: 'standby',
      disconnected: true,
      configVersion: 'abc1234',
      startTime: clock.now(),
    });
    expect((await call(s.origin, api(`/w/${id}/health`), { token: s.token })).status).toBe(502);
    await call(s.origin, `/_sim/nodes/${id}`, json('PATCH', { disconnected: false }));
    expect((await call(s.origin, api(`/w/${id}/health`), { token: s.token })).json).toEqual({
      status: 'standby',
      startTime: clock.now(),
      overlay: { state: 'inactive' },
    });
    expect((await call(s.origin, `/_sim/nodes/${id}`, json('PATCH', { health: 'sick' }))).status).toBe(400);
    expect((await call(s.origin, '/_sim/nodes/nope', json('PATCH', { health: 'slow' }))).status).toBe(404);
  });

  it('POST /_sim/leader switches the whole API to 420 and back', async () => {
    const { s } = await sim();
    const r = await call(s.origin, '/_sim/leader', json('POST', { state: 'standby' }));
    expect(r.json).toEqual({ state: 'standby', role: true, manual: 'standby', configVersions: 'hash' });
    expect((await call(s.origin, api('/health'))).status).toBe(420);
    expect((await call(s.origin, '/_sim/leader')).json.state).toBe('standby');
    await call(s.origin, '/_sim/leader', json('POST', { state: 'healthy' }));
    expect((await call(s.origin, api('/health'))).status).toBe(200);
    expect((await call(s.origin, '/_sim/leader', json('POST', { state: 'asleep' }))).status).toBe(400);
  });

  it('POST /_sim/groups/{id}/deploy commits a new config version', async () => {
    const { s } = await sim();
    const r = await call(s.origin, '/_sim/groups/default/deploy', json('POST', { message: 'ship it', rollout: false }));
    expect(r.json.configVersion).toMatch(/^[0-9a-f]{7}$/);
    const groups = await call(s.origin, api('/products/stream/groups'), { token: s.token });
    const g = itemsOf(groups.json).find((x) => x.id === 'default')!;
    expect(g.configVersion).toBe(r.json.configVersion);
    expect(g.deployingWorkerCount).toBe(g.workerCount);
    expect((await call(s.origin, '/_sim/groups/default/deploy', { method: 'POST' })).status).toBe(200);
    expect((await call(s.origin, '/_sim/groups/nope/deploy', { method: 'POST' })).status).toBe(404);
  });

  it('POST /_sim/tokens/revoke revokes issued tokens', async () => {
    const { s } = await sim();
    const login = await call(s.origin, api('/auth/login'), json('POST', { username: 'admin', password: 'admin' }));
    expect((await call(s.origin, '/_sim/tokens/revoke', { method: 'POST' })).json).toEqual({ revoked: 1 });
    expect((await call(s.origin, api('/master/workers'), { token: login.json.token })).status).toBe(401);
  });

  it('GET/PUT /_sim/workspaces drive the management-plane listing', async () => {
    const { s } = await sim();
    const ws = { workspaceId: 'main', region: 'us-west-2', leaderFQDN: '127.0.0.1:9', state: 'Active' };
    const put = await call(s.origin, '/_sim/workspaces', json('PUT', [ws]));
    expect(put.json).toEqual({ items: [ws], count: 1 });
    expect((await call(s.origin, '/_sim/workspaces')).json).toEqual({ items: [ws], count: 1 });
    expect((await call(s.origin, '/v1/organizations/any/workspaces', { token: s.token })).json).toEqual({
      items: [ws],
      count: 1,
    });
    await call(s.origin, '/_sim/workspaces', json('PUT', { items: [] }));
    expect((await call(s.origin, '/v1/organizations/any/workspaces', { token: s.token })).json.count).toBe(0);
    const bad = await call(s.origin, '/_sim/workspaces', json('PUT', [{ ...ws, state: 'Sleeping' }]));
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/^0\.state: /);
  });
});
