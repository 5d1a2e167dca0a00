/**
 * Golden /metrics: a fixed simulated fleet, a frozen clock and hand-driven jobs give the same body byte for
 * byte. It was committed before the collector re-cut (issue 11) and guards any refactoring of the pipeline:
 * a change of output must be a deliberate change of these files (GOLDEN_UPDATE=1 npx vitest run test/golden).
 *
 * The snapshot families (leader, group, node) are compared exactly. The self-metrics that follow them are
 * compared by family, HELP, TYPE and label sets, with values only where they are deterministic (request counts,
 * node counts); prom-client's process_* and nodejs_* families differ between Node versions and are left out.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type App } from '../../src/exporter/app.js';
import { parseConfig } from '../../src/config/parse.js';
import { startSimulator, type Simulator } from '@cribl-exporter/simulator';
import type { Clock } from '@cribl-exporter/api/clock';
import { manualSchedule } from '../helpers/manual-schedule.js';

const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);

/** Time stands still; sleeps end on the next turn of the event loop (so nothing ever times out). */
const frozenClock: Clock = {
  now: () => T0,
  sleep: (_ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const onAbort = (): void => {
        clearImmediate(timer);
        reject(signal?.reason as Error);
      };
      const timer = setImmediate(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

const GOLDEN = (name: string): string => fileURLToPath(new URL(`./${name}`, import.meta.url));
const UPDATE = process.env.GOLDEN_UPDATE === '1';

/** Self-metric families whose values do not depend on timing. */
const DETERMINISTIC = new Set([
  'cribl_exporter_build_info',
  'cribl_exporter_leader_requests_total',
  'cribl_exporter_leader_requests',
  'cribl_exporter_nodes',
  'cribl_exporter_nodes_over_limit',
  'cribl_exporter_node_detail',
  'cribl_exporter_health_cycle_target_seconds',
  'cribl_exporter_health_cycle_overrun',
  'cribl_exporter_slow_nodes',
  'cribl_exporter_leader_rate_limit_requests_per_second',
  'cribl_exporter_leader_paused',
  'cribl_exporter_leader_pause_until_timestamp_seconds',
  'cribl_exporter_web_config_last_reload_successful',
]);

/** The snapshot part verbatim; the self-metrics normalised as described above. */
function normalise(body: string): string {
  const start = body.indexOf('# HELP cribl_exporter_');
  if (start < 0) throw new Error('no self-metrics in the body');
  const snapshot = body.slice(0, start);
  const out: string[] = [];
  // Samples of a family appear in the order the leaders first touched them, which races: sorted here.
  let samples: string[] = [];
  const flush = (): void => {
    out.push(...samples.sort());
    samples = [];
  };
  let family = '';
  for (const line of body.slice(start).split('\n')) {
    if (line === '') continue;
    const m = /^# (HELP|TYPE) (\S+)/.exec(line);
    if ((m && m[2] !== family) || line === '# EOF') flush();
    if (m) family = m[2]!;
    if (family.startsWith('process_') || family.startsWith('nodejs_')) continue;
    if (m || line === '# EOF') {
      out.push(line);
      continue;
    }
    const sp = line.lastIndexOf(' ');
    samples.push(DETERMINISTIC.has(family) ? line : `${line.slice(0, sp)} <value>`);
  }
  flush();
  return `${snapshot}${out.join('\n')}\n`;
}

let sim: Simulator;
let app: App;

beforeAll(async () => {
  sim = await startSimulator({ nodes: 40, seed: 11, clock: frozenClock });
  const nodes = sim.fleet.nodes();
  nodes.slice(0, 3).forEach((n) => sim.fleet.setDisconnected(n.id, true));
  nodes.slice(3, 6).forEach((n) => sim.fleet.setHealth(n.id, 'shutting down'));
  nodes.slice(6, 8).forEach((n) => sim.fleet.setHealth(n.id, 'standby'));
  nodes.slice(8, 11).forEach((n) => sim.fleet.setHealth(n.id, 'unreachable'));
  sim.fleet.addHostileNodes('stream');
  sim.setFaults({
    dataflow: { windows: [{ group: 'default', destination: 'splunk_lb', red: 1 }] },
    messages: [{ severity: 'error', text: 'Destination splunk_lb is experiencing backpressure' }],
  });

  const file = [
    'leaders:',
    `  - url: ${sim.baseUrl}`,
    '    name: east',
    '    labels: { site: east }',
    `  - url: ${sim.baseUrl}`,
    '    name: west',
    '    labels: { site: west, tier: "a\\"b" }',
  ].join('\n');
  const config = parseConfig({
    argv: [
      '--config.file',
      '/golden.yml',
      '--web.listen-address',
      '127.0.0.1:0',
      '--leader.max-rps',
      '100000',
      '--leader.max-concurrency',
      '16',
      '--health.interval',
      '30s',
      '--metadata.interval',
      '10m',
      '--discovery.interval',
      '1m',
    ],
    env: { CRIBL_TOKEN: sim.token },
    readFile: () => file,
  });
  const sched = manualSchedule();
  app = await startApp({
    config,
    logger: pino({ level: 'silent' }),
    version: '0.0.0-golden',
    nodejsVersion: 'v0.0.0',
    readFile: () => Promise.resolve(''),
    env: {},
    clock: frozenClock,
    random: () => 0.5,
    schedule: sched.schedule,
    bodyBuilder: 'inline',
  });
  await sched.run('discovery');
  // Metadata of a new fleet is fetched over its second to fifth health cycles.
  for (let i = 0; i < 5; i++) await sched.run('health');
  await sched.run('discovery');
  // The interval collectors on by default, once (they start after the first discovery).
  await sched.run('dataflow');
  await sched.run('license');
  // Its first window (the clock stands still): counters at 0, the gauges of the window before it.
  await sched.run('throughput');
});

afterAll(async () => {
  await app?.close();
  await sim?.close();
});

async function scrape(accept: string): Promise<string> {
  await app.body.rebuild();
  const res = await request(app.metricsUrl, { headers: { accept } });
  expect(res.statusCode).toBe(200);
  return res.body.text();
}

describe('golden /metrics', () => {
  it.each([
    ['text', 'text/plain;version=0.0.4', 'metrics.txt'],
    ['OpenMetrics', 'application/openmetrics-text;version=1.0.0', 'metrics.openmetrics.txt'],
  ])('%s body is byte for byte the golden one', async (_name, accept, file) => {
    const got = normalise(await scrape(accept));
    if (UPDATE || !existsSync(GOLDEN(file))) {
      if (!UPDATE && process.env.CI === 'true')
        throw new Error(`${file} is missing: run GOLDEN_UPDATE=1 npx vitest run test/golden`);
      writeFileSync(GOLDEN(file), got);
    }
    expect(got).toBe(readFileSync(GOLDEN(file), 'utf8'));
  });
});
