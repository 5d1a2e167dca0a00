import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IContainer, IPodSpec } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import type { Sizing, SizingSize } from '../../bench/lib/sizing.mjs';
import { loadDocs } from './kustomize.js';
import { ROOT } from './prometheusrule.js';

// The sizing figures have one owner: bench/sizing.json, which `npm run bench` writes with BENCHMARKS.md's sizing
// table. The manifests and the docs do not quote a run: each says which fleet it is sized for ("up to N nodes"), and
// this test checks that its resources cover what the last run measured at that size. A new run changes nothing here
// unless the resources no longer cover it; then the failure names the file, the figure and what the table suggests.

const sizing = JSON.parse(readFileSync(join(ROOT, 'bench', 'sizing.json'), 'utf8')) as Sizing;
const benchmarks = readFileSync(join(ROOT, 'BENCHMARKS.md'), 'utf8');

/** Headroom over the measured peak that a memory limit must leave (the suggestion leaves more). */
const PEAK_HEADROOM = 1.2;
/** How far a figure a doc quotes may be from the last run's before the doc must follow it. */
const QUOTE_TOLERANCE = 0.2;

/** CPU quantity in cores: "150m" → 0.15, "1" → 1. */
function cores(q: string | number): number {
  const s = String(q);
  return s.endsWith('m') ? Number(s.slice(0, -1)) / 1000 : Number(s);
}

/** Memory quantity in bytes: "192Mi", "1Gi", "256M". */
function bytes(q: string | number): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|K|M|G)?$/.exec(String(q));
  if (!m) throw new Error(`not a memory quantity: ${String(q)}`);
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, K: 1e3, M: 1e6, G: 1e9 }[m[2] ?? ''] ?? 1;
  return Number(m[1]) * unit;
}

const mb = (b: number): string => `${Math.round(b / 1e6)} MB`;
const nodes = (text: string): number => Number(text.replace(/,/g, ''));

/** The measured size a claim for `upTo` nodes is judged on: the smallest size of the run that is at least as large. */
function covering(upTo: number): SizingSize | undefined {
  return sizing.sizes.find((s) => s.nodes >= upTo);
}

/** What a manifest or a doc recommends for fleets up to `upTo` nodes. */
interface Claim {
  where: string;
  upTo: number;
  requests: { cpu: string; memory: string };
  limits: { cpu?: string; memory: string };
  /** NODE_OPTIONS --max-old-space-size, MiB. */
  heapMiB?: number;
}

/** Why a claim does not cover the last run's figures at its size: one line each, empty when it does. */
function shortfalls(c: Claim): string[] {
  const s = covering(c.upTo);
  if (!s)
    return [
      `${c.where}: sized for ${c.upTo.toLocaleString('en-US')} nodes, but bench/sizing.json has no size that large ` +
        '(run the full npm run bench)',
    ];
  const at = `at ${s.nodes.toLocaleString('en-US')} nodes in bench/sizing.json`;
  const out: string[] = [];
  const want = (what: string, has: string, need: string, suggested: string): void => {
    out.push(`${c.where}: ${what} ${has} is below ${need} ${at}; BENCHMARKS.md's sizing table suggests ${suggested}`);
  };
  if (cores(c.requests.cpu) < s.cpuCores)
    want('requests.cpu', c.requests.cpu, `the steady CPU (${s.cpuCores} cores)`, s.requests.cpu);
  if (bytes(c.requests.memory) < s.rssBytes)
    want('requests.memory', c.requests.memory, `the steady RSS (${mb(s.rssBytes)})`, s.requests.memory);
  if (bytes(c.limits.memory) < s.peakBytes * PEAK_HEADROOM)
    want('limits.memory', c.limits.memory, `the peak RSS (${mb(s.peakBytes)}) × ${PEAK_HEADROOM}`, s.limits.memory);
  if (c.limits.cpu !== undefined && cores(c.limits.cpu) < cores(sizing.rules.cpuLimitMin))
    out.push(
      `${c.where}: limits.cpu ${c.limits.cpu} throttles the start-up burst: at least ${sizing.rules.cpuLimitMin}`,
    );
  if (c.heapMiB !== undefined && c.heapMiB * 2 ** 20 >= bytes(c.limits.memory))
    out.push(`${c.where}: --max-old-space-size=${c.heapMiB} does not fit inside limits.memory ${c.limits.memory}`);
  return out;
}

/**
 * Sizing claims of a doc's text: the sentence "(150m CPU / 192Mi, limits 1 CPU / 256Mi, with
 * `NODE_OPTIONS=--max-old-space-size=160` …) are sized for fleets up to 10,000 nodes", and rows of a sizing table
 * ("| up to 10,000 nodes | … | 150m | 192Mi | 256Mi |": a node count in the first cell, a CPU request and one or
 * two memory quantities, the request then the limit); and the resident memory it quotes ("135 MB at 10,000").
 */
function docSizing(text: string, where: string): { claims: Claim[]; rss: { nodes: number; mb: number }[] } {
  const flat = text.replace(/\s+/g, ' ');
  const claims: Claim[] = [];
  const prose = new RegExp(
    String.raw`\((\d+m) CPU / (\d+[KMG]i), limits (\S+) CPU / (\d+[KMG]i)` +
      String.raw`(?:, with ${'`'}NODE_OPTIONS=--max-old-space-size=(\d+)${'`'})?` +
      String.raw`[^)]*\) are sized for fleets up to ([\d,]+) nodes`,
    'g',
  );
  for (const m of flat.matchAll(prose))
    claims.push({
      where,
      upTo: nodes(m[6]!),
      requests: { cpu: m[1]!, memory: m[2]! },
      limits: { cpu: m[3]!, memory: m[4]! },
      ...(m[5] ? { heapMiB: Number(m[5]) } : {}),
    });
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) continue;
    const cellsOf = line.split('|').map((c) => c.trim());
    const upTo = /([\d,]{4,}) nodes/.exec(cellsOf[1] ?? '')?.[1];
    const cpu = /\b(\d+m)\b/.exec(line)?.[1];
    const mem = [...line.matchAll(/\b(\d+[MG]i)\b/g)].map((m) => m[1]!);
    if (upTo && cpu && mem.length > 0)
      claims.push({
        where: `${where} (table row "${cellsOf[1]}")`,
        upTo: nodes(upTo),
        requests: { cpu, memory: mem[0]! },
        limits: { memory: mem[1] ?? mem[0]! },
      });
  }
  const rss = [...flat.matchAll(/(\d+) MB at ([\d,]{5,})/g)].map((m) => ({ nodes: nodes(m[2]!), mb: Number(m[1]) }));
  return { claims, rss };
}

/** The README's sizing: its "Sizing" section (a table), and any sentence "… are sized for fleets up to N nodes". */
function readmeSizing(): ReturnType<typeof docSizing> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = /^## Sizing$/m.exec(readme)?.index;
  const end = start === undefined ? -1 : readme.indexOf('\n## ', start);
  const text = [
    start === undefined ? '' : readme.slice(start, end < 0 ? undefined : end),
    ...[...readme.matchAll(/^.*are sized for fleets up to.*$/gm)].map((m) => m[0]),
  ].join('\n');
  return docSizing(text, 'README.md');
}

const MANIFESTS = ['deployment.yaml', 'sharded/statefulset.yaml', 'sidecar/leader.yaml'];

/** The exporter container of a manifest, its resources comment (without `#`s), and the heap cap it sets. */
function manifest(file: string): { container: IContainer | undefined; comment: string; heapMiB?: number } {
  const text = readFileSync(join(ROOT, 'deploy', 'kubernetes', file), 'utf8');
  const pod = loadDocs(text)
    .map((d) => (d.spec as { template?: { spec?: IPodSpec } } | undefined)?.template?.spec)
    .find((p) => p !== undefined);
  const container = pod?.containers.find((x) => x.image?.startsWith('cribl-exporter'));
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.trim() === 'resources:');
  const comment: string[] = [];
  for (let i = at + 1; i < lines.length && lines[i]!.trim().startsWith('#'); i++)
    comment.push(lines[i]!.trim().replace(/^#\s*/, ''));
  const heap = container?.env?.find((e) => e.name === 'NODE_OPTIONS')?.value;
  const heapMiB = /--max-old-space-size=(\d+)/.exec(heap ?? '')?.[1];
  return { container, comment: comment.join(' '), ...(heapMiB ? { heapMiB: Number(heapMiB) } : {}) };
}

describe('bench/sizing.json: the one owner of the sizing figures', () => {
  it('has the last run’s sizes, each with its suggested resources', () => {
    expect(sizing.sizes.length).toBeGreaterThan(0);
    for (const s of sizing.sizes) {
      expect(s.cpuCores).toBeGreaterThan(0);
      expect(s.peakBytes).toBeGreaterThanOrEqual(s.rssBytes);
      expect(shortfalls({ where: `the suggestion for ${s.nodes}`, upTo: s.nodes, ...s })).toEqual([]);
    }
    expect(sizing.shardAbove).toBe(sizing.sizes.at(-1)?.nodes);
  });

  it('is what BENCHMARKS.md’s sizing table says (both written by the same run)', () => {
    const section = /^## Sizing\n([\s\S]*?)^## /m.exec(benchmarks)?.[1] ?? '';
    const rows = [
      ...section.matchAll(/^\| ([\d,]+) nodes \| [^|]* \| [^|]* \| (\d+m), (\d+[MG]i) \| (\d+[MG]i) \|$/gm),
    ].map((m) => ({ nodes: nodes(m[1]!), requests: { cpu: m[2], memory: m[3] }, limits: { memory: m[4] } }));
    expect(rows).toEqual(
      sizing.sizes.map((s) => ({ nodes: s.nodes, requests: s.requests, limits: { memory: s.limits.memory } })),
    );
  });
});

describe.each(MANIFESTS)('deploy/kubernetes/%s', (file) => {
  const m = manifest(file);
  const upTo = /up to ([\d,]+) nodes/.exec(m.comment)?.[1];

  it('says which fleet it is sized for, from BENCHMARKS.md, and quotes no figure of a run', () => {
    expect(m.comment).toContain('BENCHMARKS.md');
    expect(m.comment).toContain('bench/sizing.json');
    expect(upTo, 'the resources comment names no "up to N nodes"').toBeDefined();
    expect(m.comment).not.toMatch(/\d+(?:\.\d+)? ?(?:MB|cores)\b/);
  });

  it('has resources that cover the last run at that size', () => {
    const r = m.container?.resources;
    const claim: Claim = {
      where: `deploy/kubernetes/${file}`,
      upTo: nodes(upTo ?? '0'),
      requests: { cpu: String(r?.requests?.cpu), memory: String(r?.requests?.memory) },
      limits: { cpu: String(r?.limits?.cpu), memory: String(r?.limits?.memory) },
      ...(m.heapMiB !== undefined ? { heapMiB: m.heapMiB } : {}),
    };
    expect(shortfalls(claim)).toEqual([]);
  });
});

describe('docs/deploy.md', () => {
  const doc = docSizing(readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8'), 'docs/deploy.md');

  it('states the manifests’ resources and the fleet they are sized for', () => {
    const d = manifest('deployment.yaml');
    expect(doc.claims).toHaveLength(1);
    const c = doc.claims[0]!;
    expect(c.upTo).toBe(nodes(/up to ([\d,]+) nodes/.exec(d.comment)?.[1] ?? '0'));
    expect(c.requests).toEqual({
      cpu: String(d.container?.resources?.requests?.cpu),
      memory: String(d.container?.resources?.requests?.memory),
    });
    expect(c.limits).toEqual({
      cpu: String(d.container?.resources?.limits?.cpu),
      memory: String(d.container?.resources?.limits?.memory),
    });
    expect(c.heapMiB).toBe(d.heapMiB);
  });

  it('recommends what covers the last run, and quotes no memory figure of its own', () => {
    expect(doc.claims.flatMap(shortfalls)).toEqual([]);
    expect(doc.rss).toEqual([]);
  });
});

describe('README.md (read through readmeSizing)', () => {
  const readme = readmeSizing();

  it('recommends resources that cover the last run', () => {
    expect(readme.claims.length).toBeGreaterThan(0);
    expect(readme.claims.flatMap(shortfalls)).toEqual([]);
  });

  it('says to shard above the largest size the last run measured', () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const above = /^\| above ([\d,]+) nodes \| shard\b/m.exec(text)?.[1];
    expect(above, 'README.md has no sizing row "| above N nodes | shard …"').toBeDefined();
    expect(nodes(above!)).toBe(sizing.shardAbove);
    expect(Math.max(...readme.claims.map((c) => c.upTo))).toBe(sizing.shardAbove);
  });

  it(`quotes resident memory within ${QUOTE_TOLERANCE * 100} % of the last run's, at sizes it measured`, () => {
    const off = readme.rss.flatMap(({ nodes: n, mb: quoted }) => {
      const s = sizing.sizes.find((x) => x.nodes === n);
      if (!s) return [`README.md quotes ${quoted} MB at ${n} nodes, a size bench/sizing.json does not have`];
      const measured = s.rssBytes / 1e6;
      return Math.abs(quoted - measured) > measured * QUOTE_TOLERANCE
        ? [`README.md quotes ${quoted} MB at ${n} nodes; the last run measured ${mb(s.rssBytes)} (bench/sizing.json)`]
        : [];
    });
    expect(off).toEqual([]);
  });
});

describe('the sizing checks themselves', () => {
  const ten = covering(10_000);

  it.runIf(ten !== undefined)('name the file, the figure and the suggestion when resources fall short', () => {
    const s = ten!;
    const tooSmall: Claim = {
      where: 'x.yaml',
      upTo: s.nodes,
      requests: { cpu: '1m', memory: '1Mi' },
      limits: { cpu: '100m', memory: '1Mi' },
      heapMiB: 4096,
    };
    const said = shortfalls(tooSmall).join('\n');
    expect(said).toContain(`x.yaml: requests.cpu 1m is below the steady CPU (${s.cpuCores} cores)`);
    expect(said).toContain(`suggests ${s.requests.memory}`);
    expect(said).toContain('limits.memory 1Mi is below the peak RSS');
    expect(said).toContain('limits.cpu 100m throttles the start-up burst');
    expect(said).toContain('--max-old-space-size=4096 does not fit');
  });

  it('read a sizing table row and the prose sentence', () => {
    const got = docSizing(
      [
        'Its (100m CPU / 128Mi, limits 1 CPU / 256Mi, with `NODE_OPTIONS=--max-old-space-size=160` so that V8',
        'stays inside) are sized for fleets up to 2,000 nodes. Memory: 104 MB at 2,000 nodes.',
        '| fleet | CPU | memory |',
        '|---|---|---|',
        '| up to 10,000 nodes | 150m | 192Mi–256Mi |',
      ].join('\n'),
      'doc',
    );
    expect(got.claims).toEqual([
      {
        where: 'doc',
        upTo: 2000,
        requests: { cpu: '100m', memory: '128Mi' },
        limits: { cpu: '1', memory: '256Mi' },
        heapMiB: 160,
      },
      {
        where: 'doc (table row "up to 10,000 nodes")',
        upTo: 10_000,
        requests: { cpu: '150m', memory: '192Mi' },
        limits: { memory: '256Mi' },
      },
    ]);
    expect(got.rss).toEqual([{ nodes: 2000, mb: 104 }]);
  });
});
