import { describe, expect, it } from 'vitest';
import type { Simulator } from '@cribl-exporter/simulator';
import { check, sim } from './helpers.js';

describe('cribl-exporter check: the Cribl.Cloud management plane', () => {
  const cloud = (s: Simulator, organization = 'happy-org'): string[] => [
    '--cloud.discover-workspaces',
    '--cloud.organization',
    organization,
    '--cloud.client-id',
    'sim-client',
    '--cloud.token-url',
    s.oauthTokenUrl,
    '--cloud.management-url',
    s.managementUrl,
  ];
  // The simulated workspace's leader is the simulator itself, over http.
  const workspaceUrl = (ws: { leaderFQDN: string }): string => `http://${ws.leaderFQDN}/api/v1`;

  it('lists the workspaces and checks each Active one as a leader', async () => {
    const s = await sim({ nodes: 4, organizationId: 'happy-org' });
    const fqdn = new URL(s.origin).host;
    s.setWorkspaces([
      { workspaceId: 'main', region: 'us-west-2', leaderFQDN: fqdn, state: 'Active' },
      { workspaceId: 'old', region: 'us-west-2', leaderFQDN: fqdn, state: 'Inactive' },
    ]);
    const r = await check(cloud(s), { CRIBL_CLIENT_SECRET: 'sim-secret' }, { workspaceUrl });
    expect(r.code, r.out.join('\n')).toBe(0);
    const mgmt = r.results.filter((x) => x.target === 'management');
    expect(mgmt.map((x) => `${x.check}:${x.status}`)).toEqual(['auth:ok', 'workspaces:ok']);
    expect(r.line('workspaces').message).toBe('1 Active workspace: main');
    expect(r.results.filter((x) => x.target === 'main' && x.check === 'fleet')).toHaveLength(2);
    expect(r.out.join('')).not.toContain('sim-secret');
  });

  it('another organization (403) and a wrong client secret', async () => {
    const s = await sim({ nodes: 1, organizationId: 'happy-org' });
    const r = await check(cloud(s, 'other-org'), { CRIBL_CLIENT_SECRET: 'sim-secret' }, { workspaceUrl });
    expect(r.line('workspaces')).toMatchObject({ status: 'fail' });
    expect(r.line('workspaces').message).toMatch(/HTTP 403$/);
    expect(r.code).toBe(1);
    const bad = await check(cloud(s), { CRIBL_CLIENT_SECRET: 'wrong' }, { workspaceUrl });
    expect(bad.results.find((x) => x.target === 'management' && x.check === 'auth')?.status).toBe('fail');
    expect(bad.code).toBe(1);
  });
});
