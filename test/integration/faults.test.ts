import { afterAll, describe, expect, it } from 'vitest';
import { FAILURE_REASONS } from '../../src/http/failure.js';
import { startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { startTestExporter } from '../helpers/test-exporter.js';

const TOKEN = 'sim-fault-test-token';
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c();
});

/** An exporter with short timeouts and a small response cap, so that faults show within a test. */
async function exporterFor(sim: Simulator, args: string[] = []) {
  const exp = await startTestExporter(sim, [
    '--leader.max-rps',
    '1000',
    '--leader.max-concurrency',
    '16',
    '--leader.timeout.headers',
    '300ms',
    '--leader.max-response-size',
    '256KiB',
    ...args,
  ]);
  closers.push(() => exp.app.close());
  return { app: exp.app, run: exp.run, scrape: async () => (await exp.scrape()).samples };
}

describe('a misbehaving leader', () => {
  it(
    'resets, malformed and oversized bodies, timeouts and 503s end as bounded failure reasons, never as a ' + 'crash',
    async () => {
      const sim = await startSimulator({ nodes: 120, seed: 5, token: TOKEN });
      closers.push(() => sim.close());
      const nodes = sim.fleet.nodes();
      sim.fleet.setHealth(nodes[0]!.id, 'slow');
      sim.fleet.setHealth(nodes[1]!.id, 'slow');
      const { run, scrape } = await exporterFor(sim);
      await run('discovery');
      const health = ['/w/{nodeId}/health'] as const;
      sim.setFaults({
        slowNodeDelay: 5_000,
        resets: { share: 0.15, routes: [...health] },
        malformed: { share: 0.15, routes: [...health] },
        oversized: { share: 0.1, bytes: 2_000_000, routes: [...health] },
        unavailable: { share: 0.02, windows: [], retryAfter: null, retryAfterForm: 'seconds', routes: [...health] },
      });
      await run('health');
      await run('health');
      const samples = await scrape();
      const reasons = samples.filter((s) => s.name === 'cribl_node_poll_failure_info').map((s) => s.labels.reason!);
      for (const r of reasons) expect(FAILURE_REASONS).toContain(r);
      expect(reasons).toContain('decode'); // malformed
      expect(reasons).toContain('too_large'); // oversized: not a decode failure
      expect(reasons).toContain('timeout'); // the slow nodes
      for (const id of [nodes[0]!.id, nodes[1]!.id]) {
        expect(
          samples.find((s) => s.name === 'cribl_node_poll_failure_info' && s.labels.node_id === id)?.labels.reason,
        ).toBe('timeout');
      }
      // Everything else answered at least once in two cycles, and the listing kept working.
      expect(samples.find((s) => s.name === 'cribl_leader_up')?.value).toBe(1);
      const up = samples.filter((s) => s.name === 'cribl_node_health_up');
      expect(up).toHaveLength(120);
      expect(up.filter((s) => s.value === 1).length).toBeGreaterThan(60);
      // No raw error text in any label value.
      for (const s of samples)
        for (const v of Object.values(s.labels)) expect(v).not.toMatch(/Error|ECONN|stack|at .*\.js/);
    },
  );

  it('survives a leader restart on the same address without intervention', async () => {
    const first = await startSimulator({ nodes: 30, seed: 9, token: TOKEN });
    const port = Number(new URL(first.origin).port);
    const { run, scrape } = await exporterFor(first);
    await run('discovery');
    await run('health');
    expect((await scrape()).find((s) => s.name === 'cribl_leader_up')?.value).toBe(1);

    await first.close();
    await run('discovery');
    await run('health');
    const down = await scrape();
    expect(down.find((s) => s.name === 'cribl_leader_up')?.value).toBe(0);
    // Nodes stay (the leader, not the fleet, is gone) but none answers.
    expect(down.filter((s) => s.name === 'cribl_node_health_up' && s.value === 1)).toHaveLength(0);
    expect(new Set(down.filter((s) => s.name === 'cribl_node_poll_failure_info').map((s) => s.labels.reason))).toEqual(
      new Set(['connect']),
    );

    const second = await startSimulator({ nodes: 30, seed: 9, token: TOKEN, port });
    closers.push(() => second.close());
    await run('discovery');
    await run('health');
    const back = await scrape();
    expect(back.find((s) => s.name === 'cribl_leader_up')?.value).toBe(1);
    expect(back.filter((s) => s.name === 'cribl_node_health_up' && s.value === 1).length).toBeGreaterThan(25);
  });

  it('a 420 window on the whole API pauses polling; work resumes after the leader is back', async () => {
    const sim = await startSimulator({ nodes: 40, seed: 11, token: TOKEN });
    closers.push(() => sim.close());
    const { run, scrape } = await exporterFor(sim, ['--leader.health-probe-interval', '1s']);
    await run('discovery');
    sim.fleet.setLeaderState('standby');
    sim.resetStats();
    const discovering = run('discovery');
    await new Promise((r) => setTimeout(r, 400));
    // While the leader is not serving, only GET /health reaches it: the first 420 (on the leader's own /health or on
    // the listing, whichever went first) holds everything else.
    const during = sim.stats().requests;
    expect(during['/health']).toBeDefined();
    expect(Object.keys(during).filter((r) => r !== '/health' && r !== '/products/{product}/workers')).toEqual([]);
    const listings = Object.values(during['/products/{product}/workers'] ?? {}).reduce((a, b) => a + b, 0);
    expect(listings).toBeLessThanOrEqual(1);
    sim.fleet.setLeaderState('healthy');
    await discovering;
    await run('health');
    const samples = await scrape();
    expect(samples.find((s) => s.name === 'cribl_leader_up')?.value).toBe(1);
    expect(samples.filter((s) => s.name === 'cribl_node_healthy' && s.value === 1).length).toBeGreaterThan(30);
    expect(
      samples.find((s) => s.name === 'cribl_exporter_leader_throttled_total' && s.labels.code === '420')?.value,
    ).toBe(1);
  });
});
