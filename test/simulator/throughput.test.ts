/**
 * The metrics store (POST /system/metrics/query, /system/metrics/enum) and its flow model (issue 48, simulator
 * side): answers shaped as real leaders send them, consistent with the status lists, and one truth for any window.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseScenario, startSimulator } from '@cribl-exporter/simulator';
import type { Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { JSON_BODY, call } from './helpers.js';
import type { Item } from './helpers.js';

const sims: Simulator[] = [];
afterEach(async () => {
  while (sims.length) await sims.pop()!.close();
});

const T0 = Date.UTC(2026, 10, 28, 12);

async function sim(scenario?: string): Promise<{ s: Simulator; clock: FakeClock }> {
  const clock = new FakeClock(T0);
  const s = await startSimulator({
    nodes: 12,
    seed: 9,
    clock,
    ...(scenario ? { scenario: parseScenario(scenario, 'x.yaml') } : {}),
  });
  sims.push(s);
  return { s, clock };
}

const SUM = (m: string, a: string) => `sum(${JSON.stringify(m)}).as(${JSON.stringify(a)})`;
const MAX = (m: string, a: string) => `max(${JSON.stringify(m)}).as(${JSON.stringify(a)})`;

async function query(s: Simulator, body: unknown, path = '/api/v1/system/metrics/query'): Promise<Item[]> {
  const r = await call(s.origin, path, {
    method: 'POST',
    token: s.token,
    headers: JSON_BODY,
    body: JSON.stringify(body),
  });
  expect(r.status, r.text).toBe(200);
  expect(Object.keys(r.json as object)).toEqual(['results']);
  return (r.json as { results: Item[] }).results;
}

const window = (fromMs: number, toMs: number) => ({ earliest: fromMs / 1000, latest: toMs / 1000 });

const destinations = (fromMs: number, toMs: number) => ({
  where: '__worker_group!=undefined && output!=undefined',
  ...window(fromMs, toMs),
  aggs: {
    aggregations: [
      SUM('total.out_events', 'out'),
      SUM('total.dropped_events', 'dropped'),
      MAX('blocked.outputs', 'blocked'),
      MAX('pq.queue_size', 'pq'),
    ],
    splitBys: ['__worker_group', 'output'],
    cumulative: true,
  },
});

const row = (rows: Item[], match: Record<string, string>): Item | undefined =>
  rows.find((r) => Object.entries(match).every(([k, v]) => r[k] === v));

describe('POST /system/metrics/query', () => {
  it('answers per split with the roll-ups real leaders add, names connectors type:id, sums to the truth', async () => {
    const { s, clock } = await sim();
    await clock.advance(120_000);
    const rows = await query(s, destinations(T0, T0 + 60_000));
    const truth = s.throughput('default', T0, T0 + 60_000)!;
    for (const item of s.destinationStatus('default')!) {
      const r = row(rows, { __worker_group: 'default', output: `${item.type}:${item.id}` });
      expect(r, item.id).toBeDefined();
      expect(r?.out).toBe(truth.destinations[item.id]?.out_events);
    }
    // The roll-up of the group (no output key) sums its destinations; the one without any key sums everything.
    const groupRow = rows.find((r) => r.__worker_group === 'default' && r.output === undefined);
    const sum = rows
      .filter((r) => r.__worker_group === 'default' && r.output !== undefined)
      .reduce((n, r) => n + (r.out as number), 0);
    expect(groupRow?.out).toBe(sum);
    expect(rows.filter((r) => r.__worker_group === undefined)).toHaveLength(1);
    expect(rows.every((r) => r._raw === '' && typeof r._time === 'number')).toBe(true);
  });

  it('syslog reports per transport (type:id:udp, :tcp), adding up to the source; cribl:* reports too', async () => {
    const { s, clock } = await sim();
    await clock.advance(60_000);
    const rows = await query(s, {
      where: '__worker_group!=undefined && input!=undefined',
      ...window(T0, T0 + 60_000),
      aggs: { aggregations: [SUM('total.in_events', 'in')], splitBys: ['__worker_group', 'input'], cumulative: true },
    });
    const of = (input: string) => row(rows, { __worker_group: 'default', input })?.in as number;
    const truth = s.throughput('default', T0, T0 + 60_000)!;
    expect(of('syslog:syslog:udp') + of('syslog:syslog:tcp')).toBe(truth.sources.syslog?.in_events);
    expect(of('syslog:syslog')).toBeUndefined();
    expect(of('cribl:CriblMetrics')).toBeGreaterThan(0);
  });

  it('relative times get empty results; /m/{group}/system/metrics/query is no route (404)', async () => {
    const { s } = await sim();
    const body = { ...destinations(T0, T0 + 60_000), earliest: '-1h', latest: 'now' };
    expect(await query(s, body)).toEqual([]);
    const r = await call(s.origin, '/api/v1/m/default/system/metrics/query', {
      method: 'POST',
      token: s.token,
      headers: JSON_BODY,
      body: JSON.stringify(body),
    });
    expect(r.status).toBe(404);
  });

  it('bucketed (timeWindowSeconds): starttime/endtime rows, no _time; an unknown aggregation is a 400', async () => {
    const { s, clock } = await sim();
    await clock.advance(120_000);
    const rows = await query(s, {
      where: '__worker_group!=undefined && has_no_dimensions',
      ...window(T0, T0 + 60_000),
      aggs: { aggregations: [SUM('total.in_events', 'in')], splitBys: ['__worker_group'], timeWindowSeconds: 30 },
    });
    const mine = rows.filter((r) => r.__worker_group === 'default');
    expect(mine.map((r): unknown[] => [r.starttime, r.endtime])).toEqual([
      [T0 / 1000, T0 / 1000 + 30],
      [T0 / 1000 + 30, T0 / 1000 + 60],
    ]);
    expect(mine.every((r) => r._time === undefined)).toBe(true);
    expect(mine.reduce((n, r) => n + (r.in as number), 0)).toBe(
      s.throughput('default', T0, T0 + 60_000)!.totals.in_events,
    );
    const bad = await call(s.origin, '/api/v1/system/metrics/query', {
      method: 'POST',
      token: s.token,
      headers: JSON_BODY,
      body: JSON.stringify({ aggs: { aggregations: ['median("x")'] } }),
    });
    expect(bad.status).toBe(400);
  });

  it('Stream nodes report memory, load and heartbeat lag per __worker_node; Edge nodes are not split', async () => {
    const { s, clock } = await sim();
    await clock.advance(60_000);
    const rows = await query(s, {
      where: '__worker_node!=undefined && has_no_dimensions',
      ...window(T0, T0 + 60_000),
      aggs: {
        aggregations: [MAX('system.max_worker_process_heartbeat_lag', 'lag'), SUM('total.in_events', 'in')],
        splitBys: ['__worker_node'],
        cumulative: true,
      },
    });
    const split = rows.filter((r) => typeof r.__worker_node === 'string');
    const stream = s.fleet.nodes().filter((n) => n.product === 'stream' && !n.disconnected);
    expect(split.map((r) => String(r.__worker_node)).sort()).toEqual(stream.map((n) => n.id).sort());
    for (const r of split) expect(r.lag).toBeGreaterThan(0);
  });
});

describe('the flow model', () => {
  it('a blocked destination with a queue stops sending and its queue grows; unblocked, it drains', async () => {
    const { s, clock } = await sim();
    await clock.advance(60_000);
    s.addThroughputWindow({ group: 'default', destination: 'splunk_lb', blocked: true, duration: '2m' });
    const minute = (k: number) => s.throughput('default', T0 + k * 60_000, T0 + (k + 1) * 60_000)!.destinations;
    const [before, first, second, after] = [0, 1, 2, 3].map((k) => minute(k).splunk_lb!) as [
      Record<string, number>,
      Record<string, number>,
      Record<string, number>,
      Record<string, number>,
    ];
    expect(before).toMatchObject({ blocked: 0, pq_size: 0 });
    expect(before.out_events).toBeGreaterThan(0);
    expect(first).toMatchObject({ blocked: 1, backpressure: 1, out_events: 0, dropped_events: 0 });
    expect(second.pq_size).toBeGreaterThan(first.pq_size!);
    expect(after.blocked).toBe(0);
    expect(after.out_events).toBeGreaterThan(before.out_events!);
    expect(after.pq_size).toBeLessThan(second.pq_size!);
    // The HTTP answer says the same.
    await clock.advance(200_000);
    const rows = await query(s, destinations(T0 + 120_000, T0 + 180_000));
    expect(row(rows, { __worker_group: 'default', output: 'splunk_lb:splunk_lb' })).toMatchObject({
      blocked: 1,
      out: 0,
      pq: second.pq_size,
    });
  });

  it('a blocked destination without a queue drops; a red one in the data-flow faults is blocked too', async () => {
    const { s } = await sim();
    s.setFaults({ dataflow: { windows: [{ group: 'default', destination: 'splunk_lb', red: 'all' }] } });
    s.addThroughputWindow({ group: 'default', destination: 's3_archive', blocked: true });
    const t = s.throughput('default', T0, T0 + 60_000)!;
    expect(t.destinations.s3_archive).toMatchObject({ blocked: 1, out_events: 0 });
    expect(t.destinations.s3_archive?.dropped_events).toBeGreaterThan(0);
    expect(t.destinations.s3_archive?.pq_size).toBeUndefined();
    expect(t.destinations.splunk_lb).toMatchObject({ blocked: 1, out_events: 0 });
    expect(t.totals.dropped_events).toBe(t.destinations.s3_archive?.dropped_events);
  });

  it('a silent source receives nothing; a rate window changes a source; Edge reports no blocked.outputs', async () => {
    const { s } = await sim(`
faults:
  throughput:
    windows:
      - { group: default, source: http, eps: 0 }
      - { group: default, source: syslog, eps: 100 }
`);
    const t = s.throughput('default', T0, T0 + 60_000)!;
    expect(t.sources.http).toMatchObject({ in_events: 0, in_bytes: 0 });
    expect(t.sources.syslog?.in_events).toBe(6000);
    const edge = s.fleet.groups('edge')[0]!.id;
    for (const d of Object.values(s.throughput(edge, T0, T0 + 60_000)!.destinations)) expect(d.blocked).toBeUndefined();
    expect(s.throughput(edge, T0, T0 + 60_000)!.nodes).toEqual({});
  });

  it('a lagging node: its heartbeat lag from now on; admin calls append windows, refuse unknown names', async () => {
    const { s, clock } = await sim();
    const node = s.fleet.nodes().find((n) => n.product === 'stream' && n.group === 'default' && !n.disconnected)!;
    await clock.advance(60_000);
    const admin = (body: unknown) =>
      call(s.origin, '/_sim/groups/default/throughput', {
        method: 'POST',
        headers: JSON_BODY,
        body: JSON.stringify(body),
      });
    expect((await admin({ node: node.id, heartbeatLag: '15s' })).status).toBe(200);
    expect((await admin({ destination: 'nope', blocked: true })).status).toBe(400);
    expect((await admin({ source: 'http', blocked: true })).status).toBe(400);
    expect(s.throughput('default', T0, T0 + 60_000)!.nodes[node.id]?.heartbeat_lag).toBeLessThan(1);
    expect(s.throughput('default', T0 + 60_000, T0 + 120_000)!.nodes[node.id]?.heartbeat_lag).toBe(15);
    const truth = await call(
      s.origin,
      `/_sim/groups/default/throughput?earliest=${(T0 + 60_000) / 1000}&latest=${(T0 + 120_000) / 1000}`,
    );
    expect(truth.status).toBe(200);
    expect((truth.json as { nodes: Record<string, Item> }).nodes[node.id]?.heartbeat_lag).toBe(15);
  });

  it('POST /system/metrics/enum lists the metric names', async () => {
    const { s } = await sim();
    const r = await call(s.origin, '/api/v1/system/metrics/enum', {
      method: 'POST',
      token: s.token,
      headers: JSON_BODY,
      body: '{}',
    });
    expect(r.status).toBe(200);
    expect((r.json as { items: Item[] }).items.map((i) => String(i.name))).toContain('blocked.outputs');
  });
});
