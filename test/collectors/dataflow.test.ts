import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { groupKey, type Collector } from '../../src/collectors/collector.js';
import { capped, dataflow, dataflowFacts, decodeIoPage, type IoHealth } from '../../src/collectors/dataflow/index.js';
import { settingsOf } from '../../src/config/types.js';
import type { LeaderRequest } from '../../src/leader/types.js';
import { CollectorRuns } from '../../src/polling/collector-runs.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeLeaderClient, type FakeAnswer } from '../helpers/fake-leader-client.js';
import { MemorySnapshot } from '../helpers/memory-snapshot.js';
import { GROUP_FAMILIES, renderGroups } from '../helpers/render.js';
import { DEFAULT_CONFIG } from '../helpers/stores.js';

const T = 1786037379142;
const status = (health: string, healthCounts: object, extra: object = {}) => ({
  health,
  healthCounts,
  timestamp: T,
  ...extra,
});

// [what, body, items as kept]
const PAGES: [string, unknown, IoHealth[]][] = [
  [
    'the spec 4.19 example (Yellow destination, all four counts)',
    {
      items: [{ id: 's3-output', type: 's3', status: status('Yellow', { Green: 1, Yellow: 1, Red: 0, Unknown: 0 }) }],
      count: 1,
    },
    [{ id: 's3-output', type: 's3', health: 'yellow', processes: [1, 1, 0, 0] }],
  ],
  [
    'the research note’s constructed example: only non-zero counts, a PQ, an error, devnull left out',
    {
      count: 2,
      offset: 0,
      limit: 100,
      totalCount: 2,
      items: [
        {
          id: 'splunk_lb',
          type: 'splunk_lb',
          status: status(
            'Red',
            { Green: 3, Red: 1 },
            {
              error: { message: 'connection error', details: { error: 'connect ECONNREFUSED 10.0.0.5:9997' } },
              pq: status('Yellow', { Green: 3, Yellow: 1 }),
            },
          ),
        },
        { id: 'devnull', type: 'devnull', status: status('Green', { Green: 4 }, { metrics: {} }) },
      ],
    },
    [{ id: 'splunk_lb', type: 'splunk_lb', health: 'red', processes: [3, 0, 1, 0], pq: 'yellow' }],
  ],
  [
    '4.15.1: no type; metrics required and present',
    {
      items: [
        { id: 'in_syslog', status: status('Green', { Green: 2, Yellow: 0, Red: 0, Unknown: 0 }, { metrics: {} }) },
      ],
    },
    [{ id: 'in_syslog', type: '', health: 'green', processes: [2, 0, 0, 0] }],
  ],
  [
    'a health outside the four (open enum) is unknown; counts that are not numbers are 0; no timestamp',
    { items: [{ id: 'x', type: 'kafka', status: { health: 'Grey', healthCounts: { Green: 'many' } } }] },
    [{ id: 'x', type: 'kafka', health: 'unknown', processes: [0, 0, 0, 0] }],
  ],
  [
    'an item with no id or no status is not a status; unknown fields are ignored',
    {
      items: [
        { type: 's3', status: status('Red', {}) },
        { id: 'y' },
        { id: 'z', status: status('Green', { Green: 1 }), future: { field: true } },
      ],
    },
    [{ id: 'z', type: '', health: 'green', processes: [1, 0, 0, 0] }],
  ],
  ['an empty list', { count: 0, items: [] }, []],
];

describe('decodeIoPage', () => {
  it.each(PAGES)('%s', (_what, body, items) => {
    expect(decodeIoPage(body).items).toEqual(items);
  });

  it.each([
    ['not an object', 'x'],
    ['no items', { count: 1 }],
    ['items not a list', { items: {} }],
  ])('fails on %s', (_what, body) => {
    expect(() => decodeIoPage(body)).toThrow();
  });
});

const io = (id: string, health: IoHealth['health'], pq?: IoHealth['pq']): IoHealth => ({
  id,
  type: 't',
  health,
  processes: [1, 0, 0, 0],
  ...(pq ? { pq } : {}),
});

describe('capped', () => {
  const facts = new Map([
    ['a', { destinations: { value: [io('g1', 'green'), io('r1', 'red')] }, sources: { value: [io('y1', 'yellow')] } }],
    ['b', { destinations: { value: [io('g2', 'green', 'red'), io('g3', 'green')] } }],
  ]);

  it('keeps everything within the cap (0 is no cap)', () => {
    expect(capped(facts, 5000)).toEqual({ facts, over: false });
    expect(capped(facts, 0).over).toBe(false);
  });

  it('keeps the worst items first: red, a red queue, yellow, then green', () => {
    // 8 series per item without a queue, 12 with one: room for r1, g2 (its queue is red) and y1.
    const { facts: out, over } = capped(facts, 8 + 12 + 8);
    expect(over).toBe(true);
    expect(out.get('a')?.destinations?.value?.map((i) => i.id)).toEqual(['r1']);
    expect(out.get('a')?.sources?.value?.map((i) => i.id)).toEqual(['y1']);
    expect(out.get('b')?.destinations?.value?.map((i) => i.id)).toEqual(['g2']);
  });
});

const group = (facts: object) => ({ product: 'stream' as const, id: 'default', facts: { dataflow: facts } });
const text = (name: string, facts: object) =>
  renderGroups([group(facts)])[GROUP_FAMILIES.findIndex((f) => f.name === name)];
const G = 'product="stream",group="default"';

describe('data-flow families', () => {
  const facts = {
    destinations: {
      value: [{ id: 'splunk_lb', type: 'splunk_lb', health: 'yellow', processes: [3, 0, 1, 0], pq: 'red' }],
    },
    sources: { value: [{ id: 'in_syslog', type: '', health: 'green', processes: [4, 0, 0, 0] }] },
  };

  it('a destination’s health is a state set with exactly one state at 1', () => {
    expect(text('cribl_destination_health', facts)).toBe(
      [
        `cribl_destination_health{${G},destination="splunk_lb",type="splunk_lb",state="green"} 0`,
        `cribl_destination_health{${G},destination="splunk_lb",type="splunk_lb",state="yellow"} 1`,
        `cribl_destination_health{${G},destination="splunk_lb",type="splunk_lb",state="red"} 0`,
        `cribl_destination_health{${G},destination="splunk_lb",type="splunk_lb",state="unknown"} 0`,
        '',
      ].join('\n'),
    );
  });

  it('shows the one red worker process the yellow roll-up hides', () => {
    expect(text('cribl_destination_worker_processes', facts)).toContain(
      `cribl_destination_worker_processes{${G},destination="splunk_lb",state="red"} 1\n`,
    );
  });

  it('a queue only where one is on', () => {
    expect(text('cribl_destination_pq_health', facts)).toContain(
      `cribl_destination_pq_health{${G},destination="splunk_lb",state="red"} 1\n`,
    );
    expect(text('cribl_source_pq_health', facts)).toBe('');
    expect(text('cribl_source_health', facts)).toContain(
      `cribl_source_health{${G},source="in_syslog",type="",state="green"} 1\n`,
    );
  });

  it('nothing for a group never read', () => {
    for (const f of GROUP_FAMILIES.filter((x) => /^cribl_(destination|source)_/.test(x.name)))
      expect(f.sample(group({}), G, undefined)).toBe('');
  });
});

/** The collector run once over a scripted leader with groups `default` and `edge/fleet1`. */
async function runOnce(answer: (req: LeaderRequest<unknown>) => FakeAnswer, maxSeries?: number) {
  const clock = new FakeClock();
  const client = fakeLeaderClient(answer);
  const store = new MemorySnapshot();
  store.setGroups('groups', [
    { product: 'stream', id: 'default', facts: {} },
    { product: 'edge', id: 'fleet1', facts: {} },
  ]);
  const gauges = new Map<string, number>();
  const logs: string[] = [];
  const runs = new CollectorRuns({
    client,
    store,
    clock,
    logger: pino({ level: 'warn' }, { write: (l: string) => void logs.push(l) }),
    settingsOf: (c: Collector) => ({
      ...(settingsOf(DEFAULT_CONFIG, c) as object),
      ...(maxSeries === undefined ? {} : { maxSeries }),
    }),
    target: { cloud: false },
    metrics: {
      collectorEnabled: (name, on) => gauges.set(`enabled:${name}`, on ? 1 : 0),
      collectorFailure: () => undefined,
      collectorGauge: (name, v) => gauges.set(name, v),
      endpointRefused: (name, endpoint, refused) => gauges.set(`refused:${name} ${endpoint}`, refused ? 1 : 0),
    },
  });
  const sent = await runs.run(dataflow, clock.now() + 60_000, new AbortController().signal);
  return { client, store, sent, gauges, logs };
}

const page = (items: object[], extra: object = {}) => ({ status: 200, json: { count: items.length, items, ...extra } });
const item = (id: string, health = 'Green') => ({ id, type: 's3', status: status(health, { [health]: 1 }) });

describe('the data-flow collector', () => {
  it('reads every group’s destinations and sources: two requests per group', async () => {
    const { client, store, sent } = await runOnce((req) =>
      req.path.endsWith('/outputs') ? page([item('out', 'Red')]) : page([item('in')]),
    );
    expect(sent).toBe(4);
    expect(client.calls.map((c) => c.path)).toEqual([
      '/m/default/system/status/outputs',
      '/m/default/system/status/inputs',
      '/m/fleet1/system/status/outputs',
      '/m/fleet1/system/status/inputs',
    ]);
    expect(dataflowFacts.of(store.group('stream', 'default'))?.destinations?.value?.[0]).toMatchObject({
      health: 'red',
    });
    expect(dataflowFacts.of(store.group('edge', 'fleet1'))?.sources?.value?.[0]).toMatchObject({ health: 'green' });
  });

  it('outputs refused (for one group), inputs allowed: on, the sources kept, the refusal per route', async () => {
    const { store, gauges, logs } = await runOnce((req) =>
      req.path === '/m/default/system/status/outputs'
        ? { status: 403, json: { message: 'Forbidden' } }
        : page([item('x')]),
    );
    expect(gauges.get('enabled:dataflow')).toBe(1);
    expect(gauges.get('refused:dataflow /m/{group}/system/status/outputs')).toBe(1);
    expect(gauges.get('refused:dataflow /m/{group}/system/status/inputs')).toBe(0);
    expect(dataflowFacts.of(store.group('stream', 'default'))?.sources?.value).toHaveLength(1);
    expect(dataflowFacts.of(store.group('edge', 'fleet1'))?.destinations?.value).toHaveLength(1);
    expect(logs.filter((l) => l.includes('refuses /m/{group}/system/status/outputs'))).toHaveLength(1);
  });

  it('a 404 or a timeout on a route is no refusal', async () => {
    const { gauges } = await runOnce((req) =>
      req.path.endsWith('/outputs')
        ? { status: 404, json: { message: 'Not Found' } }
        : { fail: { ok: false, reason: 'timeout', message: 'timed out' } },
    );
    expect([...gauges.keys()].filter((k) => k.startsWith('refused:'))).toEqual([]);
  });

  it('pages with limit and offset up to the leader’s totalCount', async () => {
    const all = Array.from({ length: 1200 }, (_, i) => item(`d${i}`));
    const { client, store } = await runOnce((req) => {
      if (req.path.endsWith('/inputs')) return page([]);
      const { limit, offset } = req.query as { limit: number; offset: number };
      return page(all.slice(offset, offset + limit), { totalCount: all.length });
    }, 0);
    expect(client.calls.filter((c) => c.path === '/m/default/system/status/outputs')).toHaveLength(3);
    expect(dataflowFacts.of(store.group('stream', 'default'))?.destinations?.value).toHaveLength(1200);
  });

  it('stops on a leader before 4.18, which ignores limit and offset and sends everything each time', async () => {
    const all = Array.from({ length: 700 }, (_, i) => item(`d${i}`));
    const { client, store } = await runOnce((req) => (req.path.endsWith('/inputs') ? page([]) : page(all)), 0);
    expect(client.calls.filter((c) => c.path === '/m/default/system/status/outputs')).toHaveLength(2);
    expect(dataflowFacts.of(store.group('stream', 'default'))?.destinations?.value).toHaveLength(700);
  });

  it('with more series than the cap: the worst kept, the gauge at 1, one warning naming the flag', async () => {
    const { store, gauges, logs } = await runOnce(
      (req) => (req.path.endsWith('/outputs') ? page([item('ok'), item('bad', 'Red')]) : page([])),
      8,
    );
    expect(gauges.get('cribl_exporter_dataflow_over_limit')).toBe(1);
    expect(dataflowFacts.of(store.group('stream', 'default'))?.destinations?.value?.map((i) => i.id)).toEqual(['bad']);
    expect(logs.join('')).toContain('--dataflow.max-series (8)');
  });

  it('a 403 turns it off for the leader and leaves nothing behind', async () => {
    const { store, gauges, logs } = await runOnce(() => ({ status: 403, json: {} }));
    expect(gauges.get('enabled:dataflow')).toBe(0);
    expect(dataflowFacts.of(store.group('stream', 'default'))).toBeUndefined();
    expect(logs.join('')).toContain('the dataflow collector is off for this leader');
  });

  it('a failure other than a refusal keeps the last lists read', async () => {
    const { store } = await runOnce(() => ({ status: 500, json: {} }));
    expect(dataflowFacts.of(store.group('stream', 'default'))).toMatchObject({ destinations: { failure: 'http_5xx' } });
  });
});

describe('registration', () => {
  it('is on by default, every 60s, capped at 5,000 series', () => {
    expect(settingsOf(DEFAULT_CONFIG, dataflow as Collector)).toEqual({
      enabled: true,
      intervalMs: 60_000,
      maxSeries: 5000,
    });
    expect(groupKey('stream', 'default')).not.toBe(groupKey('edge', 'default'));
  });
});
