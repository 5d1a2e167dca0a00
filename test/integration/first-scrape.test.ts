// A restarted exporter's first scrape: the first body is built at the first change, before any node answered. The
// next one is built when every node's first health poll has ended (not at the next planned build, up to 30 s later),
// so that a scrape right after the start gets the fleet, not an empty body that would make Prometheus mark every
// node series stale.

import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { startFakeTimeExporter } from '../helpers/fake-time-exporter.js';
import { parseSamples } from '../helpers/parse-metrics.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

describe('the first scrape after a start', () => {
  it('gets every node’s health as soon as every node was polled once, without waiting for a build', async () => {
    const clock = new FakeClock();
    const sim = await startSimulator({ nodes: 40, seed: 3, clock });
    closers.push(() => sim.close());
    const exp = await startFakeTimeExporter(sim, clock, ['--leader.max-rps', '1000']);
    closers.push(() => exp.close());
    // Less than the start-up ramp's first step (1 s after the first build): only the first round can have built.
    await exp.runFor(600, 10);
    expect(sim.stats().requests['/w/{nodeId}/health']?.['200'] ?? 0).toBeGreaterThan(0);
    await exp.app.body.whenIdle();
    // A plain scrape, as Prometheus's first one (no rebuild asked for).
    const samples = parseSamples(await (await request(exp.app.metricsUrl)).body.text());
    const up = samples.filter((s) => s.name === 'cribl_node_health_up');
    expect(up.length).toBe(sim.fleet.nodes().length);
  });
});
