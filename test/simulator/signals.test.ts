/**
 * Scenario, admin and Fleet controls for the operator signals of issue 12: drift, undeployed commits, restarts,
 * Edge upgrade states, the listing's status, incompatible workers, a standby leader, workspace states, git settings
 * with and without a remote, packs per group, and search jobs that complete, fail or hang.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseScenario, startSimulator } from '@cribl-exporter/simulator';
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
  const s = await startSimulator({ nodes: 30, clock, ...opts });
  sims.push(s);
  return { s, clock };
}

const api = (p: string): string => `/api/v1${p}`;
const json = (method: string, body: unknown) => ({ method, headers: JSON_BODY, body: JSON.stringify(body) });
const example = (file: string) =>
  parseScenario(readFileSync(join(import.meta.dirname, '../../examples/scenarios', file), 'utf8'), file);

async function get(s: Simulator, path: string): Promise<Item> {
  const r = await call(s.origin, api(path), { token: s.token });
  expect(r.status, path).toBe(200);
  return r.json as Item;
}

/** Listing entries of both products and the deployed configVersion of every group, as an exporter sees them. */
async function view(s: Simulator): Promise<{ entries: Item[]; deployed: Map<string, string> }> {
  const entries = [
    ...(await get(s, '/products/stream/workers')).items,
    ...(await get(s, '/products/edge/workers')).items,
  ] as Item[];
  const groups = [
    ...(await get(s, '/products/stream/groups')).items,
    ...(await get(s, '/products/edge/groups')).items,
  ] as Item[];
  return { entries, deployed: new Map(groups.map((g) => [String(g.id), String(g.configVersion)])) };
}

describe('examples/scenarios/operator-signals.yaml', () => {
  it('drift: exactly 3 nodes run an older commit than their group deployed (short hashes in /version)', async () => {
    const { s } = await sim({ scenario: example('operator-signals.yaml') });
    const { entries, deployed } = await view(s);
    const drifted = entries.filter((e) => e.info.cribl.config.version !== deployed.get(e.group));
    expect(drifted).toHaveLength(3);
    expect(drifted.filter((e) => e.group === 'prod-east').length).toBeGreaterThanOrEqual(1);
    for (const e of drifted) {
      const commits = (await get(s, `/m/${e.group}/version`)).items as Item[];
      const at = commits.findIndex((c) => String(c.hash).startsWith(e.info.cribl.config.version));
      const deployedAt = commits.findIndex((c) => String(c.hash).startsWith(deployed.get(e.group)!));
      expect(e.info.cribl.config.version).toMatch(/^[0-9a-f]{7}$/);
      expect(at).toBe(deployedAt + 1);
    }
    // Drifted nodes are connected and count as deploying.
    const group = ((await get(s, '/products/stream/groups')).items as Item[]).find((g) => g.id === 'prod-east')!;
    expect(group.deployingWorkerCount).toBe(drifted.filter((e) => e.group === 'prod-east').length);
  });

  it('undeployed commits: prod-east has 2 commits newer than its deployed configVersion, newest first', async () => {
    const { s } = await sim({ scenario: example('operator-signals.yaml') });
    const { deployed } = await view(s);
    const commits = (await get(s, '/m/prod-east/version')).items as Item[];
    expect(commits.findIndex((c) => String(c.hash).startsWith(deployed.get('prod-east')!))).toBe(2);
    expect(commits[0]!.refs).toBe('HEAD -> master');
    expect(commits.map((c) => String(c.date))).toEqual([...commits.map((c) => String(c.date))].sort().reverse());
    expect(commits.every((c) => /^[0-9a-f]{40}$/.test(String(c.hash)))).toBe(true);
    expect(s.fleet.undeployedCommits('prod-east')).toBe(2);
    expect(s.fleet.undeployedCommits('default')).toBe(0);
    const other = (await get(s, '/m/default/version')).items as Item[];
    expect(String(other[0]!.hash).slice(0, 7)).toBe(deployed.get('default'));
  });

  it('restart, upgrade states, listing status and incompatible workers', async () => {
    const { s, clock } = await sim({ scenario: example('operator-signals.yaml') });
    const { entries } = await view(s);
    const restarted = entries.filter((e) => e.info.cribl.startTime === clock.now());
    expect(restarted).toHaveLength(1);
    const h = await get(s, `/w/${encodeURIComponent(String(restarted[0]!.id))}/health`);
    expect(h.startTime).toBe(clock.now());

    const upgrades = entries.filter((e) => e.nodeUpgradeStatus).map((e) => e.nodeUpgradeStatus as Item);
    expect(upgrades.filter((u) => u.state === 0 && u.active === 0)).toHaveLength(1);
    expect(upgrades.filter((u) => u.state === 2 && u.failed === 0)).toHaveLength(1);
    expect(upgrades.filter((u) => u.state === 3 && u.skipped === 0)).toHaveLength(1);
    expect(entries.filter((e) => e.nodeUpgradeStatus).every((e) => e.info.cribl.distMode === 'managed-edge')).toBe(
      true,
    );

    const degraded = entries.filter((e) => e.status === 'degraded');
    expect(degraded).toHaveLength(1);
    expect(
      (await call(s.origin, api(`/w/${encodeURIComponent(String(degraded[0]!.id))}/health`), { token: s.token }))
        .status,
    ).toBe(200);

    const edgeGroups = (await get(s, '/products/edge/groups')).items as Item[];
    expect(edgeGroups.find((g) => g.id === 'retail-stores')!.incompatibleWorkerCount).toBe(2);
    expect(edgeGroups.find((g) => g.id === 'factories')!.incompatibleWorkerCount).toBe(0);
  });

  it('git settings with a remote, version/info, workspaces in every state, the standby window', async () => {
    const { s, clock } = await sim({ scenario: example('operator-signals.yaml') });
    const git = (await get(s, '/system/settings/git-settings')).items[0];
    expect(git).toMatchObject({
      remote: 'git@github.com:acme/cribl-config.git',
      branch: 'main',
      autoAction: 'commitPush',
    });
    expect((await get(s, '/m/default/version/info')).items[0]).toEqual({
      versioning: true,
      remote: 'git@github.com:acme/cribl-config.git',
    });
    const ws = await call(s.origin, '/v1/organizations/acme/workspaces', { token: s.token });
    expect((ws.json.items as Item[]).map((w) => String(w.state))).toEqual([
      'Active',
      'Provisioning',
      'Inactive',
      'Failed',
      'Deprovisioning',
    ]);
    await clock.advance(5 * 60_000);
    const h = await call(s.origin, api('/health'));
    expect(h.status).toBe(420);
    expect(h.json).toMatchObject({ status: 'standby', role: 'standby' });
    await clock.advance(60_000);
    expect((await call(s.origin, api('/health'))).status).toBe(200);
  });

  it('search jobs complete, fail or hang by query; hung ones can be canceled', async () => {
    const { s, clock } = await sim({ scenario: example('operator-signals.yaml') });
    const create = async (query: string): Promise<string> => {
      const r = await call(s.origin, api('/m/default_search/search/jobs'), {
        token: s.token,
        ...json('POST', { query, earliest: '-1h', latest: 'now' }),
      });
      expect(r.json.items[0].status).toBe('new');
      return String(r.json.items[0].id);
    };
    const ok = await create('cribl dataset="a"');
    const bad = await create('cribl dataset="fail"');
    const hung = await create('cribl dataset="hang"');
    const status = async (id: string): Promise<string> =>
      String((await get(s, `/m/default_search/search/jobs/${id}`)).items[0].status);
    expect(await status(ok)).toBe('queued');
    await clock.advance(1_000);
    expect(await status(ok)).toBe('running');
    await clock.advance(10_000);
    expect([await status(ok), await status(bad), await status(hung)]).toEqual(['completed', 'failed', 'running']);
    expect((await get(s, `/m/default_search/search/jobs/${ok}/status`)).eventsFound).toBe(20);
    await clock.advance(3_600_000);
    expect(await status(hung)).toBe('running');
    expect(
      (await call(s.origin, api(`/m/default_search/search/jobs/${hung}/cancel`), { method: 'POST', token: s.token }))
        .json.items[0].status,
    ).toBe('canceled');
    expect(s.searchJob(hung)!.status).toBe('canceled');
    expect((await call(s.origin, api('/m/default_search/search/jobs/nope'), { token: s.token })).status).toBe(404);
  });
});

describe('search results and job lifecycle', () => {
  it('results come as NDJSON with a header line, partial while running, paged with offset/limit', async () => {
    const { s, clock } = await sim();
    s.setFaults({ search: { queueFor: 0, runFor: '10s', events: 8 } });
    const r = await call(s.origin, api('/m/default_search/search/jobs'), {
      token: s.token,
      ...json('POST', { query: 'cribl x', sampleRate: 0.5 }),
    });
    const id = String(r.json.items[0].id);
    await clock.advance(5_000);
    const partial = await call(s.origin, api(`/m/default_search/search/jobs/${id}/results`), { token: s.token });
    const [head, ...events] = partial.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Item);
    expect(head).toMatchObject({
      isFinished: false,
      job: { id, status: 'running' },
      persistedEventCount: 4,
      totalEventCount: 4,
    });
    expect(events).toHaveLength(4);
    await clock.advance(5_000);
    const page = await call(s.origin, api(`/m/default_search/search/jobs/${id}/results?offset=6&limit=5`), {
      token: s.token,
    });
    const lines = page.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Item);
    expect(lines[0]).toMatchObject({
      isFinished: true,
      offset: 6,
      limit: 5,
      totalEventCount: 8,
      job: { status: 'completed' },
    });
    expect(lines.slice(1).map((e) => String(e._raw))).toEqual([
      `simulated event 7 for ${id}`,
      `simulated event 8 for ${id}`,
    ]);
  });

  it('400 without a query or for PATCH of other fields; DELETE removes a job (then 404)', async () => {
    const { s } = await sim();
    const jobs = api('/m/default_search/search/jobs');
    expect((await call(s.origin, jobs, { token: s.token, ...json('POST', { earliest: '-1h' }) })).status).toBe(400);
    expect(
      (await call(s.origin, jobs, { token: s.token, ...json('POST', { query: 'q', sampleRate: 2 }) })).status,
    ).toBe(400);
    const id = String(
      (await call(s.origin, jobs, { token: s.token, ...json('POST', { query: 'q' }) })).json.items[0].id,
    );
    expect(
      (await call(s.origin, `${jobs}/${id}`, { token: s.token, ...json('PATCH', { query: 'other' }) })).status,
    ).toBe(400);
    expect(
      (await call(s.origin, `${jobs}/${id}`, { token: s.token, ...json('PATCH', { status: 'canceled' }) })).json
        .items[0].status,
    ).toBe('canceled');
    expect((await call(s.origin, `${jobs}/${id}`, { method: 'DELETE', token: s.token })).status).toBe(200);
    expect((await call(s.origin, `${jobs}/${id}`, { token: s.token })).status).toBe(404);
    expect((await call(s.origin, api('/m/default/search/jobs'), { token: s.token })).status).toBe(404);
  });
});

describe('Fleet API and admin controls', () => {
  it('commitGroup, deployGroup({commit:false}), drift(), setUpgradeStatus(), setListingStatus()', async () => {
    const { s } = await sim();
    const before = s.fleet.groups('stream').find((g) => g.id === 'default')!.configVersion!;
    const hash = s.fleet.commitGroup('default', { message: 'pending change' });
    expect(hash).toMatch(/^[0-9a-f]{40}$/);
    expect(s.fleet.groups('stream').find((g) => g.id === 'default')!.configVersion).toBe(before);
    expect(s.fleet.undeployedCommits('default')).toBe(1);
    expect(s.fleet.deployGroup('default', { commit: false })).toBe(hash.slice(0, 7));
    expect(s.fleet.undeployedCommits('default')).toBe(0);

    const node = s.fleet.nodes().find((n) => n.group === 'default')!;
    expect(node.configVersion).toBe(hash.slice(0, 7));
    expect(s.fleet.drift(node.id)).toBe(before);
    expect(s.fleet.node(node.id)!.entry.info.cribl.config.version).toBe(before);
    expect(() => s.fleet.drift(node.id, 99)).toThrow(/no commit 99 older/);

    const edge = s.fleet.nodes().find((n) => n.product === 'edge')!;
    s.fleet.setUpgradeStatus(edge.id, { state: 'failed', reason: 1 });
    expect(s.fleet.node(edge.id)!.entry.nodeUpgradeStatus).toEqual({
      state: 2,
      timestamp: expect.any(Number),
      failed: 1,
    });
    expect(() => s.fleet.setUpgradeStatus(edge.id, { state: 'skipped', reason: 9 })).toThrow(/0\.\.3/);
    expect(() => s.fleet.setUpgradeStatus(node.id, { state: 1 })).toThrow(/not an Edge node/);
    s.fleet.setListingStatus(edge.id, 'degraded');
    expect(s.fleet.node(edge.id)!.listingStatus).toBe('degraded');
    s.fleet.setListingStatus(edge.id, null);
    expect(s.fleet.node(edge.id)!.entry.status).toBe('healthy');
  });

  it('admin: node signals, group commit/deploy/incompatible/config, git, state reset, search, tokens', async () => {
    const { s } = await sim();
    const edge = s.fleet.nodes().find((n) => n.product === 'edge')!;
    const node = await call(
      s.origin,
      `/_sim/nodes/${edge.id}`,
      json('PATCH', { drift: 1, status: 'degraded', upgrade: { state: 'active', reason: 2 } }),
    );
    expect(node.status).toBe(200);
    expect(node.json).toMatchObject({ status: 'degraded', upgrade: { state: 0, active: 2 } });
    expect(node.json.configVersion).not.toBe(s.fleet.groups('edge').find((g) => g.id === edge.group)!.configVersion);

    const commit = await call(s.origin, '/_sim/groups/prod-west/commit', json('POST', { count: 3 }));
    expect(commit.json).toMatchObject({ group: 'prod-west', undeployedCommits: 3, commits: expect.any(Array) });
    expect(
      (await call(s.origin, '/_sim/groups/prod-west/deploy', json('POST', { commit: false }))).json.configVersion,
    ).toBe(String(commit.json.commits[2]).slice(0, 7));
    expect(
      (await call(s.origin, '/_sim/groups/factories', json('PATCH', { incompatibleWorkerCount: 4 }))).json
        .incompatibleWorkerCount,
    ).toBe(4);

    const put = await call(
      s.origin,
      '/_sim/groups/prod-east/config',
      json('PUT', {
        packs: [{ id: 'p1', version: '1.0.0', pipelines: [{ id: 'main', conf: { functions: [] } }] }],
        outputs: [{ id: 's3', type: 's3', bucket: 'b', stagePath: '/tmp' }],
      }),
    );
    expect(put.json).toMatchObject({
      packs: [{ id: 'p1', source: '', pipelines: [{ id: 'main' }] }],
      outputs: [{ id: 's3' }],
    });
    expect((await get(s, '/m/prod-east/p/p1/pipelines')).items).toEqual([{ id: 'main', conf: { functions: [] } }]);
    await call(s.origin, api('/m/prod-east/system/outputs/s3'), { method: 'DELETE', token: s.token });
    expect(s.outputs('prod-east')).toEqual([]);
    await call(s.origin, '/_sim/state/reset', { method: 'POST' });
    expect(s.outputs('prod-east')).toEqual([{ id: 's3', type: 's3', bucket: 'b', stagePath: '/tmp' }]);

    expect((await call(s.origin, '/_sim/git')).json.remote).toBe('');
    await call(s.origin, '/_sim/git', json('PUT', { remote: 'https://git.example/cfg.git' }));
    expect((await get(s, '/m/default/version/info')).items[0].remote).toBe('https://git.example/cfg.git');
    s.setGitSettings({ remote: '' });
    expect((await get(s, '/m/default/version/info')).items[0].remote).toBe(false);

    await call(s.origin, api('/m/default_search/search/jobs'), { token: s.token, ...json('POST', { query: 'q' }) });
    expect((await call(s.origin, '/_sim/search/jobs')).json.items).toHaveLength(1);
    expect(
      (await call(s.origin, '/_sim/tokens', json('POST', { token: 'added-token-1', access: 'read-only' }))).status,
    ).toBe(201);
    expect((await call(s.origin, api('/m/default/packs'), { token: 'added-token-1' })).status).toBe(200);
  });

  it('rejects scenario groups that do not exist, and bad group content, with one line', async () => {
    await expect(
      startSimulator({ scenario: parseScenario('groups: { nope: { drift: 1 } }', 'x.yaml') }),
    ).rejects.toThrow(/^scenario: groups: unknown group or fleet "nope" \(the fleet has default, prod-east, /);
    expect(() => parseScenario('groups: { default: { outputs: [{ id: a, type: webhook }] } }', 'x.yaml')).toThrow(
      /needs url or urls/,
    );
    expect(() => parseScenario('fleet: { upgrades: { broken: 1 } }', 'x.yaml')).toThrow(/fleet\.upgrades/);
  });

  it('standby-leader.yaml: the leader answers /health 420 (no auth) from the start', async () => {
    const { s } = await sim({ scenario: example('standby-leader.yaml') });
    const h = await call(s.origin, api('/health'));
    expect(h.status).toBe(420);
    expect(h.json).toEqual({
      status: 'standby',
      startTime: expect.any(Number),
      role: 'standby',
      overlay: { state: 'inactive' },
    });
    expect((await call(s.origin, api('/products/stream/workers'), { token: s.token })).status).toBe(420);
  });

  it('overlay appears from 4.18.2 on, like role from 4.17', async () => {
    const bodies: Record<string, Item> = {};
    for (const v of ['4.16', '4.18.1', '4.18.2', '4.19']) {
      const { s } = await sim({ leaderVersion: v, nodes: 3 });
      bodies[v] = {
        leader: (await call(s.origin, api('/health'))).json,
        node: await get(s, `/w/${s.fleet.nodes()[0]!.id}/health`),
      };
    }
    expect(Object.keys(bodies['4.16']!.leader)).toEqual(['status', 'startTime']);
    expect(Object.keys(bodies['4.18.1']!.leader)).toEqual(['status', 'startTime', 'role']);
    expect(bodies['4.18.2']!.leader.overlay).toEqual({ state: 'inactive' });
    expect(bodies['4.19']!.node).toEqual({
      status: 'healthy',
      startTime: expect.any(Number),
      overlay: { state: 'inactive' },
    });
    expect(bodies['4.18.1']!.node.overlay).toBeUndefined();
  });
});
