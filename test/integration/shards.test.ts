import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/exporter/app.js';
import { startSimulator, type Simulator } from '@cribl-exporter/simulator';
import type { Sample } from '../helpers/parse-metrics.js';
import { startTestExporter } from '../helpers/test-exporter.js';

let sim: Simulator;
const apps: App[] = [];
const scrapers = new Map<App, () => Promise<Sample[]>>();

async function start(args: string[]): Promise<{ app: App; run: (p: string) => Promise<void> }> {
  // A poll may wait for the budget until half an interval has passed, then gives up unsent: at the helper's 2 s, a
  // busy machine left a few of 240 unsent, and the test counts every request. 60 s leaves every one of them time.
  const exp = await startTestExporter(sim, ['--health.interval', '60s', ...args]);
  apps.push(exp.app);
  scrapers.set(exp.app, async () => (await exp.scrape()).samples);
  return { app: exp.app, run: exp.run };
}

const scrape = (app: App): Promise<Sample[]> => scrapers.get(app)!();

beforeAll(async () => {
  sim = await startSimulator({ nodes: 240, seed: 3 });
});

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await sim.close();
});

describe('sharding', () => {
  it('three shards together export every node exactly once and say which shard they are', async () => {
    const seen = new Map<string, number>();
    const leaderHealthRequests: number[] = [];
    for (let index = 0; index < 3; index++) {
      const { app, run } = await start(['--shard.total', '3', '--shard.index', String(index)]);
      sim.resetStats();
      await run('discovery');
      await run('health');
      const health = sim.stats().requests['/w/{nodeId}/health'] ?? {};
      leaderHealthRequests.push(Object.values(health).reduce((a, b) => a + b, 0));
      const samples = await scrape(app);
      for (const s of samples.filter((x) => x.name === 'cribl_node_info'))
        seen.set(s.labels.node_id!, (seen.get(s.labels.node_id!) ?? 0) + 1);
      expect(samples.find((s) => s.name === 'cribl_exporter_shard_index')?.value).toBe(index);
      expect(samples.find((s) => s.name === 'cribl_exporter_shard_total')?.value).toBe(3);
    }
    expect(seen.size).toBe(sim.fleet.size());
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    // Each shard polls only its share.
    expect(leaderHealthRequests.reduce((a, b) => a + b, 0)).toBe(sim.fleet.size());
    for (const n of leaderHealthRequests) expect(n).toBeLessThan(sim.fleet.size() * 0.5);
  });

  it('without sharding there are no shard series', async () => {
    const { app, run } = await start([]);
    await run('discovery');
    const names = new Set((await scrape(app)).map((s) => s.name));
    expect(names.has('cribl_exporter_shard_total')).toBe(false);
    expect(names.has('cribl_node_info')).toBe(true);
  });
});

describe('--max-nodes', () => {
  it('exports at most that many nodes and counts the rest', async () => {
    const { app, run } = await start(['--max-nodes', '100']);
    await run('discovery');
    await run('health');
    const samples = await scrape(app);
    expect(samples.filter((s) => s.name === 'cribl_node_info')).toHaveLength(100);
    expect(samples.find((s) => s.name === 'cribl_exporter_nodes_over_limit')?.value).toBe(sim.fleet.size() - 100);
    expect(samples.find((s) => s.name === 'cribl_exporter_nodes')?.value).toBe(100);
    // Nodes that are not exported are not polled either.
    expect(samples.filter((s) => s.name === 'cribl_node_health_up')).toHaveLength(100);
  });
});
