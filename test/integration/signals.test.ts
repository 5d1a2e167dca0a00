/**
 * Issue 12 against the simulated leader, node and group signals: each scenario is driven through the simulator's
 * controls and the exact values are checked for every node or group, as is what the leader pays for them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP_FAMILIES, NODE_FAMILIES } from '../helpers/render.js';
import { VERSION_PAGE } from '../../src/collectors/group-version/index.js';
import { startSimulator, type SimNode, type Simulator } from '@cribl-exporter/simulator';
import type { Sample } from '../helpers/parse-metrics.js';
import { startTestExporter, type TestExporter } from '../helpers/test-exporter.js';

let sim: Simulator;
let exp: TestExporter;

beforeAll(async () => {
  sim = await startSimulator({ nodes: 60, seed: 4 });
  // Health cycles of 1 s (the shortest interval) keep each scenario's cycle short.
  exp = await startTestExporter(sim, ['--health.interval', '1s']);
  await cycle();
});

afterAll(async () => {
  await exp?.app.close();
  await sim?.close();
});

/** One discovery and one health cycle, then a scrape. */
async function cycle(): Promise<Sample[]> {
  await exp.run('discovery');
  await exp.run('health');
  return (await exp.scrape()).samples;
}

/** node_id → value of a per-node family (the samples carrying `labels`). */
function perNode(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) {
    if (s.name !== name || !Object.entries(labels).every(([k, v]) => s.labels[k] === v)) continue;
    out.set(s.labels.node_id!, s.value);
  }
  return out;
}

/** group → value of a per-group family. */
function perGroup(samples: readonly Sample[], name: string): Map<string, number> {
  return new Map(samples.filter((s) => s.name === name).map((s) => [s.labels.group!, s.value]));
}

/** Healthy connected nodes of a group, in the simulator's order. */
const healthyIn = (group: string): SimNode[] =>
  sim.fleet.nodes().filter((n) => n.group === group && n.health === 'healthy' && !n.disconnected);

/** The deployed short hash of a group, as the leader lists it. */
function configOf(group: string): string {
  for (const product of ['stream', 'edge'] as const) {
    const g = sim.fleet.groups(product).find((x) => x.id === group);
    if (g?.configVersion) return g.configVersion;
  }
  throw new Error(`no group ${group}`);
}

describe('config drift and deploys', () => {
  it('exactly the drifted nodes have cribl_node_config_outdated 1, every other node 0', async () => {
    const drifted = [...healthyIn('prod-east').slice(0, 2), ...healthyIn('retail-stores').slice(0, 1)];
    for (const n of drifted) sim.fleet.drift(n.id);
    const outdated = perNode(await cycle(), 'cribl_node_config_outdated');
    expect(outdated.size).toBe(sim.fleet.nodes().length);
    const ones = [...outdated].filter(([, v]) => v === 1).map(([id]) => id);
    expect(ones.sort()).toEqual(drifted.map((n) => n.id).sort());
    for (const n of drifted) sim.fleet.setConfigVersion(n.id, configOf(n.group));
    const after = perNode(await cycle(), 'cribl_node_config_outdated');
    expect([...after.values()].every((v) => v === 0)).toBe(true);
  });

  it('a deploy makes its whole group outdated (and deploying) until the nodes have it, no other group', async () => {
    const before = configOf('prod-west');
    const deployed = sim.fleet.deployGroup('prod-west', { rollout: false });
    expect(deployed).not.toBe(before);
    const samples = await cycle();
    const outdated = perNode(samples, 'cribl_node_config_outdated');
    const members = sim.fleet.nodes().filter((n) => n.group === 'prod-west');
    for (const n of sim.fleet.nodes()) expect(outdated.get(n.id), n.id).toBe(n.group === 'prod-west' ? 1 : 0);
    const connected = members.filter((n) => !n.disconnected).length;
    expect(perGroup(samples, 'cribl_group_deploying_workers').get('prod-west')).toBe(connected);
    // The rollout reaches every node.
    for (const n of members) sim.fleet.setConfigVersion(n.id, deployed);
    const done = await cycle();
    expect([...perNode(done, 'cribl_node_config_outdated').values()].every((v) => v === 0)).toBe(true);
    expect(perGroup(done, 'cribl_group_deploying_workers').get('prod-west')).toBe(0);
  });
});

describe('commits not deployed', () => {
  it('counts commits above the deployed one per group; the page size (at least) when it is not on it', async () => {
    sim.fleet.commitGroup('default');
    sim.fleet.commitGroup('default');
    sim.fleet.commitGroup('factories');
    let undeployed = perGroup(await cycle(), 'cribl_group_undeployed_commits');
    expect(Object.fromEntries(undeployed)).toEqual({
      default: 2,
      'prod-east': 0,
      'prod-west': 0,
      default_fleet: 0,
      'retail-stores': 0,
      factories: 1,
    });
    for (let i = 0; i < VERSION_PAGE + 5; i++) sim.fleet.commitGroup('prod-east');
    undeployed = perGroup(await cycle(), 'cribl_group_undeployed_commits');
    expect(sim.fleet.undeployedCommits('prod-east')).toBe(VERSION_PAGE + 5);
    expect(undeployed.get('prod-east')).toBe(VERSION_PAGE);
    sim.fleet.deployGroup('default', { commit: false });
    sim.fleet.deployGroup('prod-east', { commit: false });
    sim.fleet.deployGroup('factories', { commit: false });
    const samples = await cycle();
    expect([...perGroup(samples, 'cribl_group_undeployed_commits').values()]).toEqual([0, 0, 0, 0, 0, 0]);
    const newest = sim.fleet.commits('prod-east')![0]!.date!;
    expect(perGroup(samples, 'cribl_group_last_commit_timestamp_seconds').get('prod-east')).toBe(
      Date.parse(newest.replace(' ', 'T').replace(' +0000', 'Z')) / 1000,
    );
  });

  it('reports incompatibleWorkerCount per group', async () => {
    sim.fleet.setIncompatibleWorkerCount('factories', 2);
    const incompatible = perGroup(await cycle(), 'cribl_group_incompatible_workers');
    expect(incompatible.get('factories')).toBe(2);
    expect(incompatible.get('default')).toBe(0);
    sim.fleet.setIncompatibleWorkerCount('factories', 0);
  });
});

describe('restarts, upgrades and the leader’s view of each node', () => {
  it('counts restarts per node from the listing; the first sighting is none', async () => {
    const [a, b] = healthyIn('default');
    sim.fleet.restart(a!.id);
    expect(perNode(await cycle(), 'cribl_node_restarts_total').get(a!.id)).toBe(1);
    sim.fleet.restart(a!.id);
    sim.fleet.restart(b!.id);
    const restarts = perNode(await cycle(), 'cribl_node_restarts_total');
    for (const n of sim.fleet.nodes())
      expect(restarts.get(n.id), n.id).toBe(n.id === a!.id ? 2 : n.id === b!.id ? 1 : 0);
  });

  it('a failed Edge upgrade shows state="failed" 1; only nodes reporting nodeUpgradeStatus have states', async () => {
    const edge = healthyIn('default_fleet')[0]!;
    sim.fleet.setUpgradeStatus(edge.id, { state: 'failed' });
    const samples = await cycle();
    const failed = perNode(samples, 'cribl_node_upgrade_status', { state: 'failed' });
    expect(failed.get(edge.id)).toBe(1);
    for (const n of sim.fleet.nodes()) {
      const states = samples.filter((s) => s.name === 'cribl_node_upgrade_status' && s.labels.node_id === n.id);
      const reported = sim.fleet.node(n.id)!.entry.nodeUpgradeStatus;
      if (!reported) {
        expect(states, n.id).toEqual([]);
        continue;
      }
      const name = ['active', 'current', 'failed', 'skipped'][reported.state];
      expect(Object.fromEntries(states.map((s) => [s.labels.state, s.value])), n.id).toEqual({
        active: 0,
        current: 0,
        failed: 0,
        skipped: 0,
        [name!]: 1,
      });
    }
  });

  it('cribl_node_reported_healthy follows the listing status, at no request cost', async () => {
    const [degraded, down] = healthyIn('prod-east');
    sim.fleet.setListingStatus(degraded!.id, 'degraded');
    sim.fleet.setHealth(down!.id, 'unreachable');
    const reported = perNode(await cycle(), 'cribl_node_reported_healthy');
    for (const n of sim.fleet.nodes()) expect(reported.get(n.id), n.id).toBe(n.listingStatus === 'healthy' ? 1 : 0);
    expect(reported.get(degraded!.id)).toBe(0);
    expect(reported.get(down!.id)).toBe(0);
    sim.fleet.setListingStatus(degraded!.id, null);
    sim.fleet.setHealth(down!.id, 'healthy');
  });
});

describe('what it costs', () => {
  it('per discovery: /health, versions per group, git, leader info, bulletins; ≤ 1 health per node', async () => {
    await cycle();
    sim.resetStats();
    await exp.run('discovery');
    const groups = sim.fleet.groups('stream').length + sim.fleet.groups('edge').length;
    const req = sim.stats().requests;
    expect(count('/health')).toBe(1);
    expect(count('/m/{group}/version')).toBe(groups);
    expect(count('/system/settings/git-settings')).toBe(1);
    expect(count('/system/info')).toBe(1);
    expect(count('/system/messages')).toBe(1);
    expect(count('/products/{product}/workers') + count('/products/{product}/groups')).toBe(4);
    expect(Object.keys(req).sort()).toEqual(
      [
        '/health',
        '/m/{group}/version',
        '/products/{product}/groups',
        '/products/{product}/workers',
        '/system/settings/git-settings',
        '/system/info',
        '/system/messages',
      ].sort(),
    );
    sim.resetStats();
    await exp.run('dataflow');
    expect(count('/m/{group}/system/status/outputs')).toBe(groups);
    expect(count('/m/{group}/system/status/inputs')).toBe(groups);
    sim.resetStats();
    await exp.run('health');
    expect(count('/w/{nodeId}/health')).toBeLessThanOrEqual(sim.fleet.nodes().length);
    expect(Object.keys(sim.stats().requests).filter((r) => !r.startsWith('/w/'))).toEqual([]);
  });

  it('series per node grow by 3 at default settings, plus the upgrade state set only where reported', async () => {
    const samples = await cycle();
    const NEW = new Set([
      'cribl_node_config_outdated',
      'cribl_node_reported_healthy',
      'cribl_node_restarts_total',
      'cribl_node_upgrade_status',
      'cribl_node_upgrade_status_timestamp_seconds',
    ]);
    expect(NODE_FAMILIES.filter((f) => NEW.has(f.name))).toHaveLength(NEW.size);
    const added = new Map<string, number>();
    for (const s of samples) if (NEW.has(s.name)) added.set(s.labels.node_id!, (added.get(s.labels.node_id!) ?? 0) + 1);
    const without = sim.fleet.nodes().filter((n) => !n.entry.nodeUpgradeStatus);
    const withUpgrade = sim.fleet.nodes().filter((n) => n.entry.nodeUpgradeStatus);
    expect(without.length).toBeGreaterThan(0);
    expect(withUpgrade.length).toBeGreaterThan(0);
    for (const n of without) expect(added.get(n.id), n.id).toBe(3);
    for (const n of withUpgrade) expect(added.get(n.id), n.id).toBe(3 + 4 + 1);
    // Group families of this issue at default settings: 3 per group (no packs without --collector.packs).
    expect(GROUP_FAMILIES.length).toBeGreaterThan(0);
    const groupNew = [
      'cribl_group_incompatible_workers',
      'cribl_group_undeployed_commits',
      'cribl_group_last_commit_timestamp_seconds',
    ];
    const groups = sim.fleet.groups('stream').length + sim.fleet.groups('edge').length;
    expect(samples.filter((s) => groupNew.includes(s.name))).toHaveLength(3 * groups);
    expect(samples.filter((s) => s.name.startsWith('cribl_group_pack'))).toEqual([]);
  });
});

/** Requests the simulator counted on a route since its last reset. */
function count(route: string): number {
  return Object.values(sim.stats().requests[route] ?? {}).reduce((a, b) => a + b, 0);
}
