/**
 * Issue 49, Why 5: one slow or huge route does not starve the rest.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { startFakeTimeExporter } from '../helpers/fake-time-exporter.js';
import type { Sample } from '../helpers/parse-metrics.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

const value = (samples: Sample[], name: string): number | undefined => samples.find((s) => s.name === name)?.value;
const onReasons = (samples: Sample[], name: string): string[] =>
  samples.filter((s) => s.name === name && s.value === 1).map((s) => s.labels.reason!);

describe('a slow route keeps to itself (issue 49, Why 5)', () => {
  it.each([
    ['a token', [], undefined],
    ['a login', ['--leader.username', 'admin'], { CRIBL_PASSWORD: 'admin' }],
  ])(
    'node-health bodies dripping 1 byte every 2 s for 20 s (%s): discovery is answered, the leader up',
    async (_what, flags, env) => {
      const nodes = 30;
      const clock = new FakeClock();
      const sim = await startSimulator({ nodes, seed: 5, clock });
      closers.push(() => sim.close());
      const lines: string[] = [];
      const logger = pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) });
      const exp = await startFakeTimeExporter(
        sim,
        clock,
        ['--health.interval', '5s', '--discovery.interval', '10s', ...flags],
        env ?? { CRIBL_TOKEN: sim.token },
        { logger },
      );
      closers.push(() => exp.close());
      await exp.runFor(3000, 20);
      expect(value(await exp.scrape(), 'cribl_leader_up')).toBe(1);
      sim.setFaults({ drip: { share: 1, every: '2s', duration: '20s', routes: ['/w/{nodeId}/health'] } });
      const listed = (): number => sim.stats().requests['/products/{product}/workers']?.['200'] ?? 0;
      const before = listed();
      const log: string[] = [];
      const nodeReasons = new Set<string>();
      for (let t = 0; t < 90; t++) {
        await exp.runFor(1000, 50);
        const samples = await exp.scrape();
        const up = value(samples, 'cribl_leader_up');
        const why = onReasons(samples, 'cribl_leader_discovery_failure_info');
        if (up !== 1 || why.length > 0) log.push(`${t}s: up ${up} ${why.join(',')}`);
        for (const r of onReasons(samples, 'cribl_node_poll_failure_info')) nodeReasons.add(r);
      }
      expect(log).toEqual([]);
      // Every discovery interval (10 s) listed the workers.
      expect(listed() - before).toBeGreaterThanOrEqual(8);
      // The dripping answers are the nodes' slowness: timeouts, and late rounds are never blamed on credentials.
      expect([...nodeReasons]).toEqual(['timeout']);
      const causes = lines.map((l) => (JSON.parse(l) as { cause?: string }).cause).filter((c) => c !== undefined);
      expect(causes).not.toContain('credentials');
    },
    120_000,
  );

  it('node-health answers 14 s late at 100 nodes (under the headers timeout): discovery keeps its lane', async () => {
    const clock = new FakeClock();
    const sim = await startSimulator({ nodes: 100, seed: 5, clock });
    closers.push(() => sim.close());
    const exp = await startFakeTimeExporter(sim, clock, ['--health.interval', '2s', '--discovery.interval', '5s']);
    closers.push(() => exp.close());
    await exp.runFor(3000, 20);
    // Every node's answer is slow: the polls fill the whole concurrency window (and the slots of slow polls).
    sim.setFaults({ latency: { '/w/{nodeId}/health': { fixed: 14_000, jitter: 0 } } });
    const listed = (): number => sim.stats().requests['/products/{product}/workers']?.['200'] ?? 0;
    const before = listed();
    const log: string[] = [];
    for (let t = 0; t < 60; t++) {
      await exp.runFor(1000, 50);
      const samples = await exp.scrape();
      const up = value(samples, 'cribl_leader_up');
      const why = onReasons(samples, 'cribl_leader_discovery_failure_info');
      if (up !== 1 || why.length > 0) log.push(`${t}s: up ${up} ${why.join(',')}`);
    }
    expect(log).toEqual([]);
    expect(listed() - before).toBeGreaterThanOrEqual(10);
  }, 120_000);
});

describe('a huge route keeps to itself (issue 49, Why 5)', () => {
  it('50 MB node-health bodies on 10 % of polls are cut off as too_large; the rest is answered', async () => {
    const nodes = 30;
    const clock = new FakeClock();
    const sim = await startSimulator({ nodes, seed: 7, clock });
    closers.push(() => sim.close());
    const exp = await startFakeTimeExporter(sim, clock, ['--health.interval', '5s', '--discovery.interval', '10s']);
    closers.push(() => exp.close());
    await exp.runFor(3000, 20);
    sim.setFaults({ oversized: { share: 0.1, bytes: '50MB', routes: ['/w/{nodeId}/health'] } });
    const tooLarge = new Set<string>();
    const reasons = new Set<string>();
    for (let t = 0; t < 60; t++) {
      await exp.runFor(1000, 50);
      const samples = await exp.scrape();
      expect(value(samples, 'cribl_leader_up'), `at ${t} s`).toBe(1);
      expect(onReasons(samples, 'cribl_leader_discovery_failure_info'), `at ${t} s`).toEqual([]);
      for (const s of samples) {
        if (s.name !== 'cribl_node_poll_failure_info' || s.value !== 1) continue;
        reasons.add(s.labels.reason!);
        tooLarge.add(s.labels.node_id!);
      }
    }
    expect(sim.stats().faultsInjected.oversized).toBeGreaterThan(0);
    expect(tooLarge.size).toBeGreaterThan(0);
    expect([...reasons]).toEqual(['too_large']);
    const samples = await exp.scrape();
    // A too_large poll is that poll's answer only: the nodes' next polls answered, and their metadata too.
    const healthy = samples.filter((s) => s.name === 'cribl_node_health_up' && s.value === 1);
    expect(healthy.length).toBeGreaterThanOrEqual(nodes - 6);
    expect(Object.keys(sim.stats().requests['/w/{nodeId}/edge/metadata'] ?? {})).toEqual(['200']);
    const metadata = samples.filter((s) => s.name === 'cribl_node_metadata_last_success_timestamp_seconds');
    expect(metadata.length).toBeGreaterThanOrEqual(nodes - 3);
  }, 120_000);
});
