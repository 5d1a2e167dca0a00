/** `cribl-exporter check` with HA hosts: each host's health and role, and the host the exporter would use. */
import { describe, expect, it } from 'vitest';
import { check, SECRET, sim } from './helpers.js';

const args = (url: string, hosts: readonly string[]): string[] => [
  '--leader.url',
  url,
  ...hosts.flatMap((h) => ['--leader.ha-url', h]),
];

describe('cribl-exporter check: HA hosts', () => {
  it('direct hosts: each host, and the primary followed when the host given is standby', async () => {
    const s = await sim({ ha: { hosts: 2 } });
    const [a, b] = s.ha!.hosts.map((h) => h.baseUrl) as [string, string];
    const [ha, hb] = [new URL(a).host, new URL(b).host];
    s.ha!.failover(); // host 1 is primary now; --leader.url (host 0) is standby
    const r = await check(args(a, [a, b]), { CRIBL_TOKEN: SECRET });
    expect(r.line('ha', `host ${ha}`)).toMatchObject({ status: 'ok' });
    expect(r.line('ha', `host ${ha}`).message).toMatch(/: standby, role standby, up since /);
    expect(r.line('ha', `host ${hb}`).message).toMatch(/: healthy, role primary, up since /);
    expect(r.line('ha', 'requests go to')).toMatchObject({
      status: 'ok',
      message: `requests go to ${hb} (the primary)`,
    });
    // Every other check went to the primary: the leader is healthy and the fleet is listed.
    expect(r.line('health').status).toBe('ok');
    expect(r.line('fleet', 'stream').status).toBe('ok');
    expect(r.code).toBe(0);
  });

  it('behind a load balancer: names it and the primary; a host that does not answer is a warning', async () => {
    const s = await sim({ ha: { hosts: 2, loadBalancer: true } });
    const hosts = s.ha!.hosts.map((h) => h.baseUrl);
    s.ha!.setHost(1, 'down');
    const r = await check(args(s.baseUrl, hosts), { CRIBL_TOKEN: SECRET });
    const [ha, hb] = hosts.map((h) => new URL(h).host);
    expect(r.line('ha', `host ${hb}`)).toMatchObject({
      status: 'warn',
      message: `host ${hb}: GET /health does not answer (connect)`,
    });
    expect(r.line('ha', 'requests go to').message).toBe(
      `requests go to the load balancer ${new URL(s.baseUrl).host}; the primary is ${ha}`,
    );
    expect(r.code).toBe(0);
  });

  it('no primary, or two: a problem', async () => {
    const s = await sim({ ha: { hosts: 2 } });
    const hosts = s.ha!.hosts.map((h) => h.baseUrl);
    s.ha!.setHost(1, 'primary');
    let r = await check(args(hosts[0]!, hosts), { CRIBL_TOKEN: SECRET });
    expect(r.line('ha', 'are primary')).toMatchObject({
      status: 'fail',
      fix: 'stop the host that should not be primary (split brain)',
    });
    expect(r.code).toBe(1);
    s.ha!.setHost(0, 'standby');
    s.ha!.setHost(1, 'standby');
    r = await check(args(hosts[0]!, hosts), { CRIBL_TOKEN: SECRET });
    expect(r.line('ha', 'no HA host is primary').status).toBe('fail');
    expect(r.code).toBe(1);
  });
});
