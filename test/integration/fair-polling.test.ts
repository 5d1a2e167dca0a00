/**
 * Issue 14's "Done when", end to end: the exporter (default flags unless said) against the simulated leader over
 * real HTTP, both on one fake clock that the test moves in steps (no sleeping, no timed assertions; see
 * test/helpers/fake-time-exporter.ts). Real time on the shared 2-core machine (load 2–4): about 2 s for the slow node,
 * 16 s for the 20,000-node fleet, 3 s for the revoked token and 5 s for each rate limit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeTimeTimeouts, startFakeTimeExporter, type FakeTimeExporter } from '../helpers/fake-time-exporter.js';
import type { Sample } from '../helpers/parse-metrics.js';
import { leftToFirstRun, SCHEDULING } from '../helpers/repeat.js';

// Minutes of fake time over real HTTP: see FAKE_TIME_TIMEOUT_MS.
fakeTimeTimeouts();

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function setup(
  nodes: number,
  args: string[] = [],
): Promise<{ clock: FakeClock; sim: Simulator; exp: FakeTimeExporter }> {
  const clock = new FakeClock();
  const sim = await startSimulator({ nodes, seed: 14, clock });
  closers.push(() => sim.close());
  const exp = await startFakeTimeExporter(sim, clock, args);
  closers.push(() => exp.close());
  return { clock, sim, exp };
}

const one = (samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
const all = (samples: Sample[], name: string): Sample[] => samples.filter((s) => s.name === name);

describe.skipIf(leftToFirstRun('fair-polling tests', SCHEDULING))(
  'fair polling against the simulated leader (fake clock)',
  () => {
    it('a node that always times out leaves every other node refreshed on its interval, and overrun at 0', async () => {
      const { clock, sim, exp } = await setup(200);
      const stuck = sim.fleet.nodes()[0]!.id;
      // Answers after 10 minutes: the exporter gives up after --leader.timeout.connect + headers (15 s) every time.
      sim.fleet.setHealth(stuck, 'slow');
      await exp.runFor(45_000, 20);
      for (let i = 0; i < 4; i++) {
        await exp.runFor(30_000, 20);
        const now = clock.now() / 1000;
        const samples = await exp.scrape();
        const last = all(samples, 'cribl_node_health_last_success_timestamp_seconds');
        expect(last.map((s) => s.labels.node_id).sort()).toEqual(
          sim.fleet
            .nodes()
            .map((n) => n.id)
            .filter((id) => id !== stuck)
            .sort(),
        );
        // Every other node answered within the last interval (its slot, plus the time its answer takes).
        for (const s of last) expect(now - s.value, s.labels.node_id).toBeLessThanOrEqual(30.5);
        expect(one(samples, 'cribl_exporter_health_cycle_overrun')).toBe(0);
        expect(one(samples, 'cribl_exporter_slow_nodes')).toBe(1);
        expect(one(samples, 'cribl_exporter_health_poll_age_max_seconds')).toBeLessThanOrEqual(30.5);
        expect(one(samples, 'cribl_exporter_health_cycle_duration_seconds')).toBeLessThanOrEqual(31);
        expect(one(samples, 'cribl_node_poll_failure_info', { node_id: stuck, reason: 'timeout' })).toBe(1);
      }
    });

    it('a 20,000-node fleet at 30s with default flags: every node polled within one interval', async () => {
      const started = performance.now();
      const { clock, sim, exp } = await setup(20_000);
      // The first discovery: 20 pages of 1,000 and the groups, applied to the poller in slices.
      for (let i = 0; i < 1000 && exp.app.status()[0]!.cycle.nodes < 20_000; i++) await exp.runFor(10, 10);
      const t0 = clock.now();
      const status = exp.app.status()[0]!;
      expect(status.cycle.nodes).toBe(20_000);
      // auto: (20,000 / 30 s + metadata + discovery) × 1.25.
      expect(status.allowed).toMatchObject({ mode: 'auto', covers: true, capped: false });
      expect(status.allowed.rps).toBeGreaterThan(850);
      expect(status.allowed.rps).toBeLessThan(900);
      await exp.runFor(30_000 - (clock.now() - t0), 10);
      const health = sim.stats().requests['/w/{nodeId}/health'] ?? {};
      expect(Object.values(health).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(20_000);
      const samples = await exp.scrape();
      const up = all(samples, 'cribl_node_health_up');
      expect(up).toHaveLength(20_000);
      expect(up.filter((s) => s.value === 1)).toHaveLength(20_000);
      expect(one(samples, 'cribl_exporter_leader_rate_limit_requests_per_second')).toBeCloseTo(status.allowed.rps, 0);
      expect(one(samples, 'cribl_exporter_health_cycle_overrun')).toBe(0);
      // The first round (every node's first poll) ended within the interval.
      const first = one(samples, 'cribl_exporter_health_cycle_duration_seconds')!;
      expect(first).toBeGreaterThan(0);
      expect(first).toBeLessThanOrEqual(30);
      console.log(
        `20k fleet, default flags: every node polled in ${first.toFixed(1)} s of fake time; ` +
          `${((performance.now() - started) / 1000).toFixed(1)} s of real time`,
      );
    });

    it('a revoked token drops the request rate to the backoff’s, and the failure counter rises', async () => {
      const { sim, exp } = await setup(300);
      await exp.runFor(60_000, 50);
      sim.resetStats();
      await exp.runFor(30_000, 50);
      const total = (): number => sim.stats().totalRequests;
      // 300 nodes every 30 s: about 10 requests per second.
      expect(total()).toBeGreaterThanOrEqual(290);

      sim.revokeToken(sim.token);
      await exp.runFor(120_000, 50);
      const before = one(await exp.scrape(), 'cribl_exporter_auth_failures_total', {
        mode: 'token',
        reason: 'rejected',
      });
      sim.resetStats();
      await exp.runFor(120_000, 50);
      // Node polling probes once per pause (5 s doubling to --leader.backoff.max, 60 s) and discovery once a minute:
      // a handful of requests in two minutes instead of 1,200.
      const health = Object.values(sim.stats().requests['/w/{nodeId}/health'] ?? {}).reduce((a, b) => a + b, 0);
      expect(health).toBeLessThanOrEqual(3);
      // The leader's own GET /health (one per discovery) carries no credentials: it still answers 200.
      const leaderHealth = Object.values(sim.stats().requests['/health'] ?? {}).reduce((a, b) => a + b, 0);
      const refused = total() - leaderHealth;
      expect(refused).toBeLessThanOrEqual(10);
      expect(sim.stats().statuses).toEqual({ '401': refused, ...(leaderHealth ? { '200': leaderHealth } : {}) });
      const after = one(await exp.scrape(), 'cribl_exporter_auth_failures_total', {
        mode: 'token',
        reason: 'rejected',
      });
      expect(before).toBeGreaterThan(0);
      expect(after).toBeGreaterThan(before!);
      expect(after! - before!).toBe(refused);
    });

    it.each([
      [40, 40],
      [40, 10],
    ])(
      'a leader limit of %i requests/s (bucket %i): at least 90 % of it accepted, fewer than 2 % answered 429',
      async (R, burst) => {
        // 3,000 nodes every 30 s need 100 requests/s: auto asks for ~130/s, the leader allows R/s. Measured from the
        // start, the learning included.
        const { sim, exp } = await setup(3_000);
        sim.setFaults({ rateLimit: { rate: R, burst, retryAfter: 'seconds' } });
        sim.resetStats();
        await exp.runFor(120_000, 20);
        const st = sim.stats();
        console.log(
          `leader limit ${R}/s, bucket ${burst}, over ${st.elapsedMs / 1000} s: accepted ` +
            `${st.acceptedPerSecond.toFixed(1)}/s (${((st.acceptedPerSecond / R) * 100).toFixed(1)} %), 429 share ` +
            `${(st.share429 * 100).toFixed(2)} %`,
        );
        expect(st.acceptedPerSecond).toBeGreaterThanOrEqual(0.9 * R);
        expect(st.share429).toBeLessThan(0.02);
        expect(st.rateLimited).toBeGreaterThan(0);
        const samples = await exp.scrape();
        const rate = one(samples, 'cribl_exporter_leader_rate_limit_requests_per_second')!;
        expect(rate).toBeGreaterThan(0.8 * R);
        expect(rate).toBeLessThan(1.3 * R);
      },
    );
  },
);
