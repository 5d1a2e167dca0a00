/**
 * The simulator as an HA pair (src/simulator/ha.ts): two host addresses over one fleet, optionally a load balancer;
 * a standby host answers 420 standby on the whole control plane, a host that is down resets its connections, and a
 * failover leaves a gap with no primary on the (fake) clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseScenario, startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { call, JSON_BODY } from './helpers.js';

const open: Simulator[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function sim(ha: Parameters<typeof startSimulator>[0] & object): Promise<Simulator> {
  const s = await startSimulator({ nodes: 3, ...ha });
  open.push(s);
  return s;
}

/** `status role` of GET /health on each address, and the status of the listing there. */
async function look(s: Simulator, origins: readonly string[]): Promise<string[]> {
  return Promise.all(
    origins.map(async (o) => {
      const h = await call(o, '/api/v1/health');
      if (h.error) return `down(${h.error})`;
      const list = await call(o, '/api/v1/products/stream/workers', { token: s.token });
      return `${h.status} ${h.json?.role} list=${list.status}`;
    }),
  );
}

describe('simulator HA pair', () => {
  it('without a load balancer: the main address is host 0 (primary), host 1 is standby (420 everywhere)', async () => {
    const s = await sim({ ha: { hosts: 2 } });
    const hosts = s.ha!.hosts.map((h) => h.origin);
    expect(hosts[0]).toBe(s.origin);
    expect(s.ha!.loadBalancer).toBeUndefined();
    expect(await look(s, hosts)).toEqual(['200 primary list=200', '420 standby list=420']);
    expect(s.ha!.served().map((x) => x.requests)).toEqual([1, 0]);
  });

  it('fails over with a gap of no primary, then the other host serves the same fleet', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const s = await sim({ clock, ha: { hosts: 2 } });
    const hosts = s.ha!.hosts.map((h) => h.origin);
    const ids = async (o: string): Promise<string[]> =>
      (
        (await call(o, '/api/v1/products/stream/workers', { token: s.token })).json as { items: { id: string }[] }
      ).items.map((n) => n.id);
    const before = await ids(hosts[0]!);
    s.ha!.failover(10_000);
    expect(s.ha!.states()).toEqual(['standby', 'standby']);
    expect(await look(s, hosts)).toEqual(['420 standby list=420', '420 standby list=420']);
    await clock.advance(10_000);
    expect(s.ha!.states()).toEqual(['standby', 'primary']);
    expect(await look(s, hosts)).toEqual(['420 standby list=420', '200 primary list=200']);
    expect(await ids(hosts[1]!)).toEqual(before);
  });

  it('both standby, both primary, and the standby down (its connections reset)', async () => {
    const s = await sim({ ha: { hosts: 2 } });
    const hosts = s.ha!.hosts.map((h) => h.origin);
    s.ha!.setHost(1, 'primary');
    expect(await look(s, hosts)).toEqual(['200 primary list=200', '200 primary list=200']);
    s.ha!.setHost(0, 'standby');
    s.ha!.setHost(1, 'standby');
    expect(await look(s, hosts)).toEqual(['420 standby list=420', '420 standby list=420']);
    s.ha!.setHost(0, 'primary');
    s.ha!.setHost(1, 'down');
    const [, down] = await look(s, hosts);
    expect(down).toMatch(/^down\(/);
  });

  it('behind a load balancer: the main address follows the primary; 503 when every host is down', async () => {
    const s = await sim({ ha: { hosts: 2, loadBalancer: true } });
    expect(s.ha!.loadBalancer?.origin).toBe(s.origin);
    expect(s.ha!.hosts.map((h) => h.origin)).not.toContain(s.origin);
    expect(await look(s, [s.origin])).toEqual(['200 primary list=200']);
    s.ha!.failover();
    expect(await look(s, [s.origin])).toEqual(['200 primary list=200']);
    expect(s.ha!.served().map((x) => x.requests)).toEqual([1, 1]);
    s.ha!.setHost(0, 'standby');
    s.ha!.setHost(1, 'standby');
    expect(await look(s, [s.origin])).toEqual(['420 standby list=420']);
    s.ha!.setHost(0, 'down');
    s.ha!.setHost(1, 'down');
    expect((await call(s.origin, '/api/v1/health')).status).toBe(503);
  });

  it('a scenario schedules failovers on the clock; the admin endpoint shows and changes the hosts', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const scenario = parseScenario('ha:\n  hosts: 2\n  failovers:\n    - { start: 1m, gap: 5s }\n', 'ha.yaml');
    const s = await sim({ clock, scenario });
    await clock.advance(60_000);
    expect(s.ha!.states()).toEqual(['standby', 'standby']);
    await clock.advance(5_000);
    expect(s.ha!.states()).toEqual(['standby', 'primary']);
    const r = await call(s.origin, '/_sim/ha/hosts/1', {
      method: 'PATCH',
      headers: JSON_BODY,
      body: '{"state":"down"}',
    });
    expect((r.json as { hosts: { state: string }[] }).hosts.map((h) => h.state)).toEqual(['standby', 'down']);
    const bad = await call(s.origin, '/_sim/ha/hosts/7', {
      method: 'PATCH',
      headers: JSON_BODY,
      body: '{"state":"down"}',
    });
    expect([bad.status, bad.json.error]).toEqual([400, 'ha: no host 7 (hosts are 0 to 1)']);
    expect(() => parseScenario('ha:\n  hosts: 1\n', 'ha.yaml')).toThrow(/^ha\.yaml: ha\.hosts: /);
  });

  it('without ha, there is one address and no /_sim/ha', async () => {
    const s = await sim({});
    expect(s.ha).toBeUndefined();
    expect((await call(s.origin, '/_sim/ha')).status).toBe(404);
  });
});
