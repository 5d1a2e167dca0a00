import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftToFirstRun } from '../helpers/repeat.js';
import type { App } from '../../src/exporter/app.js';
import { runCommand } from '../../src/commands/index.js';
import { startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { PROMETHEUS_BIN, startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { ROOT } from './prometheusrule.js';
import { skipWithout, toolTimeouts } from './tools.js';

// Prometheus: see TOOL_TIMEOUT_MS.
toolTimeouts();

// The whole chain as users run it: simulated leader → exporter → a real Prometheus loading our alert rules
// (with `for:` shortened), asserted through Prometheus' HTTP query API.
const noPrometheus = skipWithout(PROMETHEUS_BIN) || leftToFirstRun('the exporter scraped by Prometheus');
describe.skipIf(noPrometheus)('exporter scraped by a real Prometheus', () => {
  let sim: Simulator;
  let prom: RunningPrometheus;
  let app: App;
  let exited: Promise<number>;
  const stop = new AbortController();
  const logs: string[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ nodes: 8, seed: 7 });
    const started = new Promise<App>((resolve) => {
      exited = runCommand({
        argv: [
          '--web.listen-address',
          '127.0.0.1:0',
          '--discovery.interval',
          '2s',
          '--health.interval',
          '1s',
          '--log.level',
          'warn',
        ],
        env: { CRIBL_LEADER_URL: sim.baseUrl, CRIBL_TOKEN: sim.token },
        stdout: (l) => logs.push(l),
        stderr: (l) => logs.push(l),
        readFile: (p) => Promise.resolve(readFileSync(p, 'utf8')),
        signal: stop.signal,
        version: '0.0.0-e2e',
        nodejsVersion: process.version,
        logDestination: { write: (s: string) => void logs.push(s) },
        onStarted: resolve,
      });
      void exited.then((code) => logs.push(`exporter exited with ${code}`));
    });
    app = await Promise.race([
      started,
      exited.then((code): never => {
        throw new Error(`exporter exited with ${code}: ${logs.join('\n')}`);
      }),
    ]);
    prom = await startPrometheus({
      scrapeTargets: [new URL(app.url).host],
      ruleFiles: [join(ROOT, 'deploy/prometheus/alerts.yaml')],
      alertFor: '1s',
    });
  });

  afterAll(async () => {
    await prom?.close();
    stop.abort();
    await exited;
    await sim?.close();
  });

  it('scrapes the exporter: up is 1 and every simulated node is exported', async () => {
    await prom.waitFor('up{job="cribl-exporter"}', (v) => v[0]?.value[1] === '1');
    const expected = sim.fleet.nodes().length;
    const [count] = await prom.waitFor('count(cribl_node_info)', (v) => v[0]?.value[1] === String(expected));
    expect(Number(count!.value[1])).toBe(expected);
    expect((await prom.query('cribl_leader_up'))[0]?.value[1]).toBe('1');
  });

  it('fires CriblNodeUnhealthy for a node the simulator takes down, and for no healthy node', async () => {
    const node = sim.fleet.nodes().find((n) => n.health === 'healthy' && !n.disconnected)!;
    expect(node).toBeDefined();
    const firing = `ALERTS{alertname="CriblNodeUnhealthy", alertstate="firing", node_id="${node.id}"}`;
    expect(await prom.query(firing)).toEqual([]);

    sim.fleet.setHealth(node.id, 'shutting down');

    const [alert] = await prom.waitFor(firing, (v) => v.length === 1);
    expect(alert!.metric).toMatchObject({ product: node.product, group: node.group, severity: 'warning' });
    const active = await prom.alerts();
    expect(active.filter((a) => a.labels.alertname === 'CriblLeaderUnreachable')).toEqual([]);
    const unhealthy = active.filter((a) => a.labels.alertname === 'CriblNodeUnhealthy').map((a) => a.labels.node_id!);
    for (const id of unhealthy) expect(['shutting down', 'standby'], id).toContain(sim.fleet.node(id)?.health);
  });

  it('ingests the counter family from its OpenMetrics scrape, with a series per node', async () => {
    // Prometheus asks for OpenMetrics first; a counter whose family name kept _total would fail the whole scrape.
    const [count] = await prom.waitFor('count(cribl_node_restarts_total)', (v) => v.length === 1);
    expect(Number(count!.value[1])).toBe(sim.fleet.nodes().length);
    expect((await prom.query('up{job="cribl-exporter"}'))[0]?.value[1]).toBe('1');
  });

  // Last: the leader stays unusable for the rest of this file.
  it('fires CriblLeaderNotPrimaryOrUnhealthy for a standby leader, as cribl_leader_health_status shows', async () => {
    const firing = 'ALERTS{alertname="CriblLeaderNotPrimaryOrUnhealthy", alertstate="firing"}';
    expect(await prom.query(firing)).toEqual([]);

    sim.fleet.setLeaderState('standby');

    await prom.waitFor('cribl_leader_health_status{status="standby"} == 1', (v) => v.length === 1);
    const alerts = await prom.waitFor(firing, (v) => v.length > 0);
    for (const a of alerts) expect(a.metric).toMatchObject({ severity: 'critical', job: 'cribl-exporter' });
    expect(alerts.map((a) => a.metric.status ?? `role=${a.metric.role}`).sort()).toEqual(
      expect.arrayContaining(['healthy']),
    );
    expect((await prom.query('cribl_leader_role_info{role="standby"}')).length).toBe(1);
  });
});
