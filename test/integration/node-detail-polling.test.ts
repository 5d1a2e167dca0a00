/**
 * Polling at each node detail level against the simulated leader (issue 51): at basic and minimal the riders
 * (metadata) never poll a node, health still does, and the exporter reports the rotation (its gauge) but never an
 * overrun; at full (the default) metadata follows as before. The jobs run by hand: no timing is asserted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { startTestExporter, type TestExporter } from '../helpers/test-exporter.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function polled(args: string[]): Promise<{ sim: Simulator; exp: TestExporter }> {
  const sim = await startSimulator({ nodes: 30, seed: 7 });
  closers.push(() => sim.close());
  const exp = await startTestExporter(sim, args);
  closers.push(() => exp.app.close());
  await exp.run('discovery');
  // Metadata of a new fleet is fetched over its second to fifth health polls (at full).
  for (let i = 0; i < 6; i++) await exp.run('health');
  return { sim, exp };
}

const count = (sim: Simulator, route: string): number =>
  Object.values(sim.stats().requests[route] ?? {}).reduce((a, n) => a + n, 0);

describe('polling at each node detail level', () => {
  it('at basic and minimal: health polls go on, no metadata is asked, a rotation and no overrun reported', async () => {
    const { sim, exp } = await polled(['--edge.node-detail', 'minimal', '--stream.node-detail', 'basic']);
    expect(count(sim, '/w/{nodeId}/health')).toBeGreaterThanOrEqual(30);
    expect(count(sim, '/w/{nodeId}/edge/metadata')).toBe(0);
    const { samples } = await exp.scrape();
    const rotation = samples.filter((s) => s.name === 'cribl_exporter_health_rotation_seconds');
    expect(rotation.map((s) => s.labels.product).sort()).toEqual(['edge', 'stream']);
    for (const s of rotation) expect(s.value).toBeGreaterThan(0);
    expect(samples.find((s) => s.name === 'cribl_exporter_health_cycle_overrun')?.value).toBe(0);
  }, 60_000);

  it('at full (the default): metadata follows the health answers, and no rotation is reported', async () => {
    const { sim, exp } = await polled([]);
    expect(count(sim, '/w/{nodeId}/edge/metadata')).toBeGreaterThanOrEqual(25);
    const { text } = await exp.scrape();
    expect(text).not.toContain('cribl_exporter_health_rotation_seconds');
  }, 60_000);
});
