/**
 * Issue 49, HA: the exporter against a simulated HA pair over one fleet, both on one fake clock (see
 * test/helpers/fake-time-exporter.ts). A failover with and without a load balancer (the API follows the primary
 * within one probe interval, every node is exact within one health interval after, one failover counted, no restart
 * counted, no metadata fetched again), two primaries, no primary, and the standby host down.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { startFakeTimeExporter, type FakeTimeExporter } from '../helpers/fake-time-exporter.js';
import type { Sample } from '../helpers/parse-metrics.js';

const PROBE_MS = 5_000;
const HEALTH_MS = 5_000;
const STEP_MS = 100;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function setup(
  loadBalancer = false,
  login = false,
): Promise<{
  clock: FakeClock;
  sim: Simulator;
  exp: FakeTimeExporter;
  hosts: string[];
}> {
  const clock = new FakeClock();
  const sim = await startSimulator({ nodes: 20, seed: 49, clock, ha: { hosts: 2, loadBalancer } });
  closers.push(() => sim.close());
  const urls = sim.ha!.hosts.map((h) => h.baseUrl);
  const exp = await startFakeTimeExporter(
    sim,
    clock,
    [
      '--leader.name=prod',
      ...urls.flatMap((u) => ['--leader.ha-url', u]),
      `--leader.health-probe-interval=${PROBE_MS}ms`,
      `--health.interval=${HEALTH_MS}ms`,
      '--discovery.interval=30s',
      ...(login ? ['--leader.username=admin'] : []),
    ],
    login ? { CRIBL_PASSWORD: 'admin' } : { CRIBL_TOKEN: sim.token },
  );
  closers.push(() => exp.close());
  // Past the first discovery, the first rounds and the first metadata fetches (spread over polls two to five).
  await exp.runFor(60_000, STEP_MS);
  return { clock, sim, exp, hosts: urls.map((u) => new URL(u).host) };
}

const all = (samples: Sample[], name: string): Sample[] => samples.filter((s) => s.name === name);
const one = (samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
const sum = (samples: Sample[], name: string): number => all(samples, name).reduce((n, s) => n + s.value, 0);

/** `host=status/role` of every host that answers, and `host!reason` of those that do not. */
function hostView(samples: Sample[]): string[] {
  const roles = new Map(all(samples, 'cribl_leader_host_role_info').map((s) => [s.labels.host, s.labels.role]));
  const up = all(samples, 'cribl_leader_host_health_status')
    .filter((s) => s.value === 1)
    .map((s) => `${s.labels.host}=${s.labels.status}/${roles.get(s.labels.host) ?? '-'}`);
  const down = all(samples, 'cribl_leader_host_failure_info').map((s) => `${s.labels.host}!${s.labels.reason}`);
  return [...up, ...down].sort();
}

/** Every node's health_up and healthy are the simulator's truth (every node of this fleet is healthy). */
function expectNodesExact(sim: Simulator, samples: Sample[]): void {
  const ids = sim.fleet
    .nodes()
    .map((n) => n.id)
    .sort();
  expect(sim.fleet.nodes().every((n) => n.health === 'healthy')).toBe(true);
  for (const name of ['cribl_node_health_up', 'cribl_node_healthy']) {
    const got = all(samples, name);
    expect(got.map((s) => s.labels.node_id).sort(), name).toEqual(ids);
    expect(
      got.filter((s) => s.value !== 1).map((s) => s.labels.node_id),
      name,
    ).toEqual([]);
  }
}

const metadataRequests = (sim: Simulator): number =>
  Object.values(sim.stats().requests['/w/{nodeId}/edge/metadata'] ?? {}).reduce((n, c) => n + c, 0);

async function failover(loadBalancer: boolean): Promise<void> {
  const { clock, sim, exp, hosts } = await setup(loadBalancer);
  let samples = await exp.scrape();
  expect(hostView(samples)).toEqual([`${hosts[0]}=healthy/primary`, `${hosts[1]}=standby/standby`].sort());
  expect(one(samples, 'cribl_exporter_leader_failovers_total', { leader: 'prod' })).toBe(0);
  expectNodesExact(sim, samples);
  const restarts = sum(samples, 'cribl_node_restarts_total');
  const metadata = metadataRequests(sim);
  expect(metadata).toBeGreaterThan(0);

  // The primary goes standby; 10 s later the other host is primary.
  const gapMs = 10_000;
  sim.ha!.failover(gapMs);
  const primaryAt = clock.now() + gapMs;
  await exp.runFor(gapMs, STEP_MS);
  expect(sim.ha!.states()).toEqual(['standby', 'primary']);
  expect(sim.ha!.served()[1]!.requests).toBe(0);
  samples = await exp.scrape();
  expect(one(samples, 'cribl_exporter_leader_paused', { leader: 'prod' })).toBe(1);

  // Requests reach the new primary within one probe interval.
  await exp.runFor(PROBE_MS + STEP_MS, STEP_MS);
  const firstMs = sim.ha!.served()[1]!.firstMs;
  expect(firstMs).toBeDefined();
  expect(firstMs! - primaryAt).toBeLessThanOrEqual(PROBE_MS + STEP_MS);

  // Within one health interval after it serves, every node is exact again.
  await exp.runFor(firstMs! + HEALTH_MS + 500 - clock.now(), STEP_MS);
  samples = await exp.scrape();
  expectNodesExact(sim, samples);
  expect(one(samples, 'cribl_exporter_leader_paused', { leader: 'prod' })).toBe(0);
  expect(one(samples, 'cribl_exporter_leader_failovers_total', { leader: 'prod' })).toBe(1);
  expect(sum(samples, 'cribl_node_restarts_total')).toBe(restarts);
  expect(metadataRequests(sim)).toBe(metadata);
  // The leader is still the one logical leader: its health from whichever host serves.
  expect(one(samples, 'cribl_leader_health_status', { status: 'healthy' })).toBe(1);
  expect(one(samples, 'cribl_leader_role_info', { role: 'primary' })).toBe(1);

  // The next discovery reads both hosts again.
  await exp.runFor(30_000, STEP_MS);
  samples = await exp.scrape();
  expect(hostView(samples)).toEqual([`${hosts[0]}=standby/standby`, `${hosts[1]}=healthy/primary`].sort());
  expect(one(samples, 'cribl_leader_up')).toBe(1);
  expect(sim.ha!.served()[0]!.lastMs).toBeLessThan(primaryAt - gapMs + 1);
}

describe('leader HA (fake clock)', () => {
  it('a failover without a load balancer: the API follows the primary', async () => {
    await failover(false);
  });

  it('a failover behind a load balancer: the exporter keeps using it and counts the failover', async () => {
    await failover(true);
  });

  it('without a load balancer, a primary that crashes (no 420) is left within a probe interval', async () => {
    const { clock, sim, exp, hosts } = await setup();
    // Between discoveries (every 30 s), which read the hosts too.
    await exp.runFor(10_000, STEP_MS);
    sim.ha!.failover(0, undefined, true);
    const primaryAt = clock.now();
    await exp.runFor(PROBE_MS + STEP_MS, STEP_MS);
    expect(sim.ha!.served()[1]!.firstMs! - primaryAt).toBeLessThanOrEqual(PROBE_MS + STEP_MS);
    await exp.runFor(HEALTH_MS + 500, STEP_MS);
    const samples = await exp.scrape();
    expectNodesExact(sim, samples);
    expect(hostView(samples)).toEqual([`${hosts[0]}!connect`, `${hosts[1]}=healthy/primary`].sort());
    expect(one(samples, 'cribl_exporter_leader_failovers_total', { leader: 'prod' })).toBe(1);
  });

  it('a login token the new primary refuses is renewed there, once', async () => {
    const { clock, sim, exp } = await setup(false, true);
    const logins = (): number => sim.stats().requests['/auth/login']?.['200'] ?? 0;
    const before = logins();
    expect(before).toBeGreaterThan(0);
    // The new primary does not know the old one's sessions.
    sim.ha!.failover(0);
    sim.revokeTokens();
    const primaryAt = clock.now();
    await exp.runFor(PROBE_MS + HEALTH_MS + 1_000, STEP_MS);
    expect(sim.ha!.served()[1]!.firstMs! - primaryAt).toBeLessThanOrEqual(PROBE_MS + STEP_MS);
    // Host 0 answers 420 to everything: the login that worked went to host 1.
    expect(logins()).toBe(before + 1);
    expectNodesExact(sim, await exp.scrape());
  });

  it('two primaries: both read primary, the exporter stays on its host, no failover counted', async () => {
    const { sim, exp, hosts } = await setup();
    sim.ha!.resetServed();
    sim.ha!.setHost(1, 'primary');
    await exp.runFor(30_000, STEP_MS);
    const samples = await exp.scrape();
    expect(hostView(samples)).toEqual([`${hosts[0]}=healthy/primary`, `${hosts[1]}=healthy/primary`].sort());
    expect(one(samples, 'cribl_exporter_leader_failovers_total', { leader: 'prod' })).toBe(0);
    expect(sim.ha!.served().map((s) => s.requests > 0)).toEqual([true, false]);
    expectNodesExact(sim, samples);
  });

  it('no primary: both read standby and requests wait; when one is primary again, they go there', async () => {
    const { clock, sim, exp, hosts } = await setup();
    sim.ha!.setHost(0, 'standby');
    await exp.runFor(40_000, STEP_MS);
    let samples = await exp.scrape();
    expect(hostView(samples)).toEqual([`${hosts[0]}=standby/standby`, `${hosts[1]}=standby/standby`].sort());
    expect(all(samples, 'cribl_leader_host_role_info').filter((s) => s.labels.role === 'primary')).toEqual([]);
    expect(one(samples, 'cribl_exporter_leader_paused', { leader: 'prod' })).toBe(1);
    expect(sim.ha!.served()[1]!.requests).toBe(0);
    sim.ha!.setHost(1, 'primary');
    const primaryAt = clock.now();
    await exp.runFor(PROBE_MS + STEP_MS, STEP_MS);
    expect(sim.ha!.served()[1]!.firstMs! - primaryAt).toBeLessThanOrEqual(PROBE_MS + STEP_MS);
    await exp.runFor(HEALTH_MS + 500, STEP_MS);
    samples = await exp.scrape();
    expectNodesExact(sim, samples);
    expect(one(samples, 'cribl_exporter_leader_failovers_total', { leader: 'prod' })).toBe(1);
  });

  it('the standby host down: it has a failure reason and no role; nothing else changes', async () => {
    const { sim, exp, hosts } = await setup();
    sim.ha!.setHost(1, 'down');
    await exp.runFor(30_000, STEP_MS);
    const samples = await exp.scrape();
    expect(hostView(samples)).toEqual([`${hosts[0]}=healthy/primary`, `${hosts[1]}!connect`].sort());
    expect(all(samples, 'cribl_leader_host_role_info').map((s) => s.labels.host)).toEqual([hosts[0]]);
    expect(one(samples, 'cribl_leader_up')).toBe(1);
    expect(one(samples, 'cribl_exporter_leader_paused', { leader: 'prod' })).toBe(0);
    expectNodesExact(sim, samples);
  });
});
