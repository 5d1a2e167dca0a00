import { describe, expect, it } from 'vitest';
import { sizingOf, suggestResources } from '../../bench/lib/sizing.mjs';

const MB = 1e6;

describe('suggestResources', () => {
  type Measured = { cpuCores: number; rssBytes: number; peakBytes: number };
  it.each<[string, Measured, [string, string, string]]>([
    // CPU × 1.5 in steps of 50m (at least 50m); RSS × 1.25 in steps of 32Mi; peak × 1.5 in steps of 64Mi (≥ 256Mi).
    ['a small fleet', { cpuCores: 0.01, rssBytes: 60 * MB, peakBytes: 70 * MB }, ['50m', '96Mi', '256Mi']],
    ['1k of 9f1a573', { cpuCores: 0.045, rssBytes: 100 * MB, peakBytes: 100 * MB }, ['100m', '128Mi', '256Mi']],
    ['10k of 9f1a573', { cpuCores: 0.093, rssBytes: 135 * MB, peakBytes: 137 * MB }, ['150m', '192Mi', '256Mi']],
    ['50k of 9f1a573', { cpuCores: 0.339, rssBytes: 302 * MB, peakBytes: 312 * MB }, ['550m', '384Mi', '448Mi']],
    [
      'exactly on a step',
      { cpuCores: 0.1, rssBytes: 128 * 1048576 * 0.8, peakBytes: 256 * 1048576 },
      ['150m', '128Mi', '384Mi'],
    ],
  ])('%s', (_name, measured, [cpu, memory, limit]) => {
    expect(suggestResources(measured)).toEqual({ requests: { cpu, memory }, limits: { memory: limit } });
  });
});

describe('sizingOf', () => {
  const size = (nodes: number, cores: number, rss: number, peak: number, lifetimePeak?: number) => ({
    nodes,
    intervals: { healthS: 30, discoveryS: 60, metadataS: 600 },
    steady: { exporterCpuCores: cores, rss: rss * MB, peakRss: peak * MB },
    firstMetadataRound: { exporterCpuCores: cores * 1.2 },
    coverage: { exporterCpuShare: 0.9 },
    ...(lifetimePeak === undefined ? {} : { lifetimePeakRss: lifetimePeak * MB }),
  });

  it('lists the sizes with a steady window in ascending order, peak including the start-up burst', () => {
    const s = sizingOf({
      date: '2026-12-01T00:00:00.000Z',
      code: { commit: 'abc1234' },
      results: [size(10_000, 0.09, 135, 137, 150), { nodes: 2000 }, size(1000, 0.045, 100, 100)],
    });
    expect(s.sizes.map((x) => x.nodes)).toEqual([1000, 10_000]);
    expect(s.sizes[1]).toMatchObject({ cpuCores: 0.09, firstMinutesCpuCores: 0.108 });
    expect(s.sizes[1]).toMatchObject({ rssBytes: 135e6, peakBytes: 150e6 });
    expect(s.sizes[1]!.limits.memory).toBe('256Mi');
    expect(s).toMatchObject({ commit: 'abc1234', shardAbove: 10_000, intervals: { healthS: 30 } });
  });
});
