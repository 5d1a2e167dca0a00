/**
 * Issue 40 against the simulated leader on one fake clock (test/helpers/fake-time-exporter.ts): a token refused on
 * optional endpoints, a leader that allows half of what the fleet needs, a standby leader, config versions that are
 * not commit hashes, and a Retry-After far too long.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { startFakeTimeExporter } from '../helpers/fake-time-exporter.js';
import type { Sample } from '../helpers/parse-metrics.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function simulator(nodes: number, clock: FakeClock): Promise<Simulator> {
  const sim = await startSimulator({ nodes, seed: 40, clock });
  closers.push(() => sim.close());
  return sim;
}

async function exporter(sim: Simulator, clock: FakeClock, args: string[] = [], token = sim.token) {
  const exp = await startFakeTimeExporter(sim, clock, args, { CRIBL_TOKEN: token });
  closers.push(() => exp.close());
  return exp;
}

const values = (samples: Sample[], name: string, label = 'node_id'): Record<string, number> =>
  Object.fromEntries(samples.filter((s) => s.name === name).map((s) => [s.labels[label] ?? '', s.value]));
const one = (samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

describe('a token refused on optional endpoints', () => {
  it('403 on git settings and /m/{group}/version: node health exact at every scrape, both collectors off', async () => {
    const clock = new FakeClock();
    const sim = await simulator(44, clock);
    sim.fleet
      .nodes()
      .slice(0, 4)
      .forEach((n) => sim.fleet.setHealth(n.id, 'unreachable'));
    sim.addToken('least-privilege', 'read-only', ['/system/settings/git-settings', '/m/{group}/version']);
    const full = await exporter(sim, clock);
    const limited = await exporter(sim, clock, [], 'least-privilege');
    for (let i = 0; i < 8; i++) {
      await full.runFor(15_000, 50);
      const [a, b] = [await full.scrape(), await limited.scrape()];
      expect(values(b, 'cribl_node_health_up'), `scrape ${i}`).toEqual(values(a, 'cribl_node_health_up'));
      expect(Object.values(values(b, 'cribl_node_health_up')).filter((v) => v === 0)).toHaveLength(4);
      expect(b.filter((s) => s.name === 'cribl_node_poll_failure_info' && s.labels.reason !== 'http_5xx')).toEqual([]);
    }
    const samples = await limited.scrape();
    expect(values(samples, 'cribl_exporter_collector_enabled', 'collector')).toMatchObject({
      git_settings: 0,
      group_version: 0,
      dataflow: 1,
      leader_info: 1,
    });
    expect(one(samples, 'cribl_leader_git_remote_configured')).toBeUndefined();
    expect(samples.filter((s) => s.name === 'cribl_group_undeployed_commits')).toEqual([]);
    expect(one(samples, 'cribl_exporter_leader_paused')).toBe(0);
    expect(samples.filter((s) => s.name === 'cribl_exporter_auth_failures_total')).toEqual([]);
  });
});

describe('a leader that allows half of what the fleet needs', () => {
  it('keeps cribl_leader_up 1, polls every node round-robin, and holds the overrun flag at 1', async () => {
    const clock = new FakeClock();
    const sim = await simulator(300, clock);
    // 300 nodes every 30 s need 10 requests/s; the leader allows 5 (pinned, as the README suggests for shared ones).
    const exp = await exporter(sim, clock, ['--leader.max-rps', '5']);
    await exp.runFor(45_000, 50);
    for (let t = 45; t <= 180; t += 15) {
      await exp.runFor(15_000, 50);
      const samples = await exp.scrape();
      expect(one(samples, 'cribl_leader_up'), `at ${t} s`).toBe(1);
      expect(one(samples, 'cribl_exporter_health_cycle_overrun'), `at ${t} s`).toBe(1);
    }
    const samples = await exp.scrape();
    const now = clock.now() / 1000;
    const last = values(samples, 'cribl_node_health_last_success_timestamp_seconds');
    expect(Object.keys(last)).toHaveLength(300);
    // Polled round-robin at the allowed rate: no older than 2 × (need / allowed) × the interval.
    for (const [node, at] of Object.entries(last)) expect(now - at, node).toBeLessThanOrEqual(2 * 2 * 30);
    const page = exp.app.status()[0]!;
    expect(page.cycle.overrun).toBe(true);
  });
});

describe('a standby leader', () => {
  it('no scrape after its first 420 shows a node standby: nodes keep their last answer (issue 49)', async () => {
    const clock = new FakeClock();
    const sim = await simulator(20, clock);
    const exp = await exporter(sim, clock, ['--discovery.interval', '5m']);
    await exp.runFor(40_000, 50);
    expect(Object.values(values(await exp.scrape(), 'cribl_node_health_up')).every((v) => v === 1)).toBe(true);
    sim.fleet.setLeaderState('standby');
    let seen420 = false;
    for (let i = 0; i < 40; i++) {
      await exp.runFor(1_500, 50);
      const samples = await exp.scrape();
      seen420 ||= (sim.stats().statuses['420'] ?? 0) > 0;
      if (!seen420) continue;
      const standbyUp = samples.filter(
        (s) =>
          s.name === 'cribl_node_health_status' &&
          s.labels.status === 'standby' &&
          s.value === 1 &&
          one(samples, 'cribl_node_health_up', { node_id: s.labels.node_id! }) === 1,
      );
      expect(
        standbyUp.map((s) => s.labels.node_id),
        `scrape ${i}`,
      ).toEqual([]);
    }
    expect(seen420).toBe(true);
    const samples = await exp.scrape();
    // The leader answered about itself, not about the nodes: each keeps its last answer, healthy and up, and the
    // leader-level families say why polls are held.
    expect(samples.filter((s) => s.name === 'cribl_node_poll_failure_info')).toEqual([]);
    expect(Object.values(values(samples, 'cribl_node_health_up')).every((v) => v === 1)).toBe(true);
    expect(one(samples, 'cribl_exporter_leader_paused')).toBe(1);
    expect(one(samples, 'cribl_leader_health_status', { status: 'standby' })).toBe(1);
  });
});

describe('data we cannot assume', () => {
  it('config versions like 1.0.0 give no drift series; hashes do', async () => {
    const clock = new FakeClock();
    const sim = await simulator(12, clock);
    sim.fleet.setConfigVersionStyle('semver');
    const exp = await exporter(sim, clock);
    await exp.runFor(40_000, 50);
    let samples = await exp.scrape();
    expect(samples.filter((s) => s.name === 'cribl_node_info')).toHaveLength(12);
    expect(samples.filter((s) => s.name === 'cribl_node_config_outdated')).toEqual([]);
    expect(samples.filter((s) => s.name === 'cribl_group_undeployed_commits')).toEqual([]);
    sim.fleet.setConfigVersionStyle('hash');
    await exp.runFor(70_000, 50);
    samples = await exp.scrape();
    expect(samples.filter((s) => s.name === 'cribl_node_config_outdated').length).toBeGreaterThan(0);
  });

  it('Retry-After: 86400 pauses for --leader.max-pause only, counted', async () => {
    const clock = new FakeClock();
    const sim = await simulator(20, clock);
    const exp = await exporter(sim, clock, ['--leader.max-pause', '2m']);
    await exp.runFor(35_000, 50);
    sim.setFaults({ rateLimit: { rate: 5, burst: 1, retryAfterSeconds: 86_400 } });
    await exp.runFor(5_000, 50);
    const paused = exp.app.status()[0]!.budget;
    expect(paused.paused).toBe(true);
    expect(paused.pauseUntil - clock.now()).toBeLessThanOrEqual(120_000);
    sim.setFaults({ rateLimit: null });
    // The pause ends 2 minutes after it began; a health interval later every node has answered again.
    await exp.runFor(190_000, 100);
    const samples = await exp.scrape();
    expect(one(samples, 'cribl_exporter_leader_paused')).toBe(0);
    expect(one(samples, 'cribl_exporter_leader_pause_capped_total')).toBeGreaterThanOrEqual(1);
    // Polling resumed: every node answered again within the last interval.
    const now = clock.now() / 1000;
    const last = values(samples, 'cribl_node_health_last_success_timestamp_seconds');
    for (const at of Object.values(last)) expect(now - at).toBeLessThanOrEqual(31);
  });
});
