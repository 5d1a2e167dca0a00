import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IContainer, IPodSpec } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { loadDocs } from './kustomize.js';
import { ROOT } from './prometheusrule.js';

// The README's sizing figures and the Kubernetes resources follow BENCHMARKS.md, which `npm run bench` regenerates:
// after a new run, this fails until they are brought in line (issue 17: "the README's sizing section and the
// Kubernetes resources follow the new figures").

const benchmarks = readFileSync(join(ROOT, 'BENCHMARKS.md'), 'utf8');
// As one line: a sentence of the README may break anywhere.
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');

interface Size {
  cores: number;
  rss: number;
  peak: number;
}

/** "Scale with the fleet: 1k: 0.056 cores, 100 MB RSS (peak 101 MB); 2k: …" of BENCHMARKS.md's Sizing section. */
function sizes(): Map<string, Size> {
  const line = /Scale with the fleet: (.*)\.$/m.exec(benchmarks)?.[1];
  if (!line) throw new Error('BENCHMARKS.md has no "Scale with the fleet" line');
  const out = new Map<string, Size>();
  for (const m of line.matchAll(/(\w+): ([\d.]+) cores[^,]*, (\d+) MB RSS \(peak (\d+) MB\)/g)) {
    out.set(m[1]!, { cores: Number(m[2]), rss: Number(m[3]), peak: Number(m[4]) });
  }
  return out;
}

/** The suggested resources of BENCHMARKS.md: `requests: {cpu: 100m, memory: 128Mi}`, `limits: {memory: 256Mi}`. */
function suggested(): { cpu: string; memory: string; limit: string } {
  const m = /`requests: \{cpu: (\w+), memory: (\w+)\}`, `limits: \{memory: (\w+)\}`/.exec(benchmarks);
  if (!m) throw new Error('BENCHMARKS.md has no suggested Kubernetes resources');
  return { cpu: m[1]!, memory: m[2]!, limit: m[3]! };
}

const MANIFESTS = ['deployment.yaml', 'sharded/statefulset.yaml', 'sidecar/leader.yaml'];

/** The text of a manifest's comments, without the `#`s and line breaks. */
const comments = (text: string): string =>
  text
    .split('\n')
    .filter((l) => l.trim().startsWith('#'))
    .map((l) => l.trim().replace(/^#\s*/, ''))
    .join(' ');

describe('sizing figures follow BENCHMARKS.md', () => {
  const s = sizes();
  const at = (label: string): Size => {
    const v = s.get(label);
    if (!v) throw new Error(`BENCHMARKS.md's sizing has no ${label} size`);
    return v;
  };

  it('reads every size of the last run', () => {
    expect([...s.keys()]).toEqual(['1k', '2k', '10k', '50k']);
  });

  it("the README's memory and 50k CPU figures are the last run's", () => {
    const [k1, k2, k10, k50] = [at('1k'), at('2k'), at('10k'), at('50k')];
    expect(readme).toContain(
      `${k1.rss} MB at 1,000 nodes and ${k2.rss} MB at 2,000 (${k1.peak} and ${k2.peak} MB at peak), ` +
        `${k10.rss} MB at 10,000 (${k10.peak} MB) and ${k50.rss} MB at 50,000 (${k50.peak} MB at peak)`,
    );
    expect(readme).toContain(`with ${k50.cores.toFixed(2)} cores in the steady state`);
  });

  it.each(MANIFESTS)('%s: resources as suggested, and its comment quotes the last run', (file) => {
    const text = readFileSync(join(ROOT, 'deploy', 'kubernetes', file), 'utf8');
    const pod = loadDocs(text)
      .map((d) => (d.spec as { template?: { spec?: IPodSpec } } | undefined)?.template?.spec)
      .find((p) => p !== undefined);
    const c: IContainer | undefined = pod?.containers.find((x) => x.image?.startsWith('cribl-exporter'));
    const want = suggested();
    expect(c?.resources?.requests).toMatchObject({ cpu: want.cpu, memory: want.memory });
    expect(c?.resources?.limits).toMatchObject({ memory: want.limit });
    const [k1, k10, k50] = [at('1k'), at('10k'), at('50k')];
    const said = comments(text);
    expect(said).toContain(
      `about 1,000 nodes used ${k1.cores.toFixed(2)} cores and ${k1.rss} MB RSS, ${k1.peak} MB at peak ` +
        `(10,000: ${k10.cores.toFixed(2)} cores, ${k10.rss} MB, ${k10.peak} MB at peak`,
    );
    expect(said).toContain(`50,000: ${k50.cores.toFixed(2)} cores, ${k50.rss} MB, ${k50.peak} MB at peak`);
    // "within this limit": 10k's peak fits the suggested memory limit (Mi = 2^20 bytes; the report's MB are 10^6).
    expect(k10.peak * 1e6).toBeLessThan(Number(/^(\d+)Mi$/.exec(want.limit)?.[1]) * 2 ** 20);
  });
});
