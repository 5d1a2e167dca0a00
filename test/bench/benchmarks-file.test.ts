import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keptSections } from '../../bench/lib/kept.mjs';
import { REPORT_BUDGET_BYTES } from '../../bench/lib/report.mjs';
import { LEADER_COST_SCENARIO } from '../../bench/leader-cost.mjs';
import { parseScenario, startSimulator } from '@cribl-exporter/simulator';

const ROOT = join(import.meta.dirname, '..', '..');
const doc = readFileSync(join(ROOT, 'BENCHMARKS.md'), 'utf8');

describe('BENCHMARKS.md as published', () => {
  it(`is at most ${REPORT_BUDGET_BYTES / 1024} KB`, () => {
    expect(Buffer.byteLength(doc)).toBeLessThanOrEqual(REPORT_BUDGET_BYTES);
  });

  it('has the sizing table, the kept comparison and Mechanisms sections, and says how to reproduce each figure', () => {
    expect(doc).toMatch(/^## Sizing$/m);
    const kept = keptSections(doc);
    expect(Object.keys(kept).sort()).toEqual(['alternative', 'mechanisms']);
    expect(kept.alternative).toMatch(/^## Against the alternative/m);
    expect(kept.mechanisms).toContain('| mechanism | what it does | figure without it | kept/cut |');
    expect(doc).toMatch(/^## How to reproduce$/m);
  });
});

describe('bench/', () => {
  it('keeps no history: no analysis or notes files', () => {
    const files = readdirSync(join(ROOT, 'bench'));
    expect(files.filter((f) => f === 'ANALYSIS.md' || /^notes-.*\.md$/.test(f))).toEqual([]);
  });

  it('holds the scripts of npm run bench and bench:alternative and the general probes, nothing else', () => {
    const scripts = readdirSync(join(ROOT, 'bench')).filter((f) => f.endsWith('.mjs'));
    expect(scripts.sort()).toEqual(
      [
        // npm run bench and what it starts
        'run.mjs',
        'exporter.mjs',
        'fair.mjs',
        'leader-cost.mjs',
        // its Edge-heavy sizes, 100k and more (issue 51)
        'scale.mjs',
        'bare-node.mjs',
        'bare-server.mjs',
        'cli-child.mjs',
        'prom-client.mjs',
        'undici-floor.mjs',
        // npm run bench:alternative
        'alternative.mjs',
        // general probes
        'steady-probe.mjs',
        'profile-summary.mjs',
        // what the exporter keeps per node, in process (issue 51)
        'memory-per-node.mjs',
      ].sort(),
    );
  });
});

describe('the leader-cost fleet', () => {
  it('is 10 groups and 100 destinations, as issue 39 measures it', async () => {
    const file = join(ROOT, 'bench', LEADER_COST_SCENARIO);
    const sim = await startSimulator({ nodes: 20, scenario: parseScenario(readFileSync(file, 'utf8'), file) });
    try {
      const groups = [...sim.fleet.groups('stream'), ...sim.fleet.groups('edge')].map((g) => g.id);
      expect(groups).toHaveLength(10);
      const destinations = groups.reduce((n, g) => n + (sim.dataflow(g)?.outputs.length ?? 0), 0);
      expect(destinations).toBe(100);
    } finally {
      await sim.close();
    }
  });
});
