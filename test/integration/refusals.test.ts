/**
 * Issue 49, "refusals still leak beyond their route": a 403 on one route the exporter reads besides the listing and
 * the node health checks belongs to that route. It never pauses node polling (a 403 on /w/{id}/edge/metadata or on
 * /products/{p}/groups showed 21 to 30 of 30 healthy nodes down), and a collector refused on some of its routes says
 * so per route while it exports what the others answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '@cribl-exporter/simulator';
import type { Sample } from '../helpers/parse-metrics.js';
import { startTestExporter, type TestExporter } from '../helpers/test-exporter.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** A simulator whose restricted token is refused (403) on `routes` alone, and an exporter using that token. */
async function refusedOn(
  routes: NonNullable<SimulatorOptions['restrictedRoutes']>,
  args: string[] = [],
): Promise<{ sim: Simulator; exp: TestExporter }> {
  const sim = await startSimulator({ nodes: 30, seed: 12, restrictedRoutes: routes });
  closers.push(() => sim.close());
  const exp = await startTestExporter(sim, args, { env: { CRIBL_TOKEN: sim.restrictedToken } });
  closers.push(() => exp.app.close());
  return { sim, exp };
}

const byNode = (samples: Sample[], name: string): Map<string, number> =>
  new Map(samples.filter((s) => s.name === name).map((s) => [s.labels.node_id!, s.value]));

/** Every node the simulator has healthy and connected reads healthy 1, and no node has a failed poll. */
function expectEveryHealthyNodeHealthy(sim: Simulator, samples: Sample[]): void {
  const healthy = sim.fleet.nodes().filter((n) => n.health === 'healthy' && !n.disconnected);
  expect(healthy.length).toBeGreaterThan(10);
  const shown = byNode(samples, 'cribl_node_healthy');
  expect(healthy.filter((n) => shown.get(n.id) !== 1).map((n) => n.id)).toEqual([]);
  const failed = samples.filter((s) => s.name === 'cribl_node_poll_failure_info' && s.value === 1);
  expect(failed.filter((s) => healthy.some((n) => n.id === s.labels.node_id))).toEqual([]);
}

describe('a refusal belongs to its route', () => {
  it('a 403 on /w/{nodeId}/edge/metadata alone leaves every healthy node healthy through its polls', async () => {
    const { sim, exp } = await refusedOn(['/w/{nodeId}/edge/metadata']);
    await exp.run('discovery');
    // The first fetch of every node's metadata is spread over its second to fifth polls.
    for (let i = 0; i < 6; i++) {
      await exp.run('health');
      expectEveryHealthyNodeHealthy(sim, (await exp.scrape()).samples);
    }
    const refused = sim.stats().requests['/w/{nodeId}/edge/metadata'] ?? {};
    expect(refused['403']).toBeGreaterThan(0);
  });

  it('a 403 on /products/{product}/groups alone leaves every healthy node healthy and the leader up', async () => {
    const { sim, exp } = await refusedOn(['/products/{product}/groups']);
    for (let i = 0; i < 3; i++) {
      await exp.run('discovery');
      await exp.run('health');
      const samples = (await exp.scrape()).samples;
      expect(samples.find((s) => s.name === 'cribl_leader_up')?.value).toBe(1);
      expectEveryHealthyNodeHealthy(sim, samples);
    }
  });

  it.each([
    {
      collector: 'dataflow',
      refused: '/m/{group}/system/status/outputs',
      allowed: '/m/{group}/system/status/inputs',
      missing: 'cribl_destination_health',
      exported: 'cribl_source_health',
    },
    {
      collector: 'license',
      refused: '/system/licenses',
      allowed: '/system/licenses/usage',
      missing: 'cribl_license_info',
      exported: 'cribl_license_usage_in_bytes',
    },
  ] as const)(
    '$collector refused on $refused only: what $allowed answers is exported, the refusal shows per route',
    async ({ collector, refused, allowed, missing, exported }) => {
      const { sim, exp } = await refusedOn([refused]);
      await exp.run('discovery');
      await exp.run(collector);
      const samples = (await exp.scrape()).samples;
      expect(sim.stats().requests[refused]?.['403']).toBeGreaterThan(0);
      expect(samples.filter((s) => s.name === exported).length).toBeGreaterThan(0);
      expect(samples.filter((s) => s.name === missing)).toEqual([]);
      // The collector stays on: it still answers on its other route.
      const enabled = samples.find(
        (s) => s.name === 'cribl_exporter_collector_enabled' && s.labels.collector === collector,
      );
      expect(enabled?.value).toBe(1);
      const perRoute = Object.fromEntries(
        samples
          .filter((s) => s.name === 'cribl_exporter_endpoint_refused' && s.labels.collector === collector)
          .map((s) => [s.labels.endpoint!, s.value]),
      );
      expect(perRoute).toEqual({ [refused]: 1, [allowed]: 0 });
    },
  );
});
