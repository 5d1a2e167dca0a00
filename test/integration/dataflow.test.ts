/**
 * Issue 39 against the simulated leader: every new family checked against what the simulator answers (its truth),
 * and a refusal of any one new endpoint leaving every other family exact and node polling untouched.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { InputOutputStatus } from '../../packages/simulator/src/endpoints/status/shapes.js';
import type { Route } from '@cribl-exporter/simulator';
import { startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import type { Sample } from '../helpers/parse-metrics.js';
import { startTestExporter, type TestExporter } from '../helpers/test-exporter.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});

const T0 = Date.UTC(2026, 10, 28, 12);

async function simulator(clock = new FakeClock(T0)): Promise<Simulator> {
  const sim = await startSimulator({ nodes: 12, seed: 9, clock });
  open.push(sim);
  return sim;
}

async function exporter(sim: Simulator, clock: FakeClock, token = sim.token, args: string[] = []) {
  const exp = await startTestExporter(sim, args, { clock, env: { CRIBL_TOKEN: token } });
  open.push({ close: () => exp.app.close() });
  return exp;
}

/** One discovery, one health round, then every interval collector once. */
async function round(exp: TestExporter): Promise<Sample[]> {
  await exp.run('discovery');
  await exp.run('health');
  for (const job of ['dataflow', 'license']) await exp.run(job);
  return (await exp.scrape()).samples;
}

const of = (samples: readonly Sample[], name: string, match: Record<string, string> = {}): Sample[] =>
  samples.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v));

/** `state=value` of a state set's series matching `match`. */
const states = (samples: readonly Sample[], name: string, match: Record<string, string>): string[] =>
  of(samples, name, match).map((s) => `${s.labels.state}=${s.value}`);

const STATES = ['Green', 'Yellow', 'Red', 'Unknown'] as const;
const expectedSet = (health: string): string[] => STATES.map((s) => `${s.toLowerCase()}=${s === health ? 1 : 0}`);

/** Every item of the simulator's answer is exported as it says; devnull is not; nothing else is. */
function expectFlow(
  samples: readonly Sample[],
  group: string,
  noun: 'destination' | 'source',
  truth: InputOutputStatus[],
) {
  const items = truth.filter((i) => i.id !== 'devnull');
  const name = `cribl_${noun}`;
  const exported = new Set(of(samples, `${name}_health`, { group }).map((s) => s.labels[noun]));
  expect([...exported].sort(), `${group} ${noun}s`).toEqual(items.map((i) => i.id).sort());
  for (const i of items) {
    const m = { group, [noun]: i.id };
    expect(states(samples, `${name}_health`, m), `${group}/${i.id}`).toEqual(expectedSet(i.status.health));
    expect(of(samples, `${name}_health`, m)[0]?.labels.type).toBe(i.type ?? '');
    expect(states(samples, `${name}_worker_processes`, m), `${group}/${i.id} processes`).toEqual(
      STATES.map((s) => `${s.toLowerCase()}=${i.status.healthCounts[s] ?? 0}`),
    );
    expect(states(samples, `${name}_pq_health`, m)).toEqual(i.status.pq ? expectedSet(i.status.pq.health) : []);
  }
}

describe('data flow (--collector.dataflow)', () => {
  it('every destination and source of every group as the leader answers; one red process shows', async () => {
    const clock = new FakeClock(T0);
    const sim = await simulator(clock);
    sim.setFaults({
      dataflow: {
        windows: [
          { group: 'default', destination: 'splunk_lb', red: 1 },
          { group: 'default', destination: 'splunk_lb', pq: { yellow: 1 } },
          { group: 'default', source: 'syslog', red: 'all' },
        ],
      },
    });
    const exp = await exporter(sim, clock);
    const samples = await round(exp);
    const groups = new Set(of(samples, 'cribl_group_info').map((s) => s.labels.group!));
    expect(groups.size).toBeGreaterThan(1);
    for (const g of groups) {
      expectFlow(samples, g, 'destination', sim.destinationStatus(g)!);
      expectFlow(samples, g, 'source', sim.sourceStatus(g)!);
    }
    const lb = { group: 'default', destination: 'splunk_lb' };
    const processes = sim.destinationStatus('default')!.find((i) => i.id === 'splunk_lb')!.status.healthCounts;
    expect(processes.Red).toBe(1);
    expect(of(samples, 'cribl_destination_worker_processes', { ...lb, state: 'red' })[0]?.value).toBe(1);
    expect(of(samples, 'cribl_destination_worker_processes', { ...lb, state: 'green' })[0]?.value).toBe(
      processes.Green ?? 0,
    );
    expect(states(samples, 'cribl_destination_health', lb)).toContain('red=1');
    expect(states(samples, 'cribl_destination_pq_health', lb)).toContain('yellow=1');
    expect(states(samples, 'cribl_source_health', { group: 'default', source: 'syslog' })).toContain('red=1');
    expect(of(samples, 'cribl_exporter_dataflow_over_limit')[0]?.value).toBe(0);
  });

  it('a leader that rolls one red process up to yellow: state="yellow", and the red process still shows', async () => {
    const clock = new FakeClock(T0);
    const sim = await simulator(clock);
    sim.setFaults({
      dataflow: { rollup: 'degraded', windows: [{ group: 'default', destination: 'splunk_lb', red: 1 }] },
    });
    const samples = await round(await exporter(sim, clock));
    const lb = { group: 'default', destination: 'splunk_lb' };
    expect(states(samples, 'cribl_destination_health', lb)).toEqual(expectedSet('Yellow'));
    expect(of(samples, 'cribl_destination_worker_processes', { ...lb, state: 'red' })[0]?.value).toBe(1);
  });
});

describe('groups, licence, leader vitals and bulletins', () => {
  it('as the simulator answers them', async () => {
    const clock = new FakeClock(T0);
    const sim = await simulator(clock);
    sim.fleet.setLocalChanges('default', 3);
    sim.setFaults({
      vitals: { windows: [{ diskFree: 0.05 }] },
      messages: [
        { severity: 'warn', text: 'slow', title: 'Destination s3_archive' },
        { severity: 'fatal', text: 'out of disk' },
      ],
    });
    const samples = await round(await exporter(sim, clock));
    expect(of(samples, 'cribl_group_uncommitted_changes', { group: 'default' })[0]?.value).toBe(3);

    const info = sim.systemInfo();
    expect(of(samples, 'cribl_leader_info')[0]?.labels).toMatchObject({
      version: info.version,
      dist_mode: 'master',
      build: String(info.BUILD.VERSION),
    });
    const value = (name: string) => of(samples, name)[0]?.value;
    expect(value('cribl_leader_disk_available_bytes')).toBe(info.diskUsage.bytesAvailable);
    expect(value('cribl_leader_disk_available_bytes')! / value('cribl_leader_disk_total_bytes')!).toBeCloseTo(0.05);
    expect(value('cribl_leader_memory_free_bytes')).toBe(info.memory.free);
    expect(value('cribl_leader_memory_total_bytes')).toBe(info.memory.total);
    expect(value('cribl_leader_uptime_seconds')).toBe(info.uptime);
    expect(Object.fromEntries(of(samples, 'cribl_license_limit').map((s) => [s.labels.resource, s.value]))).toEqual(
      info.license.limits,
    );

    const messages = sim.messages();
    const count = (sev: string) => messages.filter((m) => m.severity === sev).length;
    expect(Object.fromEntries(of(samples, 'cribl_leader_messages').map((s) => [s.labels.severity, s.value]))).toEqual({
      info: count('info'),
      warn: count('warn'),
      error: count('error'),
      fatal: count('fatal'),
      unknown: 0,
    });
    expect(of(samples, 'cribl_leader_message_last_timestamp_seconds', { severity: 'fatal' })[0]?.value).toBe(
      messages.find((m) => m.severity === 'fatal')!.time! / 1000,
    );

    const [lic] = sim.licenses();
    expect(of(samples, 'cribl_license_info')).toEqual([
      expect.objectContaining({ labels: { license_id: lic!.id, type: lic!.cls, title: lic!.title }, value: 1 }),
    ]);
    expect(of(samples, 'cribl_license_expiry_timestamp_seconds', { license_id: lic!.id })[0]?.value).toBe(lic!.exp);
    expect(of(samples, 'cribl_license_quota_bytes_per_day', { license_id: lic!.id })[0]?.value).toBe(lic!.quota * 1e9);
    const days = sim.licenseUsage().filter((d) => d.endTime <= clock.now());
    const last = days.reduce((a, b) => (b.endTime > a.endTime ? b : a));
    expect(value('cribl_license_usage_in_bytes')).toBe(last.inBytes - last.exemptedLicenseInBytes);
    expect(value('cribl_license_usage_timestamp_seconds')).toBe(last.endTime / 1000);
  });

  it('a node the leader drops while disconnected is counted in its group; its own series go', async () => {
    const clock = new FakeClock(T0);
    const sim = await simulator(clock);
    const exp = await exporter(sim, clock);
    let samples = await round(exp);
    const [gone, left] = sim.fleet.nodes().filter((n) => n.group === 'default');
    expect(of(samples, 'cribl_group_nodes_removed_total', { group: 'default' })[0]?.value).toBe(0);
    sim.fleet.setDisconnected(gone!.id, true);
    await exp.run('discovery');
    sim.fleet.removeNode(gone!.id);
    sim.fleet.removeNode(left!.id); // connected when it left: a scale-down, not counted
    samples = await round(exp);
    expect(of(samples, 'cribl_group_nodes_removed_total', { group: 'default' })[0]?.value).toBe(1);
    expect(of(samples, 'cribl_node_connected', { node_id: gone!.id })).toEqual([]);
    for (const s of of(samples, 'cribl_group_nodes_removed_total').filter((x) => x.labels.group !== 'default'))
      expect(s.value).toBe(0);
  });
});

/**
 * The routes refused, the collector they belong to, the families that go, and whether the collector is off: it is
 * when every request of a run is refused; with one endpoint of two refused it keeps what the other answers (a leader
 * may allow one group and not another), and counts the refusals.
 */
const REFUSALS: [Route[], string, RegExp, boolean][] = [
  [['/m/{group}/system/status/outputs'], 'dataflow', /^cribl_destination_/, false],
  [['/m/{group}/system/status/inputs'], 'dataflow', /^cribl_source_/, false],
  [
    ['/m/{group}/system/status/outputs', '/m/{group}/system/status/inputs'],
    'dataflow',
    /^cribl_(destination|source)_/,
    true,
  ],
  [['/system/licenses'], 'license', /^cribl_license_(info|expiry|quota)/, false],
  [['/system/licenses', '/system/licenses/usage'], 'license', /^cribl_license_(info|expiry|quota|usage)/, true],
  [['/system/info'], 'leader_info', /^cribl_(leader_(info|disk|memory|uptime)|license_limit)/, true],
  [['/system/messages'], 'leader_messages', /^cribl_leader_message/, true],
];

/** Everything of the fleet and the leader that does not vary between two exporters at the same moment. */
const comparable = (samples: readonly Sample[], skip: RegExp): string[] =>
  samples
    .filter((s) => s.name.startsWith('cribl_') && !s.name.startsWith('cribl_exporter_') && !skip.test(s.name))
    .map((s) => `${s.name}${JSON.stringify(s.labels)} ${s.value}`)
    .sort();

describe('a 403 on the new endpoints', () => {
  it.each(REFUSALS)(
    '%j (%s): its families go, every other family exact, node polling untouched',
    async (routes, name, owned, off) => {
      const clock = new FakeClock(T0);
      const sim = await simulator(clock);
      sim.addToken('denied-token', 'full', routes);
      const full = await exporter(sim, clock);
      const denied = await exporter(sim, clock, 'denied-token');
      const a = await round(full);
      const b = await round(denied);
      expect(comparable(b, owned)).toEqual(comparable(a, owned));
      expect(comparable(b, /^$/).filter((l) => owned.test(l))).toEqual([]);
      const enabled = (s: Sample[]): Record<string, number> =>
        Object.fromEntries(
          of(s, 'cribl_exporter_collector_enabled').map((x): [string, number] => [x.labels.collector ?? '', x.value]),
        );
      expect(enabled(b)).toEqual({ ...enabled(a), [name]: off ? 0 : 1 });
      expect(
        of(b, 'cribl_exporter_collector_failures_total', { collector: name, reason: 'forbidden' })[0]?.value,
      ).toBeGreaterThan(0);
      // Node polling: the same health requests, the leader up, no auth failure or pause.
      const health = (s: Sample[]) =>
        of(s, 'cribl_exporter_leader_requests_total', { endpoint: '/w/{nodeId}/health' }).reduce(
          (n, x) => n + x.value,
          0,
        );
      expect(health(b)).toBe(health(a));
      expect(health(b)).toBeGreaterThan(0);
      expect(of(b, 'cribl_leader_up')[0]?.value).toBe(1);
      expect(of(b, 'cribl_exporter_auth_failures_total')).toEqual([]);
    },
  );
});
