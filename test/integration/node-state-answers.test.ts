/**
 * Issue 49, Why 1 and 2, against the simulated leader on one fake clock (test/helpers/fake-time-exporter.ts): a
 * node's state changes only on an answer about the node.
 * - A leader allowing a third of what the fleet needs (its token bucket, 429 with Retry-After): the polls the budget
 *   cannot fit are not sent, and every healthy node stays `cribl_node_healthy 1`, no node reads `throttled`.
 * - A 10 s standby window of the leader (every route 420 standby): no node's `cribl_node_health_up` changes but those
 *   whose poll was in flight (at most the concurrency window), and every node is exact within one health interval
 *   after the leader serves again, without its metadata fetched again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rateNeed } from '../../src/polling/rate.js';
import { startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeTimeTimeouts, startFakeTimeExporter, type FakeTimeExporter } from '../helpers/fake-time-exporter.js';
import type { Sample } from '../helpers/parse-metrics.js';

// Minutes of fake time over real HTTP: see FAKE_TIME_TIMEOUT_MS.
fakeTimeTimeouts();

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function setup(
  nodes: number,
  args: string[],
): Promise<{ clock: FakeClock; sim: Simulator; exp: FakeTimeExporter; down: Set<string> }> {
  const clock = new FakeClock();
  const sim = await startSimulator({ nodes, seed: 49, clock });
  closers.push(() => sim.close());
  // A few nodes that really are down: they must keep saying so.
  const down = new Set(
    sim.fleet
      .nodes()
      .slice(0, 3)
      .map((n) => n.id),
  );
  for (const id of down) sim.fleet.setHealth(id, 'unreachable');
  const exp = await startFakeTimeExporter(sim, clock, args);
  closers.push(() => exp.close());
  return { clock, sim, exp, down };
}

/** The families these tests read (a scrape parses only these: 400 nodes every 250 ms of fake time). */
const READ = [
  'cribl_node_health_up',
  'cribl_node_healthy',
  'cribl_node_health_last_success_timestamp_seconds',
  'cribl_node_poll_failure_info',
  'cribl_exporter_health_cycle_overrun',
  'cribl_exporter_leader_paused',
];
const byNode = (samples: Sample[], name: string): Map<string, number> =>
  new Map(samples.filter((s) => s.name === name).map((s) => [s.labels.node_id!, s.value]));
const one = (samples: Sample[], name: string): number | undefined => samples.find((s) => s.name === name)?.value;
const requests = (sim: Simulator, route: string): number =>
  Object.values(sim.stats().requests[route] ?? {}).reduce((a, b) => a + b, 0);

/** Nodes whose health reads otherwise than the simulator's fleet: healthy ones 1, the down ones 0. */
function wrong(samples: Sample[], sim: Simulator, down: Set<string>): string[] {
  const up = byNode(samples, 'cribl_node_health_up');
  const healthy = byNode(samples, 'cribl_node_healthy');
  return sim.fleet
    .nodes()
    .map((n) => n.id)
    .filter((id) => (down.has(id) ? up.get(id) !== 0 : up.get(id) !== 1 || healthy.get(id) !== 1));
}

describe('a node’s state changes only on an answer about the node (issue 49)', () => {
  it('a leader allowing a third of what the fleet needs leaves every healthy node healthy 1', async () => {
    const nodes = 60;
    const { sim, exp, down } = await setup(nodes, ['--health.interval', '2s']);
    const need = rateNeed({
      nodes,
      nodeIntervalsMs: [
        { name: 'health', intervalMs: 2000 },
        { name: 'metadata', intervalMs: 600_000 },
      ],
      discoveryIntervalMs: 60_000,
      products: 1,
    });
    sim.setFaults({ rateLimit: { rate: need.total / 3, burst: 5, retryAfter: 'seconds' } });
    // Every node's first answer (a round takes about three intervals).
    for (let i = 0; i < 60 && byNode(await exp.scrape(READ), 'cribl_node_health_up').size < nodes; i++)
      await exp.runFor(1000, 20);
    const reasons = new Set<string>();
    for (let t = 0; t < 120; t++) {
      await exp.runFor(1000, 20);
      const samples = await exp.scrape(READ);
      expect(wrong(samples, sim, down), `at ${t} s`).toEqual([]);
      for (const s of samples) if (s.name === 'cribl_node_poll_failure_info') reasons.add(s.labels.reason!);
      expect(one(samples, 'cribl_exporter_health_cycle_overrun'), `at ${t} s`).toBe(1);
    }
    // The budget could not fit every poll and the leader answered 429: still no node reads throttled.
    expect(sim.stats().rateLimited).toBeGreaterThan(0);
    expect([...reasons]).toEqual(['http_5xx']);
  });

  it('a 10 s standby window changes no node but those in flight; every node exact an interval after it', async () => {
    const nodes = 400;
    const { clock, sim, exp, down } = await setup(nodes, [
      '--health.interval',
      '5s',
      '--leader.max-rps',
      '100',
      '--discovery.interval',
      '5m',
    ]);
    await exp.runFor(60_000, 20);
    expect(wrong(await exp.scrape(READ), sim, down)).toEqual([]);
    const metadataBefore = requests(sim, '/w/{nodeId}/edge/metadata');
    const start = clock.now() - sim.stats().startedAt;
    sim.setFaults({ leaderWindows: [{ start, end: start + 10_000, state: 'standby' }] });
    const windowEnd = clock.now() + 10_000;
    let changedMost = 0;
    let servedAt: number | undefined;
    let exactAfterMs: number | undefined;
    while (clock.now() < windowEnd + 60_000 && exactAfterMs === undefined) {
      await exp.runFor(250, 20);
      const samples = await exp.scrape(READ);
      const off = wrong(samples, sim, down);
      if (servedAt === undefined) {
        changedMost = Math.max(changedMost, off.length);
        if (clock.now() > windowEnd && one(samples, 'cribl_exporter_leader_paused') === 0) servedAt = clock.now();
        continue;
      }
      // Exact: every node as the fleet is, from an answer after the window.
      const last = byNode(samples, 'cribl_node_health_last_success_timestamp_seconds');
      const stale = [...last].filter(([id, at]) => !down.has(id) && at * 1000 < windowEnd);
      if (off.length === 0 && stale.length === 0) exactAfterMs = clock.now() - servedAt;
    }
    console.log(
      `standby window 10 s: at most ${changedMost} of ${nodes} nodes read otherwise meanwhile; the leader serving ` +
        `${servedAt === undefined ? 'never' : `${(servedAt - windowEnd) / 1000} s after the window`}, every node ` +
        `exact ${exactAfterMs === undefined ? 'never' : `${exactAfterMs / 1000} s after that`}`,
    );
    expect(sim.stats().statuses['420']).toBeGreaterThan(0);
    // At most the concurrency window (--leader.max-concurrency, 8) was in flight when the window began.
    expect(changedMost).toBeLessThanOrEqual(8);
    expect(servedAt).toBeDefined();
    expect(exactAfterMs).toBeDefined();
    expect(exactAfterMs!).toBeLessThanOrEqual(5_000);
    // No node restarted: no metadata fetched again for the window (a few fall due on their own: 400 per 10 minutes).
    expect(requests(sim, '/w/{nodeId}/edge/metadata') - metadataBefore).toBeLessThan(nodes / 10);
  });
});
