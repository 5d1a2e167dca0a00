import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keptSections } from '../../bench/lib/kept.mjs';
import { REPORT_BUDGET_BYTES } from '../../bench/lib/report.mjs';
import { simulatorFleetArgs } from '../../bench/leader-cost.mjs';

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

  it('holds the scripts of npm run bench and bench:alternative and two general probes, nothing else', () => {
    const scripts = readdirSync(join(ROOT, 'bench')).filter((f) => f.endsWith('.mjs'));
    expect(scripts.sort()).toEqual(
      [
        // npm run bench and what it starts
        'run.mjs',
        'exporter.mjs',
        'fair.mjs',
        'leader-cost.mjs',
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
      ].sort(),
    );
  });
});

describe('simulatorFleetArgs', () => {
  it.each<[string, string[]]>([
    ['  --nodes N   fleet size\n  --seed N', []],
    ['  --nodes N\n  --groups N   number of groups\n', ['--groups', '10']],
    ['  --groups N\n  --destinations N   per group\n', ['--groups', '10', '--destinations', '100']],
  ])('%j → %j', (help, want) => {
    expect(simulatorFleetArgs(help, { groups: 10, destinations: 100 })).toEqual(want);
  });
});
