import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { groupKey, type Collector, type GroupItem, type NodeItem } from '../../src/collectors/collector.js';
import { dataflow } from '../../src/collectors/dataflow/index.js';
import {
  connectorRows,
  foldNode,
  growing,
  throughputFacts,
  throughputNodeFacts,
  type NodeFigures,
  type ThroughputFacts,
} from '../../src/collectors/throughput/facts.js';
import { SKIPPED, throughput } from '../../src/collectors/throughput/index.js';
import {
  decodeRows,
  DESTINATION_QUERY,
  GROUP_QUERY,
  nodeQuery,
  parseConnector,
  SOURCE_QUERY,
  type Row,
} from '../../src/collectors/throughput/query.js';
import { throughputView } from '../../src/collectors/throughput/view.js';
import { planWindow } from '../../src/collectors/throughput/windows.js';
import { settingsOf } from '../../src/config/types.js';
import type { LeaderRequest } from '../../src/leader/types.js';
import { CollectorRuns } from '../../src/polling/collector-runs.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeLeaderClient, type FakeAnswer } from '../helpers/fake-leader-client.js';
import { MemorySnapshot } from '../helpers/memory-snapshot.js';
import { family, nodeItem, renderGroups, renderNode } from '../helpers/render.js';
import { DEFAULT_CONFIG } from '../helpers/stores.js';

// [what, spec, answer, rows kept]
const ANSWERS: [string, typeof GROUP_QUERY, unknown, Row[]][] = [
  [
    'cumulative rows (_time) with the roll-up row that lacks the split key (dropped)',
    GROUP_QUERY,
    {
      results: [
        { __worker_group: 'default', in_events: 120, out_events: 100, _time: 1786480060, _raw: '' },
        { in_events: 120, out_events: 100, _time: 1786480060, _raw: '' },
      ],
    },
    [{ keys: ['default'], values: { in_events: 120, out_events: 100 } }],
  ],
  [
    'a missing aggregation is absent, an explicit 0 is kept',
    SOURCE_QUERY,
    {
      results: [
        { __worker_group: 'default', input: 'http:http', in_events: 0, _time: 1, _raw: '' },
        { __worker_group: 'default', input: 'syslog:syslog:udp', in_events: 5, in_bytes: 500, _raw: '' },
      ],
    },
    [
      { keys: ['default', 'http:http'], values: { in_events: 0 } },
      { keys: ['default', 'syslog:syslog:udp'], values: { in_events: 5, in_bytes: 500 } },
    ],
  ],
  [
    'rows lacking any split key, or with a non-string one, are roll-ups (the default output has no output key)',
    DESTINATION_QUERY,
    {
      results: [
        { __worker_group: 'default', out_events: 9 },
        { output: 's3:s3_archive', out_events: 9 },
        { __worker_group: 'default', output: null, out_events: 9 },
        { __worker_group: 'default', output: 's3:s3_archive', out_events: 9, blocked: 0, pq_size: 'x' },
        'not a row',
      ],
    },
    [{ keys: ['default', 's3:s3_archive'], values: { out_events: 9, blocked: 0 } }],
  ],
  [
    'bucketed rows (starttime/endtime, no _time): a key’s buckets summed, max of max, mean of avg',
    nodeQuery(false),
    {
      results: [
        { __worker_group: 'g', __worker_node: 'w1', starttime: 0, endtime: 30, heartbeat_lag: 1, free_mem: 100 },
        { __worker_group: 'g', __worker_node: 'w1', starttime: 30, endtime: 60, heartbeat_lag: 4, free_mem: 300 },
      ],
    },
    [{ keys: ['g', 'w1'], values: { heartbeat_lag: 4, free_mem: 200 } }],
  ],
  [
    'three buckets of a key between another key’s: an average is the mean of the buckets that had it',
    nodeQuery(false),
    {
      results: [
        { __worker_group: 'g', __worker_node: 'w1', starttime: 0, endtime: 30, free_mem: 100 },
        { __worker_group: 'g', __worker_node: 'w2', starttime: 0, endtime: 30, free_mem: 7 },
        { __worker_group: 'g', __worker_node: 'w1', starttime: 30, endtime: 60, free_mem: 300, load_avg: 1 },
        { __worker_group: 'h', __worker_node: 'w1', starttime: 0, endtime: 30, load_avg: 9 },
        { __worker_group: 'g', __worker_node: 'w1', starttime: 60, endtime: 90, free_mem: 500, load_avg: 3 },
      ],
    },
    [
      { keys: ['g', 'w1'], values: { free_mem: 300, load_avg: 2 } },
      { keys: ['g', 'w2'], values: { free_mem: 7 } },
      { keys: ['h', 'w1'], values: { load_avg: 9 } },
    ],
  ],
  ['an empty answer (what relative times get)', GROUP_QUERY, { results: [] }, []],
];

const BAD: [string, unknown][] = [
  ['the 4.15.1 definition’s {count, items}', { count: 1, items: [{ __worker_group: 'default', in_events: 1 }] }],
  ['results not a list', { results: { default: 1 } }],
  ['not an object', [1, 2]],
];

describe('the metrics store’s answers (research note §26.2)', () => {
  it.each(ANSWERS)('%s', (_what, spec, json, rows) => {
    expect(decodeRows(json, spec)).toEqual(rows);
  });

  it.each(BAD)('%s: a decode failure, never a number', (_what, json) => {
    expect(() => decodeRows(json, GROUP_QUERY)).toThrow(/results/);
  });

  it('names connectors type:id, with a transport summed into its connector; devnull and cribl:* left out', () => {
    expect(parseConnector('syslog:in_syslog:udp')).toEqual({ type: 'syslog', id: 'in_syslog' });
    expect(parseConnector('s3:s3_archive')).toEqual({ type: 's3', id: 's3_archive' });
    expect(parseConnector('bare')).toEqual({ type: '', id: 'bare' });
    const rows = decodeRows(
      {
        results: [
          { __worker_group: 'g', input: 'syslog:in_syslog:udp', in_events: 5, pq_size: 10 },
          { __worker_group: 'g', input: 'syslog:in_syslog:tcp', in_events: 7, pq_size: 30 },
          { __worker_group: 'g', input: 'cribl:CriblMetrics', in_events: 70 },
          { __worker_group: 'g', input: 'devnull:devnull', in_events: 70 },
        ],
      },
      SOURCE_QUERY,
    );
    const merged = connectorRows(rows, SOURCE_QUERY).get('g');
    expect([...(merged?.keys() ?? [])]).toEqual(['in_syslog']);
    expect(merged?.get('in_syslog')).toEqual({ type: 'syslog', values: { in_events: 12, pq_size: 30 } });
  });
});

const S = { intervalMs: 60_000, lagMs: 30_000, maxCatchUpMs: 600_000 };
const T0 = Date.UTC(2026, 10, 28, 12, 0, 0, 250);
const L0 = T0 - 250 - 30_000;

describe('windows', () => {
  it.each([
    ['the first: primes one interval before now − lag', undefined, T0, { earliestMs: L0 - 60_000, latestMs: L0 }],
    ['the next: from where the last ended', L0, T0 + 60_000, { earliestMs: L0, latestMs: L0 + 60_000 }],
    ['after 3 minutes down: the whole gap', L0, T0 + 240_000, { earliestMs: L0, latestMs: L0 + 240_000 }],
    [
      'after 20 minutes down: max-catch-up back, the rest skipped',
      L0,
      T0 + 1_260_000,
      { earliestMs: L0 + 660_000, latestMs: L0 + 1_260_000, skippedMs: 660_000 },
    ],
  ] as const)('%s', (_what, cursor, now, want) => {
    expect(planWindow(cursor, now, S)).toMatchObject(want);
  });

  it('nothing to read before now − lag moves past the last window', () => {
    expect(planWindow(L0, T0 + 500, S)).toBeUndefined();
  });

  it.each([
    [[1, 2, 3], true],
    [[1, 3, 2], false],
    [[5], false],
    [[4, 4], false],
  ])('a queue %j is growing: %s', (queue, want) => {
    expect(growing(queue)).toBe(want);
  });
});

type Answer = (req: LeaderRequest<unknown>, body: Record<string, unknown>) => FakeAnswer;

/** The collector over a scripted leader with groups `default` (Stream) and `fleet1` (Edge). */
function harness(answer: Answer, extra: Record<string, unknown> = {}) {
  const clock = new FakeClock(T0);
  const bodies: Record<string, unknown>[] = [];
  const client = fakeLeaderClient((req) => {
    const body = JSON.parse(req.body?.payload ?? '{}') as Record<string, unknown>;
    bodies.push(body);
    return answer(req, body);
  });
  const store = new MemorySnapshot();
  store.setGroups('groups', [
    { product: 'stream', id: 'default', facts: {} },
    { product: 'edge', id: 'fleet1', facts: {} },
  ]);
  for (const nodeId of ['w1', 'w2']) {
    store.putNode(nodeId, { product: 'stream', group: 'default', nodeId }, 'listing', {});
  }
  store.putNode('e1', { product: 'edge', group: 'fleet1', nodeId: 'e1' }, 'listing', {});
  const metrics = new Map<string, number>();
  const logs: string[] = [];
  const runs = new CollectorRuns({
    client,
    store,
    clock,
    logger: pino({ level: 'info' }, { write: (l: string) => void logs.push(l) }),
    settingsOf: (c: Collector) => ({ ...(settingsOf(DEFAULT_CONFIG, c) as object), ...extra }),
    target: { cloud: false },
    metrics: {
      collectorEnabled: (name, on) => metrics.set(`enabled:${name}`, on ? 1 : 0),
      collectorFailure: (_name, reason) => metrics.set(`fail:${reason}`, (metrics.get(`fail:${reason}`) ?? 0) + 1),
      collectorGauge: (name, v) => metrics.set(name, v),
      collectorCount: (name, n) => metrics.set(name, (metrics.get(name) ?? 0) + n),
    },
  });
  const run = async (advanceMs = 60_000, c: Collector = throughput) => {
    await clock.advance(advanceMs);
    return runs.run(c, clock.now() + 60_000, new AbortController().signal);
  };
  const facts = (id = 'default'): ThroughputFacts | undefined =>
    throughputFacts.of(store.group(id === 'fleet1' ? 'edge' : 'stream', id));
  const node = (key: string): NodeItem | undefined => store.nodes().find((n) => n.key === key);
  const nodeFacts = (key: string): NodeFigures | undefined => {
    const n = node(key);
    return n && throughputNodeFacts.of(n);
  };
  return { clock, client, bodies, store, metrics, logs, run, facts, node, nodeFacts };
}

const ok = (results: unknown[]): FakeAnswer => ({ status: 200, json: { results } });
const splits = (b: Record<string, unknown>) => (b.aggs as { splitBys: string[] }).splitBys;

/** A leader whose every window has the same figures. */
const steady: Answer = (req, b) => {
  if (req.path.includes('/system/status/')) return { status: 200, json: { count: 0, items: [] } };
  switch (splits(b).join(',')) {
    case '__worker_group':
      return ok([
        { __worker_group: 'default', in_events: 100, in_bytes: 1000, out_events: 90, out_bytes: 900, _time: 1 },
        { __worker_group: 'fleet1', in_events: 7, out_events: 7, _time: 1 },
        { in_events: 107, out_events: 97, _time: 1 },
      ]);
    case '__worker_group,output':
      return ok([
        { __worker_group: 'default', output: 'splunk_lb:splunk_lb', out_events: 60, blocked: 1, pq_size: 4096 },
        { __worker_group: 'default', output: 's3:s3_archive', out_events: 30, dropped_events: 2, blocked: 0 },
        { __worker_group: 'default', out_events: 90 },
      ]);
    case '__worker_group,input':
      return ok([
        { __worker_group: 'default', input: 'syslog:syslog:udp', in_events: 60, in_bytes: 600 },
        { __worker_group: 'default', input: 'syslog:syslog:tcp', in_events: 40, in_bytes: 400 },
      ]);
    default:
      return ok([{ __worker_group: 'default', __worker_node: 'w1', free_mem: 2e9, load_avg: 1.5, heartbeat_lag: 0.2 }]);
  }
};

describe('the throughput collector', () => {
  it('four queries a window, absolute epoch seconds, cumulative, every group in one split', async () => {
    const h = harness(steady);
    expect(await h.run(0)).toBe(4);
    expect(h.bodies.map(splits)).toEqual([
      ['__worker_group'],
      ['__worker_group', 'output'],
      ['__worker_group', 'input'],
      ['__worker_group', '__worker_node'],
    ]);
    for (const b of h.bodies) {
      expect(b).toMatchObject({ earliest: L0 / 1000 - 60, latest: L0 / 1000 });
      expect((b.aggs as { cumulative: boolean }).cumulative).toBe(true);
    }
    expect(h.client.calls.every((c) => c.method === 'POST' && c.path === '/system/metrics/query')).toBe(true);
    await h.run();
    expect(h.bodies.slice(4).map((b) => [b.earliest, b.latest])).toEqual(Array(4).fill([L0 / 1000, L0 / 1000 + 60]));
  });

  it('counts from 0 at the first window, then adds each window; the transports of a source summed', async () => {
    const h = harness(steady);
    await h.run(0);
    expect(h.facts()?.totals).toEqual({ in_events: 0, in_bytes: 0, out_events: 0, out_bytes: 0 });
    await h.run();
    await h.run();
    const f = h.facts()!;
    expect(f.totals).toEqual({ in_events: 200, in_bytes: 2000, out_events: 180, out_bytes: 1800 });
    expect(h.facts('fleet1')?.totals).toEqual({ in_events: 14, out_events: 14 });
    expect(f.sources).toEqual([
      expect.objectContaining({ id: 'syslog', type: 'syslog', counters: { in_events: 200, in_bytes: 2000 } }),
    ]);
    expect(f.destinations.map((d) => [d.id, d.counters, d.gauges])).toEqual([
      ['splunk_lb', { out_events: 120 }, { blocked: 1, pq_size: 4096 }],
      ['s3_archive', { out_events: 60, dropped_events: 4 }, { blocked: 0 }],
    ]);
    expect(h.nodeFacts('w1')).toMatchObject({ gauges: { free_mem: 2e9, load_avg: 1.5, heartbeat_lag: 0.2 } });
    expect(h.nodeFacts('w1')?.counters).toEqual({});
  });

  describe('a Stream node’s figures after a window (foldNode)', () => {
    const w = { earliestMs: 0, latestMs: 60_000, priming: false, skippedMs: 0 };
    const seen: NodeFigures = { counters: { in_events: 5 }, gauges: { free_mem: 1 }, seenMs: T0 };
    const silentOnce: NodeFigures = { ...seen, gauges: {} };
    it.each<[string, NodeFigures | undefined, Record<string, number> | undefined, number, unknown]>([
      ['first report', undefined, { in_events: 3, free_mem: 2 }, T0, { gauges: { free_mem: 2 }, seenMs: T0 }],
      [
        'reported again: counters add',
        seen,
        { in_events: 3, free_mem: 2 },
        T0 + 60_000,
        { counters: { in_events: 8 } },
      ],
      ['not reported: counters stay, gauges go', seen, undefined, T0 + 60_000, silentOnce],
      ['never reported', undefined, undefined, T0, undefined],
      ['silent for over an hour: forgotten', silentOnce, undefined, T0 + 3_600_001, undefined],
    ])('%s', (_name, prev, values, now, want) => {
      const got = foldNode(prev, values, w, now);
      if (want === undefined) expect(got).toBeUndefined();
      else expect(got).toMatchObject(want as object);
    });

    it('what a window left as it was stays the same (nothing of it to render again)', () => {
      expect(foldNode(silentOnce, undefined, w, T0 + 120_000)).toBe(silentOnce);
      expect(foldNode(seen, { free_mem: 3 }, w, T0 + 60_000)?.counters).toBe(seen.counters);
    });
  });

  it('a source that stops reporting stays, flat; a gauge not reported goes', async () => {
    let silent = false;
    const h = harness((req, b) => {
      if (silent && splits(b).length === 2 && splits(b)[1] !== '__worker_node') return ok([]);
      return steady(req, b);
    });
    await h.run(0);
    await h.run();
    silent = true;
    await h.run();
    const f = h.facts()!;
    expect(f.sources[0]?.counters).toEqual({ in_events: 100, in_bytes: 1000 });
    expect(f.destinations[0]?.counters).toEqual({ out_events: 60 });
    expect(f.destinations[0]?.gauges).toEqual({});
  });

  it('renders the families with the group’s labels; the node’s from its own facts', async () => {
    const h = harness(steady);
    await h.run(0);
    await h.run();
    const g = h.store.group('stream', 'default')!;
    const text = renderGroups([g]).join('');
    const base = 'product="stream",group="default"';
    expect(text).toContain(`cribl_group_received_events_total{${base}} 100\n`);
    expect(text).toContain(`cribl_group_sent_bytes_total{${base}} 900\n`);
    expect(text).not.toContain('cribl_group_dropped_events_total');
    expect(text).toContain(
      `cribl_destination_sent_events_total{${base},destination="splunk_lb",type="splunk_lb"} 60\n`,
    );
    expect(text).toContain(`cribl_destination_blocked{${base},destination="splunk_lb",type="splunk_lb"} 1\n`);
    expect(text).toContain(`cribl_destination_blocked{${base},destination="s3_archive",type="s3"} 0\n`);
    expect(text).toContain(`cribl_destination_dropped_events_total{${base},destination="s3_archive",type="s3"} 2\n`);
    expect(text).toContain(
      `cribl_destination_pq_queue_size_bytes{${base},destination="splunk_lb",type="splunk_lb"} 4096\n`,
    );
    expect(text).not.toContain('cribl_destination_backpressure{');
    expect(text).toContain(`cribl_source_received_bytes_total{${base},source="syslog",type="syslog"} 1000\n`);
    const node = renderNode(h.node('w1')!, '', g);
    expect(family(node, 'cribl_node_memory_free_bytes')).toBe(
      `cribl_node_memory_free_bytes{${base},node_id="w1"} 2000000000\n`,
    );
    expect(family(node, 'cribl_node_worker_process_heartbeat_lag_seconds')).toContain('} 0.2\n');
    expect(family(node, 'cribl_node_received_events_total')).toBe('');
    expect(family(renderNode(h.node('w2')!, '', g), 'cribl_node_load_average')).toBe('');
    // Before any window (or while the collector is off): no series at all, never zeros.
    const empty: GroupItem = { product: 'stream', id: 'x', facts: {} };
    for (const f of throughput.families.group ?? []) expect(f.sample(empty, '', undefined)).toBe('');
    for (const f of throughput.families.node ?? []) expect(f.sample(nodeItem({}), '', { group: empty })).toBe('');
  });

  it('takes the type of the status list where it has one (the join with cribl_destination_health)', async () => {
    const h = harness(steady);
    h.store.setGroupFacts(
      'dataflow',
      new Map([
        [
          groupKey('stream', 'default'),
          { destinations: { value: [{ id: 's3_archive', type: 'aws_s3', health: 'green', processes: [1, 0, 0, 0] }] } },
        ],
      ]),
    );
    await h.run(0);
    expect(h.facts()?.destinations.find((d) => d.id === 's3_archive')?.type).toBe('aws_s3');
  });

  it('per-node throughput only with --throughput.per-node, in the same query', async () => {
    const h = harness(
      (req, b) =>
        splits(b)[1] === '__worker_node'
          ? ok([{ __worker_group: 'default', __worker_node: 'w1', in_events: 5, out_events: 4, free_mem: 1 }])
          : steady(req, b),
      { perNode: true },
    );
    expect(await h.run(0)).toBe(4);
    const aggs = (h.bodies[3]?.aggs as { aggregations: string[] }).aggregations;
    expect(aggs).toContain('sum("total.in_events").as("in_events")');
    await h.run();
    expect(h.nodeFacts('w1')?.counters).toEqual({ in_events: 5, out_events: 4 });
  });

  it('after an outage catches up; beyond max-catch-up skips and counts the skipped seconds', async () => {
    let down = false;
    const h = harness((req, b) => (down ? { status: 503, json: {} } : steady(req, b)));
    await h.run(0);
    await h.run();
    down = true;
    await h.run();
    await h.run();
    down = false;
    await h.run();
    // Three windows' worth in one: the gap is covered.
    expect(h.bodies.at(-1)).toMatchObject({ earliest: L0 / 1000 + 60, latest: L0 / 1000 + 240 });
    expect(h.metrics.get(SKIPPED)).toBe(0);
    down = true;
    for (let i = 0; i < 20; i++) await h.run();
    down = false;
    await h.run();
    const last = h.bodies.at(-1)!;
    expect((last.latest as number) - (last.earliest as number)).toBe(600);
    expect(h.metrics.get(SKIPPED)).toBe(21 * 60 - 600);
  });

  it('a 403 turns it off for the leader (its facts go, its nodes’ too); an answer again turns it on', async () => {
    let refuse = false;
    const h = harness((req, b) => (refuse ? { status: 403, json: {} } : steady(req, b)));
    await h.run(0);
    expect(h.facts()).toBeDefined();
    expect(h.nodeFacts('w1')).toBeDefined();
    refuse = true;
    await h.run();
    expect(h.metrics.get('enabled:throughput')).toBe(0);
    expect(h.facts()).toBeUndefined();
    expect(h.nodeFacts('w1')).toBeUndefined();
    expect(h.logs.join('')).toContain('POST /system/metrics/query');
    refuse = false;
    await h.run();
    expect(h.metrics.get('enabled:throughput')).toBe(1);
    expect(h.facts()?.totals).toEqual({ in_events: 0, in_bytes: 0, out_events: 0, out_bytes: 0 });
  });

  it('an unknown envelope is a decode failure: counted, logged once per change, counters untouched', async () => {
    let shape: 'ok' | 'items' = 'ok';
    const h = harness((req, b) =>
      shape === 'items' ? { status: 200, json: { count: 0, items: [] } } : steady(req, b),
    );
    await h.run(0);
    await h.run();
    shape = 'items';
    await h.run();
    await h.run();
    expect(h.metrics.get('fail:decode')).toBe(8);
    expect(h.logs.filter((l) => l.includes('does not read'))).toHaveLength(1);
    expect(h.facts()?.totals?.in_events).toBe(100);
    shape = 'ok';
    await h.run();
    // The gap is caught up once the leader answers in its shape again.
    expect(h.facts()?.totals?.in_events).toBe(200);
    shape = 'items';
    await h.run();
    expect(h.logs.filter((l) => l.includes('does not read'))).toHaveLength(2);
  });

  it('the status page’s view: history oldest first, blocked destinations, queues', async () => {
    const h = harness(steady);
    await h.run(0);
    await h.run();
    const v = throughputView(h.store.group('stream', 'default'));
    expect(v?.history.map((p) => [p.inEvents, p.outEvents, p.spanMs])).toEqual([
      [100, 90, 60_000],
      [100, 90, 60_000],
    ]);
    expect(v?.blocked).toEqual([{ destination: 'splunk_lb', type: 'splunk_lb' }]);
    expect(v?.queues).toEqual([
      { kind: 'destination', id: 'splunk_lb', type: 'splunk_lb', bytes: 4096, growing: false },
    ]);
  });

  it('--dataflow.max-series bounds the connector series: the last seen are cut, the flag set', async () => {
    const h = harness(steady, { maxSeries: 3 });
    await h.run(0);
    const g = h.store.group('stream', 'default')!;
    const text = renderGroups([g]).join('');
    expect(text).toContain('destination="splunk_lb"');
    expect(text).not.toContain('destination="s3_archive"');
    expect(text).not.toContain('source="syslog"');
    expect(h.metrics.get('cribl_exporter_dataflow_over_limit')).toBe(1);
    // The health families within their cap do not clear the flag the throughput families set: the larger wins.
    await h.run(0, dataflow);
    expect(h.client.calls.at(-1)?.path).toMatch(/status\/inputs$/);
    expect(h.metrics.get('cribl_exporter_dataflow_over_limit')).toBe(1);
  });
});
