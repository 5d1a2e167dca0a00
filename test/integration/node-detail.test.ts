/**
 * Issue 51, node detail levels, against the simulated leader on one fake clock (test/helpers/fake-time-exporter.ts):
 * for each level pinned with the flags, the per-node families present and absent (their HELP and TYPE too), and the
 * per-group aggregates exact against the fleet the test set up in the simulator (nodes by state, by health, by
 * version, drifted, silent, upgrade states); then `auto` across fleet-size thresholds (made small for the test): the
 * per-node series of the product that crossed one leave at the discovery that crossed it and come back when it
 * shrinks, the other product's stay, and the aggregates are there at every scrape, exact once the listing settled.
 */
import { spawnSync } from 'node:child_process';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimNode, type Simulator } from '@cribl-exporter/simulator';
import type { Product } from '@cribl-exporter/api/products';
import type { NodeDetail } from '../../src/collectors/detail.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeTimeTimeouts, startFakeTimeExporter, type FakeTimeExporter } from '../helpers/fake-time-exporter.js';
import { parseSamples, type Sample } from '../helpers/parse-metrics.js';

fakeTimeTimeouts();

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

const ARGS = ['--discovery.interval', '5s', '--health.interval', '5s'];

/** The per-node families kept at `basic`. */
const BASIC = [
  'cribl_node_connected',
  'cribl_node_health_last_success_timestamp_seconds',
  'cribl_node_health_up',
  'cribl_node_info',
  'cribl_node_last_heartbeat_timestamp_seconds',
];

/** The per-group aggregates (every level). */
const AGGREGATES = [
  'cribl_group_nodes',
  'cribl_group_nodes_health',
  'cribl_group_nodes_by_version',
  'cribl_group_nodes_config_outdated',
  'cribl_group_nodes_silent',
  'cribl_group_nodes_upgrade_status',
];

const SILENT_MS = 3 * 60_000;

/** The body as served, and its samples. */
async function body(exp: FakeTimeExporter): Promise<{ text: string; samples: Sample[] }> {
  await exp.app.body.rebuild();
  const text = await (await request(exp.app.metricsUrl)).body.text();
  return { text, samples: parseSamples(text) };
}

/** Names of the families with a sample of a node of `product`. */
function perNode(samples: readonly Sample[], product: Product): string[] {
  const names = samples.filter((s) => s.labels.node_id !== undefined && s.labels.product === product);
  return [...new Set(names.map((s) => s.name))].sort();
}

/** The aggregates' samples as `name{product,group,label} value`, sorted. */
function aggregates(samples: readonly Sample[]): string[] {
  return samples
    .filter((s) => AGGREGATES.includes(s.name))
    .map((s) => {
      const { product, group, state, status, version } = s.labels;
      const own = state ?? status ?? version;
      return `${s.name}{${product},${group}${own === undefined ? '' : `,${own}`}} ${s.value}`;
    })
    .sort();
}

const shortHash = (v: string): string => v.slice(0, 7);

/** The aggregates as the simulator's fleet says they are at `nowMs`, in the shape of `aggregates`. */
function truth(sim: Simulator, nowMs: number): string[] {
  const out: string[] = [];
  for (const product of ['stream', 'edge'] as const) {
    for (const g of sim.fleet.groups(product)) {
      const nodes = sim.fleet.nodes().filter((n) => n.product === product && n.group === g.id);
      const at = `${product},${g.id}`;
      const count = (name: string, own: string | undefined, ok: (n: SimNode) => boolean): void => {
        out.push(`${name}{${at}${own === undefined ? '' : `,${own}`}} ${nodes.filter(ok).length}`);
      };
      count('cribl_group_nodes', 'connected', (n) => !n.disconnected);
      count('cribl_group_nodes', 'disconnected', (n) => n.disconnected);
      const health = (n: SimNode): string =>
        n.disconnected || n.health === 'unreachable' ? 'unreachable' : n.health.replace(' ', '_');
      for (const status of ['healthy', 'shutting_down', 'standby', 'unreachable', 'unknown']) {
        count('cribl_group_nodes_health', status, (n) => health(n) === status);
      }
      for (const version of new Set(nodes.map((n) => n.entry.info.cribl.version ?? ''))) {
        count('cribl_group_nodes_by_version', version, (n) => (n.entry.info.cribl.version ?? '') === version);
      }
      count('cribl_group_nodes_config_outdated', undefined, (n) => shortHash(n.configVersion) !== g.configVersion);
      count(
        'cribl_group_nodes_silent',
        undefined,
        (n) => !n.disconnected && nowMs - (n.entry.lastMsgTime ?? nowMs) > SILENT_MS,
      );
      ['active', 'current', 'failed', 'skipped'].forEach((state, i) => {
        count('cribl_group_nodes_upgrade_status', state, (n) => n.upgrade?.state === i);
      });
    }
  }
  return out.sort();
}

/**
 * A fleet with something of everything, told to the simulator: disconnected nodes, connected nodes whose heartbeats
 * stalled (silent after 3 minutes), other Cribl versions, config drift, every health answer, Edge upgrade states.
 */
async function startFleet(seed: number): Promise<{ clock: FakeClock; sim: Simulator }> {
  const clock = new FakeClock();
  const sim = await startSimulator({ nodes: 24, seed, clock });
  closers.push(() => sim.close());
  const f = sim.fleet;
  const stream = f.nodes().filter((n) => n.product === 'stream');
  const edge = f.nodes().filter((n) => n.product === 'edge');
  for (const n of [stream[0], edge[0]]) f.setDisconnected(n!.id, true);
  for (const n of [stream[1], edge[1], edge[2]]) f.setSilent(n!.id, n!.lastMsgTime);
  for (const n of [stream[2], edge[3], edge[4]]) f.setCriblVersion(n!.id, '4.12.1');
  for (const n of [stream[3], edge[5]]) f.drift(n!.id);
  f.setHealth(stream[4]!.id, 'unreachable');
  f.setHealth(stream[5]!.id, 'shutting down');
  f.setHealth(edge[6]!.id, 'standby');
  f.setUpgradeStatus(edge[3]!.id, { state: 'failed', reason: 1 });
  f.setUpgradeStatus(edge[4]!.id, { state: 'active', reason: 0 });
  return { clock, sim };
}

describe('node detail levels pinned (--edge.node-detail, --stream.node-detail)', () => {
  it.each<[NodeDetail, readonly string[] | 'all']>([
    ['full', 'all'],
    ['basic', BASIC],
    ['minimal', []],
  ])('%s: the per-node families it keeps, and the aggregates exact', async (level, kept) => {
    const { clock, sim } = await startFleet(51);
    const levelArgs = ['--edge.node-detail', level, '--stream.node-detail', level];
    const exp = await startFakeTimeExporter(sim, clock, [...ARGS, ...levelArgs]);
    closers.push(() => exp.close());
    // Past 3 heartbeat periods of the stalled nodes, and a discovery after it.
    await exp.runFor(200_000, 1000);
    const { text, samples } = await body(exp);

    for (const product of ['stream', 'edge'] as const) {
      const names = perNode(samples, product);
      if (kept === 'all') {
        expect(names).toEqual(expect.arrayContaining([...BASIC, 'cribl_node_cpus', 'cribl_node_healthy']));
        expect(names.length).toBeGreaterThan(15);
      } else expect(names).toEqual(kept);
    }
    // A family left out is left out whole: no HELP or TYPE line without samples.
    for (const family of ['cribl_node_cpus', 'cribl_node_health_status', 'cribl_node_metadata_info']) {
      expect(text.includes(`# HELP ${family} `), family).toBe(level === 'full');
    }
    expect(text.includes('# HELP cribl_node_connected '), 'cribl_node_connected').toBe(level !== 'minimal');
    // promtool-clean at every level (where promtool is installed: test/exposition/promtool.test.ts requires it in CI).
    const promtool = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    if (promtool.error === undefined) expect(`${promtool.stdout}${promtool.stderr}`).toBe('');

    expect(aggregates(samples)).toEqual(truth(sim, clock.now()));
    // The fleet set up has each of these, so exact counts are not zeros by chance.
    const value = (name: string, labels: Record<string, string>): number | undefined =>
      samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
    const sum = (name: string, labels: Record<string, string> = {}): number =>
      samples
        .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        .reduce((n, s) => n + s.value, 0);
    expect(sum('cribl_group_nodes', { state: 'disconnected' })).toBe(2);
    expect(sum('cribl_group_nodes_silent')).toBe(3);
    expect(sum('cribl_group_nodes_by_version', { version: '4.12.1' })).toBe(3);
    expect(sum('cribl_group_nodes_config_outdated')).toBeGreaterThanOrEqual(2);
    expect(sum('cribl_group_nodes_upgrade_status', { state: 'failed' })).toBe(1);
    expect(sum('cribl_group_nodes_health', { status: 'unknown' })).toBe(0);
    for (const product of ['stream', 'edge'] as const) {
      for (const l of ['full', 'basic', 'minimal']) {
        expect(value('cribl_exporter_node_detail', { product, level: l }), `${product} ${l}`).toBe(l === level ? 1 : 0);
      }
    }
  });
});

describe('node detail auto, across fleet-size thresholds', () => {
  it('per-node series leave and come back with the level; the aggregates stay, and restarts only grow', async () => {
    const { clock, sim } = await startFleet(52);
    const size = (p: Product): number => sim.fleet.size(p);
    const startEdge = size('edge');
    // Stream stays at full throughout; Edge crosses into basic, then minimal, then back.
    const fullUpTo = Math.max(size('stream'), startEdge) + 1;
    const basicUpTo = fullUpTo + 3;
    const exp = await startFakeTimeExporter(sim, clock, ARGS, undefined, { autoDetail: { fullUpTo, basicUpTo } });
    closers.push(() => exp.close());

    const restarted = sim.fleet.nodes().find((n) => n.product === 'edge' && !n.disconnected && n.health === 'healthy');
    const groupOfRestarted = restarted!.group;
    const scrapes: Sample[][] = [];
    const added: string[] = [];
    const phase = async (edgeNodes: number): Promise<Sample[]> => {
      while (size('edge') < edgeNodes) added.push(sim.fleet.addNode({ product: 'edge', group: 'retail-stores' }).id);
      while (size('edge') > edgeNodes && added.length > 0) sim.fleet.removeNode(added.pop()!);
      // Four discoveries: the listing settled, the new nodes polled, and a discovery that counted them.
      for (let t = 0; t < 20; t++) {
        await exp.runFor(1000, 250);
        scrapes.push((await body(exp)).samples);
      }
      return scrapes.at(-1)!;
    };

    let s = await phase(startEdge);
    expect(perNode(s, 'edge')).toContain('cribl_node_cpus');
    sim.fleet.restart(restarted!.id);
    s = await phase(startEdge);
    const restarts = (x: readonly Sample[]): number | undefined =>
      x.find((v) => v.name === 'cribl_group_node_restarts_total' && v.labels.group === groupOfRestarted)?.value;
    expect(restarts(s)).toBe(1);
    expect(aggregates(s)).toEqual(truth(sim, clock.now()));

    s = await phase(fullUpTo + 1);
    expect(perNode(s, 'edge')).toEqual(BASIC);
    expect(perNode(s, 'stream')).toContain('cribl_node_cpus');
    expect(aggregates(s)).toEqual(truth(sim, clock.now()));

    s = await phase(basicUpTo + 1);
    expect(perNode(s, 'edge')).toEqual([]);
    expect(perNode(s, 'stream')).toContain('cribl_node_cpus');
    expect(aggregates(s)).toEqual(truth(sim, clock.now()));
    // The restarted node leaves: its restart stays counted.
    sim.fleet.removeNode(restarted!.id);

    s = await phase(startEdge);
    expect(perNode(s, 'edge')).toContain('cribl_node_cpus');
    expect(aggregates(s)).toEqual(truth(sim, clock.now()));
    expect(restarts(s)).toBe(1);

    // Every scrape of the way had every group's aggregates, the restarts never went down, and the level was said.
    const groups = (['stream', 'edge'] as const).flatMap((p) => sim.fleet.groups(p).map((g) => `${p} ${g.id}`));
    let last = 0;
    for (const [i, x] of scrapes.entries()) {
      const seen = new Set(
        x.filter((v) => v.name === 'cribl_group_nodes').map((v) => `${v.labels.product} ${v.labels.group}`),
      );
      expect([...seen].sort(), `scrape ${i}`).toEqual([...groups].sort());
      const r = restarts(x) ?? 0;
      expect(r, `scrape ${i}`).toBeGreaterThanOrEqual(last);
      last = r;
    }
    // At once: no scrape had per-node series of another level than the one it says is in force.
    for (const [i, x] of scrapes.entries()) {
      const level = x.find(
        (v) => v.name === 'cribl_exporter_node_detail' && v.value === 1 && v.labels.product === 'edge',
      );
      const names = perNode(x, 'edge');
      if (level?.labels.level === 'full') expect(names, `scrape ${i}`).toContain('cribl_node_cpus');
      else expect(names, `scrape ${i}`).toEqual(level?.labels.level === 'basic' ? BASIC : []);
    }
    const levels = new Set(
      scrapes
        .flatMap((x) =>
          x.filter((v) => v.name === 'cribl_exporter_node_detail' && v.value === 1 && v.labels.product === 'edge'),
        )
        .map((v) => v.labels.level),
    );
    expect([...levels].sort()).toEqual(['basic', 'full', 'minimal']);
  });
});
