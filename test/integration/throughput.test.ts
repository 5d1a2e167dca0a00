/**
 * Issue 48 against the simulated leader on a fake clock: every throughput counter equals the simulator's truth for
 * exactly the windows queried (no gap, no overlap), through a 3-minute outage of the metrics store (caught up) and
 * a 20-minute one (skipped and counted); every gauge equals the truth of the last window; a blocked destination
 * shows within three intervals; a 403 on the store leaves every other family exact and node polling untouched; at
 * Stream's basic node detail the node scope is not queried, and its figures come back primed with full.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseScenario, startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import type { Sample } from '../helpers/parse-metrics.js';
import { startTestExporter, type TestExporter } from '../helpers/test-exporter.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});

const T0 = Date.UTC(2026, 10, 28, 12, 0, 0, 400);
const INTERVAL = 60_000;
/** Where a window queried at `t` ends: --throughput.lag (30s) before it, in whole seconds. */
const end = (t: number): number => Math.floor((t - 30_000) / 1000) * 1000;

interface Rig {
  sim: Simulator;
  clock: FakeClock;
  exp: TestExporter;
}

async function rig(args: string[] = [], token?: string, shared?: { sim: Simulator; clock: FakeClock }): Promise<Rig> {
  const clock = shared?.clock ?? new FakeClock(T0);
  const sim = shared?.sim ?? (await startSimulator({ nodes: 12, seed: 9, clock }));
  if (!shared) open.push(sim);
  const exp = await startTestExporter(sim, args, { clock, env: { CRIBL_TOKEN: token ?? sim.token } });
  open.push({ close: () => exp.app.close() });
  await exp.run('discovery');
  await exp.run('health');
  await exp.run('dataflow');
  await exp.run('throughput');
  return { sim, clock, exp };
}

/** One interval: the clock moves on, then the collector runs. */
async function tick(r: Rig, n = 1): Promise<void> {
  for (let i = 0; i < n; i++) {
    await r.clock.advance(INTERVAL);
    await r.exp.run('throughput');
  }
}

const of = (samples: readonly Sample[], name: string, match: Record<string, string> = {}): Sample[] =>
  samples.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v));
const value = (samples: readonly Sample[], name: string, match: Record<string, string>): number | undefined => {
  const found = of(samples, name, match);
  expect(found.length, `${name}${JSON.stringify(match)}`).toBeLessThanOrEqual(1);
  return found[0]?.value;
};

type Figures = Record<string, number>;
const sum = (a: Figures, b: Readonly<Figures> | undefined): Figures => {
  const out = { ...a };
  for (const [k, v] of Object.entries(b ?? {})) out[k] = (out[k] ?? 0) + v;
  return out;
};

/** The simulator's truth of a group over several spans: counters summed. */
function counted(sim: Simulator, group: string, spans: readonly (readonly [number, number])[]) {
  let totals: Figures = {};
  const destinations: Record<string, Figures> = {};
  const sources: Record<string, Figures> = {};
  const nodes: Record<string, Figures> = {};
  for (const [a, b] of spans) {
    const t = sim.throughput(group, a, b)!;
    totals = sum(totals, t.totals);
    for (const [id, d] of Object.entries(t.destinations)) destinations[id] = sum(destinations[id] ?? {}, d);
    for (const [id, s] of Object.entries(t.sources)) sources[id] = sum(sources[id] ?? {}, s);
    for (const [id, n] of Object.entries(t.nodes)) nodes[id] = sum(nodes[id] ?? {}, n);
  }
  return { totals, destinations, sources, nodes };
}

const groupsOf = (sim: Simulator): string[] =>
  [...sim.fleet.groups('stream'), ...sim.fleet.groups('edge')].map((g) => g.id);

const GROUP = [
  ['cribl_group_received_events_total', 'in_events'],
  ['cribl_group_received_bytes_total', 'in_bytes'],
  ['cribl_group_sent_events_total', 'out_events'],
  ['cribl_group_sent_bytes_total', 'out_bytes'],
  ['cribl_group_dropped_events_total', 'dropped_events'],
] as const;
const DESTINATION_COUNTERS = [
  ['cribl_destination_sent_events_total', 'out_events'],
  ['cribl_destination_sent_bytes_total', 'out_bytes'],
  ['cribl_destination_dropped_events_total', 'dropped_events'],
] as const;
const DESTINATION_GAUGES = [
  ['cribl_destination_blocked', 'blocked'],
  ['cribl_destination_backpressure', 'backpressure'],
  ['cribl_destination_pq_queue_size_bytes', 'pq_size'],
] as const;
const SOURCE_COUNTERS = [
  ['cribl_source_received_events_total', 'in_events'],
  ['cribl_source_received_bytes_total', 'in_bytes'],
] as const;
const NODE_GAUGES = [
  ['cribl_node_memory_free_bytes', 'free_mem'],
  ['cribl_node_load_average', 'load_avg'],
  ['cribl_node_worker_process_heartbeat_lag_seconds', 'heartbeat_lag'],
] as const;
const NODE_COUNTERS = [
  ['cribl_node_received_events_total', 'in_events'],
  ['cribl_node_received_bytes_total', 'in_bytes'],
  ['cribl_node_sent_events_total', 'out_events'],
  ['cribl_node_sent_bytes_total', 'out_bytes'],
] as const;

/**
 * Every throughput family of every group equals the truth: counters over `spans` (the windows counted), gauges over
 * `last` (the last window); what the truth lacks is absent; the connectors join their health families.
 */
function expectTruth(
  r: Rig,
  samples: readonly Sample[],
  spans: readonly (readonly [number, number])[],
  last: readonly [number, number],
  perNode = false,
): void {
  const { sim } = r;
  let connectors = 0;
  for (const g of groupsOf(sim)) {
    const c = counted(sim, g, spans);
    const l = sim.throughput(g, last[0], last[1])!;
    for (const [name, k] of GROUP) expect(value(samples, name, { group: g }), `${g} ${name}`).toBe(c.totals[k]);
    const status = new Map(sim.destinationStatus(g)!.map((i) => [i.id, i.type ?? '']));
    const exported = new Set(of(samples, 'cribl_destination_sent_events_total', { group: g }).map((s) => s.labels));
    expect([...exported].map((l) => l.destination).sort(), `${g} destinations`).toEqual(
      Object.keys(c.destinations)
        .filter((id) => id !== 'devnull')
        .sort(),
    );
    for (const labels of exported)
      expect(labels.type, `${g}/${labels.destination}`).toBe(status.get(labels.destination!));
    for (const [id, truth] of Object.entries(c.destinations)) {
      if (id === 'devnull') continue;
      connectors++;
      const m = { group: g, destination: id };
      for (const [name, k] of DESTINATION_COUNTERS)
        expect(value(samples, name, m), `${g}/${id} ${name}`).toBe(truth[k]);
      for (const [name, k] of DESTINATION_GAUGES)
        expect(value(samples, name, m), `${g}/${id} ${name}`).toBe(l.destinations[id]?.[k]);
      // The join: the same group, destination and type as its health.
      const type = of(samples, 'cribl_destination_sent_events_total', m)[0]?.labels.type;
      expect(of(samples, 'cribl_destination_health', { ...m, type: type! }).length, `${g}/${id} joins`).toBe(4);
    }
    const sourcesExported = of(samples, 'cribl_source_received_events_total', { group: g }).map((s) => s.labels.source);
    expect(sourcesExported.sort(), `${g} sources`).toEqual(Object.keys(c.sources).sort());
    for (const [id, truth] of Object.entries(c.sources)) {
      const m = { group: g, source: id };
      for (const [name, k] of SOURCE_COUNTERS) expect(value(samples, name, m), `${g}/${id} ${name}`).toBe(truth[k]);
      expect(value(samples, 'cribl_source_pq_queue_size_bytes', m)).toBe(l.sources[id]?.pq_size);
      const type = of(samples, 'cribl_source_received_events_total', m)[0]?.labels.type;
      expect(of(samples, 'cribl_source_health', { ...m, type: type! }).length, `${g}/${id} joins`).toBe(4);
    }
    for (const [id, truth] of Object.entries(l.nodes)) {
      const m = { group: g, node_id: id };
      for (const [name, k] of NODE_GAUGES) expect(value(samples, name, m), `${id} ${name}`).toBe(truth[k]);
      for (const [name, k] of NODE_COUNTERS)
        expect(value(samples, name, m), `${id} ${name}`).toBe(perNode ? c.nodes[id]?.[k] : undefined);
    }
  }
  expect(connectors).toBeGreaterThan(5);
  // Edge nodes are not split per node in the store: nothing, not zeros.
  const edgeNodes = new Set(
    sim.fleet
      .nodes()
      .filter((n) => n.product === 'edge')
      .map((n) => n.id),
  );
  for (const [name] of [...NODE_GAUGES, ...NODE_COUNTERS])
    expect(of(samples, name).filter((s) => edgeNodes.has(s.labels.node_id!))).toEqual([]);
}

const skipped = (samples: readonly Sample[]): number | undefined =>
  of(samples, 'cribl_exporter_throughput_skipped_seconds_total')[0]?.value;

/** An outage of the metrics store from now, for `ms`. */
function outage(sim: Simulator, ms: number): void {
  sim.setFaults({ throughput: { windows: sim.faults().throughput.windows, outages: [{ duration: ms }] } });
}

describe('throughput against the simulator (--collector.throughput)', () => {
  it('counters equal the truth of the windows queried, gauges the last window’s; 4 queries an interval', async () => {
    const r = await rig(['--throughput.per-node']);
    const from = end(T0);
    await tick(r, 4);
    const now = r.clock.now();
    const samples = (await r.exp.scrape()).samples;
    expectTruth(r, samples, [[from, end(now)]], [end(now - INTERVAL), end(now)], true);
    expect(of(samples, 'cribl_group_received_events_total', { group: 'default' })[0]?.value).toBeGreaterThan(0);
    expect(skipped(samples)).toBe(0);
    // Five runs (the first primes the windows): four queries each, whatever the number of groups.
    expect(r.sim.stats().requests['/system/metrics/query']).toEqual({ '200': 20 });
  });

  it('a 3-minute outage of the metrics store is caught up: the counters stay exact', async () => {
    const r = await rig();
    const from = end(T0);
    await tick(r, 2);
    outage(r.sim, 180_000);
    await tick(r, 2);
    let samples = (await r.exp.scrape()).samples;
    expect(of(samples, 'cribl_exporter_collector_enabled', { collector: 'throughput' })[0]?.value).toBe(1);
    expect(
      of(samples, 'cribl_exporter_collector_failures_total', { collector: 'throughput', reason: 'http_5xx' })[0]?.value,
    ).toBe(8);
    await tick(r, 2);
    const now = r.clock.now();
    samples = (await r.exp.scrape()).samples;
    expectTruth(r, samples, [[from, end(now)]], [end(now - INTERVAL), end(now)]);
    expect(skipped(samples)).toBe(0);
  });

  it('a 20-minute outage: the last --throughput.max-catch-up read, the rest skipped and counted', async () => {
    const r = await rig();
    const from = end(T0);
    await tick(r, 1);
    const down = r.clock.now();
    outage(r.sim, 20 * 60_000);
    await tick(r, 20);
    const now = r.clock.now();
    const samples = (await r.exp.scrape()).samples;
    const resumed = end(now) - 600_000;
    expectTruth(
      r,
      samples,
      [
        [from, end(down)],
        [resumed, end(now)],
      ],
      [resumed, end(now)],
    );
    expect(skipped(samples)).toBe((resumed - end(down)) / 1000);
    expect(skipped(samples)).toBe(600);
  });

  it('a destination turned blocked: blocked 1 and a growing queue within three intervals plus the lag', async () => {
    const r = await rig();
    await tick(r, 1);
    const res = await fetch(`${r.sim.adminUrl}/groups/default/throughput`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ destination: 'splunk_lb', blocked: true }),
    });
    expect(res.status).toBe(200);
    const m = { group: 'default', destination: 'splunk_lb' };
    const seen: number[] = [];
    let blocked: number | undefined;
    for (let i = 0; i < 3; i++) {
      await tick(r);
      const samples = (await r.exp.scrape()).samples;
      blocked = value(samples, 'cribl_destination_blocked', m);
      seen.push(value(samples, 'cribl_destination_pq_queue_size_bytes', m) ?? 0);
    }
    expect(blocked).toBe(1);
    expect(seen[2]).toBeGreaterThan(seen[1]!);
    expect(seen[1]).toBeGreaterThan(seen[0]!);
    const samples = (await r.exp.scrape()).samples;
    expect(value(samples, 'cribl_destination_sent_events_total', m)).toBeGreaterThan(0);
    const now = r.clock.now();
    expectTruth(r, samples, [[end(T0), end(now)]], [end(now - INTERVAL), end(now)]);
  });
});

/** Everything of the fleet and the leader that does not vary between two exporters at the same moment. */
const comparable = (samples: readonly Sample[], skip: RegExp): string[] =>
  samples
    .filter((s) => s.name.startsWith('cribl_') && !s.name.startsWith('cribl_exporter_') && !skip.test(s.name))
    .map((s) => `${s.name}${JSON.stringify(s.labels)} ${s.value}`)
    .sort();

const OWNED = new RegExp(
  '^cribl_(group_(received|sent|dropped)_|destination_(sent|dropped|blocked|backpressure|pq_queue)|' +
    'source_(received|pq_queue)|node_(memory_free|load_average|worker_process_heartbeat|received|sent))',
);

describe("Stream's node detail level (--stream.node-detail, auto)", () => {
  const nodeSeries = (samples: readonly Sample[]): Sample[] =>
    samples.filter((x) => NODE_GAUGES.some(([name]) => name === x.name));
  const queried = (sim: Simulator): number => sim.stats().requests['/system/metrics/query']?.['200'] ?? 0;

  it('at basic the node scope is not queried: three queries an interval, no node figures, groups exact', async () => {
    const r = await rig(['--stream.node-detail', 'basic']);
    const from = end(T0);
    await tick(r, 2);
    const now = r.clock.now();
    const samples = (await r.exp.scrape()).samples;
    expect(nodeSeries(samples)).toEqual([]);
    // Three runs (the first primes the windows), three queries each.
    expect(queried(r.sim)).toBe(9);
    for (const g of groupsOf(r.sim)) {
      const c = counted(r.sim, g, [[from, end(now)]]);
      for (const [name, k] of GROUP) expect(value(samples, name, { group: g }), `${g} ${name}`).toBe(c.totals[k]);
    }
  });

  it('across auto’s threshold the node figures leave with the level and come back primed', async () => {
    const clock = new FakeClock(T0);
    const sim = await startSimulator({ nodes: 12, seed: 9, clock });
    open.push(sim);
    const stream = sim.fleet.size('stream');
    const exp = await startTestExporter(sim, ['--throughput.per-node'], {
      clock,
      autoDetail: { fullUpTo: stream, basicUpTo: stream + 10 },
    });
    open.push({ close: () => exp.app.close() });
    const interval = async (): Promise<Sample[]> => {
      await clock.advance(INTERVAL);
      await exp.run('discovery');
      await exp.run('health');
      await exp.run('throughput');
      return (await exp.scrape()).samples;
    };
    await exp.run('discovery');
    await exp.run('throughput');
    let s = await interval();
    const streamNodes = sim.fleet.nodes().filter((n) => n.product === 'stream');
    expect(nodeSeries(s).length).toBe(streamNodes.length * NODE_GAUGES.length);
    expect(queried(sim)).toBe(8);

    // One more Stream node than full's threshold: Stream goes basic at the next discovery.
    const extra = sim.fleet.addNode({ product: 'stream', group: streamNodes[0]!.group }).id;
    s = await interval();
    expect(nodeSeries(s)).toEqual([]);
    expect(queried(sim)).toBe(11);

    sim.fleet.removeNode(extra);
    s = await interval();
    // Back at full: the node scope primes again (its counters from 0, not the time it was off), its gauges those of
    // the window just read.
    expect(queried(sim)).toBe(15);
    const now = clock.now();
    for (const g of sim.fleet.groups('stream').map((x) => x.id)) {
      const last = sim.throughput(g, end(now - INTERVAL), end(now))!;
      for (const [id, truth] of Object.entries(last.nodes)) {
        for (const [name, k] of NODE_GAUGES)
          expect(value(s, name, { group: g, node_id: id }), `${id} ${name}`).toBe(truth[k]);
        for (const [name] of NODE_COUNTERS) expect(value(s, name, { group: g, node_id: id }), `${id} ${name}`).toBe(0);
      }
    }
    expect(nodeSeries(s).length).toBe(streamNodes.length * NODE_GAUGES.length);
  });
});

describe('a 403 on POST /system/metrics/query', () => {
  it('turns the collector off alone: its families go, every other family exact, node polling untouched', async () => {
    const full = await rig();
    full.sim.addToken('no-metrics', 'full', ['/system/metrics/query']);
    const denied = await rig([], 'no-metrics', full);
    await tick(full);
    await denied.exp.run('throughput');
    await full.exp.run('discovery');
    await denied.exp.run('discovery');
    await full.exp.run('health');
    await denied.exp.run('health');
    const a = (await full.exp.scrape()).samples;
    const b = (await denied.exp.scrape()).samples;
    expect(comparable(b, OWNED)).toEqual(comparable(a, OWNED));
    expect(comparable(a, /^$/).filter((l) => OWNED.test(l)).length).toBeGreaterThan(0);
    expect(comparable(b, /^$/).filter((l) => OWNED.test(l))).toEqual([]);
    const enabled = (s: readonly Sample[]): Record<string, number> =>
      Object.fromEntries(
        of(s, 'cribl_exporter_collector_enabled').map((x): [string, number] => [x.labels.collector ?? '', x.value]),
      );
    expect(enabled(b)).toEqual({ ...enabled(a), throughput: 0 });
    expect(
      of(b, 'cribl_exporter_collector_failures_total', { collector: 'throughput', reason: 'forbidden' })[0]?.value,
    ).toBeGreaterThan(0);
    const health = (s: readonly Sample[]) =>
      of(s, 'cribl_exporter_leader_requests_total', { endpoint: '/w/{nodeId}/health' }).reduce(
        (n, x) => n + x.value,
        0,
      );
    expect(health(b)).toBe(health(a));
    expect(health(b)).toBeGreaterThan(0);
    expect(of(b, 'cribl_leader_up')[0]?.value).toBe(1);
    expect(of(b, 'cribl_exporter_auth_failures_total')).toEqual([]);
    expect(of(b, 'cribl_exporter_leader_paused')[0]?.value).toBe(0);
  });
});

describe('the demo scenario (examples/scenarios/demo.yaml)', () => {
  it('a blocked destination with a growing queue, a silent source, a lagging worker within 5 minutes', async () => {
    const text = readFileSync(new URL('../../examples/scenarios/demo.yaml', import.meta.url), 'utf8');
    const clock = new FakeClock(T0);
    const sim = await startSimulator({ clock, scenario: parseScenario(text, 'demo.yaml') });
    open.push(sim);
    const exp = await startTestExporter(sim, ['--throughput.interval', '10s', '--throughput.per-node'], {
      clock,
      env: { CRIBL_TOKEN: sim.token },
    });
    open.push({ close: () => exp.app.close() });
    await exp.run('discovery');
    const scrapes: Sample[][] = [];
    for (let t = 0; t <= 5 * 60_000; t += 10_000) {
      if (t % 60_000 === 0) await exp.run('discovery');
      await exp.run('throughput');
      scrapes.push((await exp.scrape()).samples);
      await clock.advance(10_000);
    }
    const [before, last] = [scrapes.at(-4)!, scrapes.at(-1)!];
    const blocked = of(last, 'cribl_destination_blocked').filter((s) => s.value === 1);
    const growing = blocked.filter((s) => {
      const m = { group: s.labels.group!, destination: s.labels.destination! };
      return (
        (value(last, 'cribl_destination_pq_queue_size_bytes', m) ?? 0) >
        (value(before, 'cribl_destination_pq_queue_size_bytes', m) ?? 0)
      );
    });
    expect(growing.map((s) => `${s.labels.group}/${s.labels.destination}`)).toContain('prod-west/splunk_lb');
    // Silent: its counter flat over the last half minute, after it counted.
    const silent = { group: 'prod-west', source: 'http' };
    expect(value(last, 'cribl_source_received_events_total', silent)).toBeGreaterThan(0);
    expect(value(last, 'cribl_source_received_events_total', silent)).toBe(
      value(before, 'cribl_source_received_events_total', silent),
    );
    const lagging = of(last, 'cribl_node_worker_process_heartbeat_lag_seconds', { group: 'default' });
    expect(lagging.some((s) => s.value >= 10)).toBe(true);
  }, 60_000);
});
