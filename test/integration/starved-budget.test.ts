/**
 * Issue 52's "Done when", end to end: the exporter (default flags but a 2 s health interval) against the simulated
 * leader over real HTTP, both on one fake clock (test/helpers/fake-time-exporter.ts), the leader's limit its token
 * bucket answering 429 with Retry-After.
 * - A leader allowing a quarter of what 300 nodes need, for 10 minutes: at every second, every answering node's last
 *   answer is at most 1.5 rounds old (a round: the time the leader's rate needs for the whole fleet), with and
 *   without 5 % of the nodes timing out; fewer than 2 % of the requests answered 429.
 * - A leader that throttles to a fifth of the need for 15 s, then allows everything: the rate in force is back to
 *   the fleet's need within 2 minutes, fewer than 2 % of the requests answered 429.
 * Real time on the shared 2-core machine: about a minute for each 10-minute run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rateNeed } from '../../src/polling/rate.js';
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

const NODES = 300;
const HEALTH_S = 2;
/** Fake time moves in steps of this many ms; an answer takes one step. */
const STEP_MS = 50;

/** What the fleet needs from the leader (requests/s): every node's health and metadata, and discovery. */
const need = rateNeed({
  nodes: NODES,
  nodeIntervalsMs: [
    { name: 'health', intervalMs: HEALTH_S * 1000 },
    { name: 'metadata', intervalMs: 600_000 },
  ],
  discoveryIntervalMs: 60_000,
  products: 1,
});

async function setup(): Promise<{ clock: FakeClock; sim: Simulator; exp: FakeTimeExporter }> {
  const clock = new FakeClock();
  const sim = await startSimulator({ nodes: NODES, seed: 52, clock });
  closers.push(() => sim.close());
  const exp = await startFakeTimeExporter(sim, clock, ['--health.interval', `${HEALTH_S}s`]);
  closers.push(() => exp.close());
  return { clock, sim, exp };
}

const HEALTH_LAST = 'cribl_node_health_last_success_timestamp_seconds';
const METADATA_LAST = 'cribl_node_metadata_last_success_timestamp_seconds';
const all = (samples: Sample[], name: string): Sample[] => samples.filter((s) => s.name === name);
const one = (samples: Sample[], name: string): number | undefined => samples.find((s) => s.name === name)?.value;

// Ten minutes of fake time at 300 nodes each, over a minute of real time a test.
describe.skipIf(leftToFirstRun('starved-budget tests', SCHEDULING))(
  'a starved budget refreshes every node in turn (issue 52)',
  () => {
    it.each([
      ['every node answering', 1.5, 0],
      ['5 % of the nodes timing out', 1.5, 0.05],
    ])(
      'a leader allowing a quarter of the need for 10 minutes, %s: every answering node refreshed within %s rounds',
      async (_what, rounds, timingOut) => {
        const { clock, sim, exp } = await setup();
        const limit = need.total / 4;
        // A round: the time the leader's rate needs to poll every node once, after metadata and discovery.
        const roundS = NODES / (limit - need.riders - need.discovery);
        const slow = new Set(
          sim.fleet
            .nodes()
            .slice(0, Math.round(NODES * timingOut))
            .map((n) => n.id),
        );
        for (const id of slow) sim.fleet.setHealth(id, 'slow');
        sim.setFaults({ rateLimit: { rate: limit, burst: 10, retryAfter: 'seconds' } });
        const start = clock.now();
        const answering = (samples: Sample[], name: string): Sample[] =>
          all(samples, name).filter((s) => !slow.has(s.labels.node_id!));
        // Judged once every answering node answered and had its first metadata fetch (spread over its 2nd to 5th
        // polls, a quarter more load meanwhile): the leader's limit is learnt by then.
        for (;;) {
          const samples = await exp.scrape([METADATA_LAST]);
          const fetched = answering(samples, METADATA_LAST).length;
          if (fetched === NODES - slow.size || clock.now() - start > 120_000) break;
          await exp.runFor(1000, STEP_MS);
        }
        const judgedFrom = (clock.now() - start) / 1000;
        sim.resetStats();
        let worstS = 0;
        let worstAt = 0;
        let stale: string[] = [];
        while (clock.now() - start < 600_000) {
          await exp.runFor(1000, STEP_MS);
          const now = clock.now() / 1000;
          const last = answering(await exp.scrape([HEALTH_LAST]), HEALTH_LAST);
          expect(last).toHaveLength(NODES - slow.size);
          for (const s of last) {
            if (now - s.value > worstS) [worstS, worstAt] = [now - s.value, (clock.now() - start) / 1000];
          }
          if (stale.length === 0)
            stale = last
              .filter((s) => now - s.value > rounds * roundS)
              .map((s) => `${s.labels.node_id} ${now - s.value}`);
        }
        const st = sim.stats();
        const samples = await exp.scrape();
        console.log(
          `${_what}: leader limit ${limit.toFixed(1)}/s (need ${need.total.toFixed(1)}/s), ` +
            `round ${roundS.toFixed(1)} s, judged from ${judgedFrom} s: ` +
            `the oldest answer ${worstS.toFixed(1)} s old (at ${worstAt} s), accepted ` +
            `${st.acceptedPerSecond.toFixed(1)}/s, 429 share ${(st.share429 * 100).toFixed(2)} %, rate in force ` +
            `${one(samples, 'cribl_exporter_leader_rate_limit_requests_per_second')?.toFixed(1)}/s`,
        );
        expect(stale, `nodes whose last answer was older than ${rounds} rounds`).toEqual([]);
        expect(worstS).toBeLessThanOrEqual(rounds * roundS);
        expect(st.share429).toBeLessThan(0.02);
        expect(one(samples, 'cribl_leader_up')).toBe(1);
        expect(one(samples, 'cribl_exporter_health_cycle_overrun')).toBe(1);
      },
    );

    it('a throttle to a fifth of the need for 15 s: the rate in force back to the need within 2 minutes', async () => {
      const { clock, sim, exp } = await setup();
      await exp.runFor(30_000, STEP_MS);
      const rate = (): number => exp.app.status()[0]!.budget.rate;
      expect(rate()).toBeGreaterThanOrEqual(need.total);
      sim.resetStats();
      sim.setFaults({ rateLimit: { rate: need.total / 5, burst: 10, retryAfter: 'seconds' } });
      let lowest = rate();
      for (let t = 0; t < 15; t++) {
        await exp.runFor(1000, STEP_MS);
        lowest = Math.min(lowest, rate());
      }
      // The throttle was felt: 429s, and the rate brought down.
      expect(sim.stats().rateLimited).toBeGreaterThan(0);
      expect(lowest).toBeLessThan(need.total);
      sim.setFaults({ rateLimit: null });
      const ended = clock.now();
      let backAfterS: number | undefined;
      while (clock.now() - ended < 180_000) {
        await exp.runFor(1000, STEP_MS);
        if (backAfterS === undefined && rate() >= need.total) backAfterS = (clock.now() - ended) / 1000;
      }
      const st = sim.stats();
      console.log(
        `throttle to ${(need.total / 5).toFixed(1)}/s for 15 s: the rate in force back to the need ` +
          `(${need.total.toFixed(1)}/s; lowest ${lowest.toFixed(1)}/s) ${backAfterS ?? 'never'} s after it; ` +
          `429 share ${(st.share429 * 100).toFixed(2)} %`,
      );
      expect(backAfterS).toBeDefined();
      expect(backAfterS!).toBeLessThanOrEqual(120);
      expect(st.share429).toBeLessThan(0.02);
      // And it stays there: no new limit learnt from a leader that allows everything.
      expect(rate()).toBeGreaterThanOrEqual(need.total);
    });
  },
);
