/**
 * Issue 49, Why 4: a 403 on `/w/{nodeId}/health` alone is one leader-level problem. Every node's
 * `cribl_node_poll_failure_info` reads `forbidden` (the polls that got the 403 and those the refusal held back
 * alike), at every scrape; the listing and each node's metadata are still polled and answered. Before, the held-back
 * polls read `http_4xx` (24 of 30 nodes), so the per-node unreachable alert fired beside the leader-level one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { startFakeTimeExporter } from '../helpers/fake-time-exporter.js';
import type { Sample } from '../helpers/parse-metrics.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

const reasons = (samples: Sample[]): Map<string, string> =>
  new Map(
    samples
      .filter((s) => s.name === 'cribl_node_poll_failure_info' && s.value === 1)
      .map((s) => [s.labels.node_id!, s.labels.reason!]),
  );

describe('a 403 on node health alone (issue 49)', () => {
  it('every node reads forbidden at every scrape; the listing and the metadata are still polled', async () => {
    const nodes = 30;
    const clock = new FakeClock();
    const sim = await startSimulator({ nodes, seed: 49, clock, restrictedRoutes: ['/w/{nodeId}/health'] });
    closers.push(() => sim.close());
    const exp = await startFakeTimeExporter(sim, clock, ['--health.interval', '2s', '--discovery.interval', '10s'], {
      CRIBL_TOKEN: sim.restrictedToken,
    });
    closers.push(() => exp.close());
    const ids = sim.fleet.nodes().map((n) => n.id);
    // The first round: every node polled once (the first poll is refused, the others held back by the refusal).
    for (let i = 0; i < 30 && reasons(await exp.scrape()).size < nodes; i++) await exp.runFor(1000, 20);
    const seen = new Set<string>();
    for (let t = 0; t < 90; t++) {
      await exp.runFor(1000, 20);
      const samples = await exp.scrape();
      const r = reasons(samples);
      for (const v of r.values()) seen.add(v);
      expect(
        ids.filter((id) => r.get(id) !== 'forbidden'),
        `at ${t} s`,
      ).toEqual([]);
      expect(samples.find((s) => s.name === 'cribl_leader_up')?.value, `at ${t} s`).toBe(1);
    }
    expect([...seen]).toEqual(['forbidden']);
    const stats = sim.stats().requests;
    expect(stats['/w/{nodeId}/health']?.['403']).toBeGreaterThan(0);
    // Node polling of the other routes is untouched: the listing, and every node's metadata answered.
    expect(stats['/products/{product}/workers']?.['200']).toBeGreaterThanOrEqual(9);
    expect(stats['/w/{nodeId}/edge/metadata']?.['200']).toBeGreaterThanOrEqual(nodes);
    const samples = await exp.scrape();
    const metadata = samples.filter((s) => s.name === 'cribl_node_metadata_last_success_timestamp_seconds');
    expect(metadata.map((s) => s.labels.node_id).sort()).toEqual([...ids].sort());
  }, 120_000);
});
