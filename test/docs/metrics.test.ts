/**
 * The metric contract (src/config/metrics-doc.ts, from the collectors' families and the self-metrics) against the
 * docs that show it (docs/metrics.md, the README's table) and against what the exporter really exports: every
 * collector on, against the simulator, exporters on port 0. UPDATE_DOCS=1 regenerates the docs instead of failing.
 */
import { createServer } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import pino from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '@cribl-exporter/api/shapes';
import { startApp } from '../../src/exporter/app.js';
import { metricContract, metricsMarkdown, readmeMetricsTable, replaceGenerated } from '../../src/config/metrics-doc.js';
import { parseConfig } from '../../src/config/parse.js';
import { workspaceLeaderUrl } from '../../src/discovery/workspaces.js';
import { DEFAULT_FAULTS, startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { manualSchedule } from '../helpers/manual-schedule.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { startTestExporter } from '../helpers/test-exporter.js';

const METRICS_DOC = new URL('../../docs/metrics.md', import.meta.url);
const README = new URL('../../README.md', import.meta.url);

const regenerate = (doc: string): string => replaceGenerated(doc, 'METRICS', metricsMarkdown());
const regenerateReadme = (doc: string): string => replaceGenerated(doc, 'METRICS TABLE', readmeMetricsTable());
// UPDATE_DOCS=1 regenerates the tables in the docs instead of failing on a difference (like golden files).
if (process.env.UPDATE_DOCS === '1') {
  writeFileSync(METRICS_DOC, regenerate(readFileSync(METRICS_DOC, 'utf8')));
  writeFileSync(README, regenerateReadme(readFileSync(README, 'utf8')));
}

describe('the generated metric docs', () => {
  const contract = metricContract();

  it('docs/metrics.md embeds the contract generated from the families (UPDATE_DOCS=1 regenerates it)', () => {
    const doc = readFileSync(METRICS_DOC, 'utf8');
    expect(regenerate(doc)).toBe(doc);
    for (const r of contract) expect(doc).toContain(`| \`${r.name}\` | ${r.type} |`);
  });

  it("the README's metrics table is generated too, and names every family", () => {
    const readme = readFileSync(README, 'utf8');
    expect(regenerateReadme(readme)).toBe(readme);
    for (const r of contract) expect(readme).toContain(`\`${r.name}\``);
  });

  it('has one row per family name, every name cribl_-prefixed and only counters ending in _total', () => {
    const names = contract.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((n) => !n.startsWith('cribl_'))).toEqual([]);
    // cribl_exporter_shard_total: a name fixed by the sharding contract, exported only when sharding is on.
    const odd = contract.filter((r) => (r.type === 'counter') !== r.name.endsWith('_total')).map((r) => r.name);
    expect(odd).toEqual(['cribl_exporter_shard_total']);
  });
});

/** A family as a body shows it: its TYPE and the label names of its series (a histogram's `le` left out). */
interface Exported {
  type: string;
  labels: Set<string>;
}

/** The families of a text exposition (0.0.4), but prom-client's process_* and nodejs_*. */
function exportedFamilies(text: string, into: Map<string, Exported>): void {
  let family = '';
  for (const line of text.split('\n')) {
    const t = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (t) {
      family = t[1]!;
      if (!into.has(family)) into.set(family, { type: t[2]!, labels: new Set() });
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const labels = /^[^{ ]+\{(.*)\} \S+$/.exec(line)?.[1] ?? '';
    for (const [, name] of labels.matchAll(/(?:^|,)([a-zA-Z_]\w*)="(?:[^"\\]|\\.)*"/g)) {
      if (name !== 'le') into.get(family)!.labels.add(name!);
    }
  }
  for (const name of into.keys()) if (name.startsWith('process_') || name.startsWith('nodejs_')) into.delete(name);
}

/** A port nothing listens on (taken and given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Families the runs below export without a series (their names and types are compared, not their labels), each with
// why: they need a failure these runs do not make.
const NO_SERIES: Readonly<Record<string, string>> = {
  cribl_exporter_auth_failures_total: 'a token the leader refuses (test/auth/ has them)',
};

describe('the contract is what the exporter exports, every collector on, against the simulator', () => {
  const closers: (() => Promise<unknown>)[] = [];
  const exported = new Map<string, Exported>();
  let sim: Simulator;
  const clock = new FakeClock();

  beforeAll(async () => {
    const secret = 'client-secret-value-42';
    sim = await startSimulator({
      clock,
      nodes: 40,
      seed: 11,
      clients: [{ clientId: 'exporter', clientSecret: secret }],
      organizationId: 'acme',
    });
    closers.push(() => sim.close());
    const dead = `http://127.0.0.1:${await closedPort()}/api/v1`;

    // On-prem: every collector on (the optional ones turned on), HA hosts (one of them down), two shards, a node that
    // does not answer and a bulletin.
    for (const n of sim.fleet.nodes().slice(0, 10)) sim.fleet.setHealth(n.id, 'unreachable');
    sim.setFaults({ messages: [{ severity: 'error', text: 'Destination splunk_lb is experiencing backpressure' }] });
    const onPrem = await startTestExporter(
      sim,
      [
        '--collector.packs',
        '--search.probe-interval=2h',
        '--search.probe-timeout=1h',
        '--throughput.per-node',
        `--leader.ha-url=${sim.baseUrl}`,
        `--leader.ha-url=${dead}`,
        '--shard.total=2',
        '--shard.index=0',
      ],
      { clock },
    );
    closers.push(() => onPrem.app.close());
    /**
     * Runs the jobs named `prefix…`; while they wait on the clock (a search job's polls, a pause the leader asked
     * for), it moves on a second at a time, each after a little real time for the requests in flight.
     */
    const run = async (prefix: string): Promise<void> => {
      let settled = false;
      const done = onPrem.run(prefix).finally(() => (settled = true));
      while (!settled) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        if (!settled && clock.pending > 0) await clock.advance(1_000);
      }
      await done;
    };
    // Edge's health polls rotate at basic: cribl_exporter_health_rotation_seconds has a series (the exporter above
    // keeps full, with the Edge-only node families).
    const rotating = await startTestExporter(sim, ['--edge.node-detail=basic'], { clock });
    closers.push(() => rotating.app.close());
    await rotating.run('discovery');
    await rotating.run('health');
    exportedFamilies((await rotating.scrape()).text, exported);
    await onPrem.run('discovery');
    // Metadata of a new fleet is fetched over its second to fifth health polls.
    for (let i = 0; i < 5; i++) await onPrem.run('health');
    await run('');
    // A second throughput window.
    await clock.advance(60_000);
    await run('');
    exportedFamilies((await onPrem.scrape()).text, exported);
    // Then failures: a listing that is not JSON, a search job that fails, a leader that answers 503.
    sim.setFaults({
      malformed: { share: 1, routes: ['/products/{product}/workers', '/m/{group}/packs'] },
      search: { ...DEFAULT_FAULTS.search, outcome: 'failed' },
      unavailable: { share: 1, windows: [], retryAfter: 1, retryAfterForm: 'seconds', routes: ['/w/{nodeId}/health'] },
    });
    await run('');
    exportedFamilies((await onPrem.scrape()).text, exported);

    // Cribl.Cloud: the management plane's workspace listing, its workspaces as leaders.
    const host = new URL(sim.origin).host;
    const ws = (workspaceId: string): Workspace => ({
      workspaceId,
      region: 'us-west-2',
      leaderFQDN: host,
      state: 'Active',
    });
    sim.setWorkspaces([ws('main')]);
    const sched = manualSchedule();
    const config = parseConfig({
      argv: [
        '--cloud.discover-workspaces',
        '--cloud.organization=acme',
        '--cloud.client-id=exporter',
        `--cloud.token-url=${sim.oauthTokenUrl}`,
        `--cloud.management-url=${sim.managementUrl}`,
        '--web.listen-address=127.0.0.1:0',
        '--leader.max-rps=500',
      ],
      env: { CRIBL_CLIENT_SECRET: secret },
      readFile: () => '',
    });
    const cloud = await startApp({
      config,
      logger: pino({ level: 'silent' }),
      version: 't',
      nodejsVersion: process.version,
      readFile: () => Promise.resolve(''),
      env: {},
      schedule: sched.schedule,
      workspaceUrl: (w) => workspaceLeaderUrl(w, 'acme', 'cribl.cloud', 'http'),
    });
    closers.push(() => cloud.close());
    await sched.run('workspaces');
    await sched.run('discovery');
    await sched.run('health');
    await cloud.body.rebuild();
    exportedFamilies(await (await request(cloud.metricsUrl)).body.text(), exported);
  }, 120_000);

  afterAll(async () => {
    for (const c of closers.reverse()) await c();
  });

  it('exports every family of the contract, with its type and label names, and no other', () => {
    const contract = metricContract();
    // A snapshot family's series carry the leader's target labels too: `workspace` for discovered workspaces.
    const targets = new Set(contract.filter((r) => r.targetLabels).map((r) => r.name));
    const line = (name: string, type: string, labels: Iterable<string>): string =>
      `${name} ${type} {${[...labels]
        .filter((l) => !(targets.has(name) && l === 'workspace'))
        .sort()
        .join(',')}}`;
    const got = [...exported].map(([name, f]) => line(name, f.type, f.labels));
    const want = contract.map((r) => line(r.name, r.type, r.name in NO_SERIES ? [] : r.labels));
    expect(got.sort()).toEqual(want.sort());
  });

  it('lists as without series only families exported without one', () => {
    expect(Object.keys(NO_SERIES).filter((n) => exported.get(n)?.labels.size !== 0)).toEqual([]);
  });
});
