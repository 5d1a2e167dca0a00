/**
 * Issue 49, Why 3, against the simulated leader on one fake clock (test/helpers/fake-time-exporter.ts): what is known
 * is not deleted by a failure. With a 503 on 8 % of every route's requests, over many discoveries and data-flow
 * reads, every sample of /metrics has every group's `cribl_group_info` and every destination's
 * `cribl_destination_health`: a failed groups listing keeps the groups (and their data flow) of the last one that
 * answered (that a group leaves when an answered listing no longer has it: test/store/snapshot.test.ts).
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

const ARGS = ['--discovery.interval', '2s', '--dataflow.interval', '2s', '--health.interval', '2s'];

/** `group destination` of every destination exported (devnull never is), and the groups with an info series. */
function seen(samples: readonly Sample[]): { groups: Set<string>; destinations: Set<string> } {
  const groups = new Set<string>();
  const destinations = new Set<string>();
  for (const s of samples) {
    if (s.name === 'cribl_group_info') groups.add(`${s.labels.product} ${s.labels.group}`);
    if (s.name === 'cribl_destination_health') destinations.add(`${s.labels.group} ${s.labels.destination}`);
  }
  return { groups, destinations };
}

describe('a failed groups listing keeps the groups (issue 49)', () => {
  it('8 % of 503s on every route never remove a group or destination series', async () => {
    const clock = new FakeClock();
    const sim = await startSimulator({ nodes: 12, seed: 49, clock });
    closers.push(() => sim.close());
    const exp = await startFakeTimeExporter(sim, clock, ARGS);
    closers.push(() => exp.close());

    // The truth, before any fault: every group of both products and every destination but devnull.
    const ids = (['stream', 'edge'] as const).flatMap((p) => sim.fleet.groups(p).map((g) => [p, g.id] as const));
    const groups = new Set(ids.map(([p, g]) => `${p} ${g}`));
    const destinations = new Set(
      ids.flatMap(([, g]) =>
        (sim.destinationStatus(g) ?? []).filter((d) => d.id !== 'devnull').map((d) => `${g} ${d.id}`),
      ),
    );
    expect(destinations.size).toBeGreaterThan(groups.size);
    await exp.runFor(5000, 20);
    expect(seen(await exp.scrape())).toEqual({ groups, destinations });

    sim.setFaults({ unavailable: { share: 0.08, windows: [], retryAfter: null, routes: null } });
    const gaps: string[] = [];
    const LISTINGS = ['/products/{product}/groups', '/products/{product}/workers'];
    const unavailable = () => LISTINGS.map((r) => sim.stats().requests[r]?.['503'] ?? 0);
    const before = unavailable();
    for (let t = 0; t < 120; t++) {
      await exp.runFor(1000, 20);
      const now = seen(await exp.scrape());
      const missing = [...groups].filter((g) => !now.groups.has(g));
      const gone = [...destinations].filter((d) => !now.destinations.has(d));
      if (missing.length + gone.length > 0) gaps.push(`at ${t} s: groups ${missing.join(',')}; ${gone.join(',')}`);
    }
    // The faults did reach the groups listing and the node listing (whose failure fails the discovery), else this
    // test proves nothing.
    unavailable().forEach((n, i) => expect(n, LISTINGS[i]).toBeGreaterThan(before[i]!));
    expect(gaps).toEqual([]);
  });

  it('while the groups listing and the data-flow reads fail, their series stay and their freshness stops', async () => {
    const clock = new FakeClock();
    const sim = await startSimulator({ nodes: 6, seed: 50, clock });
    closers.push(() => sim.close());
    const exp = await startFakeTimeExporter(sim, clock, ARGS);
    closers.push(() => exp.close());
    const fresh = (samples: readonly Sample[], collector: string): number | undefined =>
      samples.find(
        (s) => s.name === 'cribl_exporter_collector_last_success_timestamp_seconds' && s.labels.collector === collector,
      )?.value;
    await exp.runFor(5000, 20);
    const before = await exp.scrape();
    const kept = seen(before);
    const at = { groups: fresh(before, 'groups'), dataflow: fresh(before, 'dataflow') };
    expect(at.groups).toBeGreaterThan(0);
    expect(at.dataflow).toBeGreaterThan(0);

    sim.setFaults({
      unavailable: {
        share: 1,
        windows: [],
        retryAfter: null,
        routes: ['/products/{product}/groups', '/m/{group}/system/status/outputs'],
      },
    });
    await exp.runFor(20_000, 20);
    const during = await exp.scrape();
    expect(seen(during)).toEqual(kept);
    // The last answer's time, 20 s old now: the series are kept, and say how old they are.
    expect({ groups: fresh(during, 'groups'), dataflow: fresh(during, 'dataflow') }).toEqual(at);

    sim.setFaults({ unavailable: { share: 0, windows: [], retryAfter: null, routes: null } });
    // The leader's 503s paused the exporter's requests (its backoff); answers come back within a minute.
    await exp.runFor(60_000, 20);
    const after = await exp.scrape();
    expect(fresh(after, 'groups')).toBeGreaterThan(at.groups! + 20);
    expect(fresh(after, 'dataflow')).toBeGreaterThan(at.dataflow! + 20);
  });
});
