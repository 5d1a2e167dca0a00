// The body renders per node detail level (issue 51): a node family only for the nodes whose product's level exports
// it, no HELP or TYPE for a family none does, and a change of level re-renders at once (the kept texts of the last
// build are not reused), through both builders.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Collector } from '../../src/collectors/collector.js';
import { detailFacts, type DetailLevels } from '../../src/collectors/detail.js';
import { createBodyCache, type SnapshotBody } from '../../src/exposition/body/index.js';
import { LeaderSnapshot } from '../../src/store/snapshot.js';
import { parseSamples } from '../helpers/parse-metrics.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { node } from './fixtures.js';

const DEFAULTS: Record<string, unknown> = {
  node_health: { intervalMs: 30_000 },
  node_metadata: { intervalMs: 600_000 },
  git_settings: { enabled: true },
  packs: { enabled: false, intervalMs: 600_000 },
  search: { intervalMs: 0, query: 'q', timeoutMs: 30_000 },
};

const BASIC = [
  'cribl_node_connected',
  'cribl_node_health_last_success_timestamp_seconds',
  'cribl_node_health_up',
  'cribl_node_info',
  'cribl_node_last_heartbeat_timestamp_seconds',
];

function store(): LeaderSnapshot {
  const s = new LeaderSnapshot({});
  s.setGroups('groups', [
    { product: 'stream', id: 'default', facts: { id: 'default', configVersion: 'abc1234' } },
    { product: 'edge', id: 'default_fleet', facts: { id: 'default_fleet', configVersion: 'abc1234' } },
  ]);
  for (let i = 0; i < 40; i++) {
    const product = i % 4 === 0 ? 'edge' : 'stream';
    const n = node(`n${i}`, {
      product,
      group: product === 'edge' ? 'default_fleet' : 'default',
      health: { up: true, status: 'healthy', lastSuccessMs: 1717200000000 + i },
    });
    s.putNode(n.key, n.ident, 'listing', n.facts.listing);
    s.setNodeFacts(n.key, 'node_health', n.facts.node_health);
  }
  return s;
}

const text = (body: SnapshotBody): string => {
  const s = body.serve('text');
  return gunzipSync(Buffer.concat([...s.gzip, s.end])).toString('utf8');
};

/** Per product, the families with a sample of one of its nodes. */
function perNode(body: string): Record<string, string[]> {
  const out: Record<string, Set<string>> = { stream: new Set(), edge: new Set() };
  for (const s of parseSamples(body)) if (s.labels.node_id !== undefined) out[s.labels.product!]?.add(s.name);
  return { stream: [...out.stream!].sort(), edge: [...out.edge!].sort() };
}

const FULL = 'full (all)';

/** What each product's per-node families should be: FULL (every one of them), or exactly these. */
function check(got: string[], want: string[] | typeof FULL, label: string): void {
  if (want === FULL) {
    expect(got, label).toEqual(expect.arrayContaining([...BASIC, 'cribl_node_cpus', 'cribl_node_healthy']));
  } else expect(got, label).toEqual(want);
}

describe.each(['inline', 'worker'] as const)('the body per node detail level (%s builder)', (builder) => {
  it('renders per level, and a change of level re-renders the node families at once', async () => {
    const s = store();
    const cache = createBodyCache({
      sources: [s],
      settingsOf: (c: Collector) => DEFAULTS[c.name] ?? {},
      intervals: { discoveryMs: 60_000 },
      clock: new FakeClock(),
      builder,
    });
    const steps: [DetailLevels | undefined, string[] | typeof FULL, string[] | typeof FULL][] = [
      [undefined, FULL, FULL],
      [{ stream: 'minimal', edge: 'minimal' }, [], []],
      [{ stream: 'basic', edge: 'basic' }, BASIC, BASIC],
      [{ stream: 'full', edge: 'full' }, FULL, FULL],
      [{ stream: 'basic', edge: 'basic' }, BASIC, BASIC],
      [{ stream: 'full', edge: 'minimal' }, FULL, []],
      [{ stream: 'minimal', edge: 'basic' }, [], BASIC],
      [{ stream: 'minimal', edge: 'minimal' }, [], []],
      [{ stream: 'full', edge: 'full' }, FULL, FULL],
    ];
    try {
      for (const [levels, stream, edge] of steps) {
        if (levels) s.setLeaderFacts(detailFacts.collector, { levels, nodes: { stream: 30, edge: 10 } });
        const body = text(await cache.rebuild());
        const got = perNode(body);
        const at = JSON.stringify(levels);
        check(got.stream!, stream, `stream at ${at}`);
        check(got.edge!, edge, `edge at ${at}`);
        // A family no node has is left out whole, HELP and TYPE with it.
        const anyFull = stream === FULL || edge === FULL;
        expect(body.includes('# HELP cribl_node_cpus '), `cribl_node_cpus HELP at ${at}`).toBe(anyFull);
        const anyNode = got.stream!.length + got.edge!.length > 0;
        expect(body.includes('# TYPE cribl_node_info '), `cribl_node_info TYPE at ${at}`).toBe(anyNode);
        // Unchanged facts, same level: the next body is the same (what is kept is what this level exports).
        expect(text(await cache.rebuild()), `again at ${at}`).toBe(body);
      }
    } finally {
      cache.close();
    }
  });
});
