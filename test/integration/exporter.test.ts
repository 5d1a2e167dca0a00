import { spawnSync } from 'node:child_process';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeMetadata } from '../../src/collectors/node-metadata/index.js';
import { startSimulator, type SimNode, type Simulator } from '@cribl-exporter/simulator';
import { byNode, parseSamples, type Sample } from '../helpers/parse-metrics.js';
import { startTestExporter, type TestExporter } from '../helpers/test-exporter.js';

const CI = process.env.CI === 'true';
const hasPromtool = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;

const DOT_SEGMENT = /^\.{1,2}$/;
let sim: Simulator;
let exp: TestExporter;
const scrape = (headers: Record<string, string> = {}) => exp.scrape(headers);

/** Runs one discovery and one health cycle (metadata polls ride on it), and scrapes the body that includes them. */
async function cycle(): Promise<Sample[]> {
  await exp.run('discovery');
  await exp.run('health');
  return (await scrape()).samples;
}

function value(samples: Map<string, Sample[]>, id: string, labels: Record<string, string> = {}): number | undefined {
  return samples.get(id)?.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

beforeAll(async () => {
  sim = await startSimulator({ nodes: 300, seed: 7 });
  const nodes = sim.fleet.nodes();
  // A fleet in every state the exporter must tell apart.
  nodes.slice(0, 10).forEach((n) => sim.fleet.setDisconnected(n.id, true));
  nodes.slice(10, 20).forEach((n) => sim.fleet.setHealth(n.id, 'shutting down'));
  nodes.slice(20, 25).forEach((n) => sim.fleet.setHealth(n.id, 'standby'));
  nodes.slice(25, 35).forEach((n) => sim.fleet.setHealth(n.id, 'unreachable'));
  nodes.slice(35).forEach((n) => sim.fleet.setHealth(n.id, 'healthy'));
  sim.fleet.addHostileNodes('stream');

  exp = await startTestExporter(sim);
});

afterAll(async () => {
  await exp?.app.close();
  await sim?.close();
});

describe('exporter against a simulated fleet of 300 nodes', () => {
  let samples: Sample[];
  let truth: readonly SimNode[];

  beforeAll(async () => {
    expect(exp.app.ready()).toBe(false);
    samples = await cycle();
    truth = sim.fleet.nodes();
  });

  it('is ready after the first discovery and exports every node once', () => {
    expect(exp.app.ready()).toBe(true);
    const info = samples.filter((s) => s.name === 'cribl_node_info');
    expect(info).toHaveLength(truth.length);
    expect(new Set(info.map((s) => s.labels.node_id))).toEqual(new Set(truth.map((n) => n.id)));
    expect(samples.find((s) => s.name === 'cribl_leader_up')?.value).toBe(1);
  });

  it('agrees with the simulator for every node: identity, connection, resources', () => {
    const info = byNode(samples, 'cribl_node_info');
    const connected = byNode(samples, 'cribl_node_connected');
    const cpus = byNode(samples, 'cribl_node_cpus');
    const mem = byNode(samples, 'cribl_node_memory_bytes');
    const start = byNode(samples, 'cribl_node_start_timestamp_seconds');
    const heartbeat = byNode(samples, 'cribl_node_last_heartbeat_timestamp_seconds');
    for (const n of truth) {
      const i = info.get(n.id)?.[0];
      expect(i?.labels).toEqual({
        product: n.product,
        group: n.group,
        node_id: n.id,
        hostname: n.entry.info.hostname,
        version: n.entry.info.cribl.version ?? '',
        platform: n.entry.info.platform,
        arch: n.entry.info.architecture,
      });
      expect(value(connected, n.id)).toBe(n.disconnected ? 0 : 1);
      expect(value(cpus, n.id)).toBe(n.entry.info.cpus);
      expect(value(mem, n.id)).toBe(n.entry.info.totalmem);
      expect(value(start, n.id)).toBe(n.startTime / 1000);
      // Heartbeats advance between discovery and now: the exported one is from the discovery.
      expect(Math.abs(value(heartbeat, n.id)! - n.entry.lastMsgTime / 1000)).toBeLessThan(30);
    }
  });

  it('agrees with the simulator for every node: health state', () => {
    const up = byNode(samples, 'cribl_node_health_up');
    const healthy = byNode(samples, 'cribl_node_healthy');
    const status = byNode(samples, 'cribl_node_health_status');
    const failure = byNode(samples, 'cribl_node_poll_failure_info');
    const counts: Record<string, number> = {};
    for (const n of truth) {
      const mode = n.disconnected ? 'disconnected' : n.health;
      counts[mode] = (counts[mode] ?? 0) + 1;
      if (mode === 'unreachable' || mode === 'disconnected') {
        expect(value(up, n.id), n.id).toBe(0);
        expect(value(healthy, n.id)).toBe(0);
        expect(failure.get(n.id)?.map((s) => s.labels.reason)).toEqual(['http_5xx']);
        continue;
      }
      const state = n.health === 'healthy' ? 'healthy' : n.health === 'standby' ? 'standby' : 'shutting_down';
      // The failure's reason in the message: a poll that fails here under load says why.
      expect(value(up, n.id), `${n.id}: ${JSON.stringify(failure.get(n.id)?.map((f) => f.labels.reason))}`).toBe(1);
      expect(value(healthy, n.id)).toBe(state === 'healthy' ? 1 : 0);
      for (const s of ['healthy', 'shutting_down', 'standby'])
        expect(value(status, n.id, { status: s })).toBe(s === state ? 1 : 0);
      expect(failure.has(n.id)).toBe(false);
    }
    expect(counts).toMatchObject({ disconnected: 10, 'shutting down': 10, standby: 5, unreachable: 10 });
  });

  it('escapes hostile node ids and polls each of them at its own path', () => {
    const hostile = truth.filter((n) => n.hostile);
    expect(hostile.length).toBeGreaterThan(3);
    const up = byNode(samples, 'cribl_node_health_up');
    for (const n of hostile) {
      const answered = n.health !== 'unreachable' && !n.disconnected;
      expect(value(up, n.id), JSON.stringify(n.id)).toBe(answered ? 1 : 0);
    }
    expect(hostile.filter((n) => DOT_SEGMENT.test(n.id))).toHaveLength(2);
    // No request went anywhere but the node's own health path.
    const routes = Object.keys(sim.stats().requests);
    expect(routes.every((r) => !r.includes('..') && !r.includes('auth'))).toBe(true);
  });

  it('serves the same body as OpenMetrics and gzip, and promtool finds nothing', async () => {
    const om = await scrape({ accept: 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' });
    expect(String(om.headers['content-type'])).toMatch(/^application\/openmetrics-text; version=1\.0\.0/);
    expect(om.text.endsWith('# EOF\n')).toBe(true);
    const gz = await scrape({ 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(parseSamples(gz.text).filter((s) => s.name === 'cribl_node_info')).toHaveLength(truth.length);
    if (!hasPromtool && !CI) return;
    const text = (await scrape()).text;
    const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('every answering node has its metadata within five health cycles, as the simulator serves it', async () => {
    expect(samples.filter((s) => s.name === 'cribl_node_metadata_info')).toHaveLength(0); // never in the first cycle
    let after: Sample[] = [];
    for (let i = 0; i < 4; i++) after = await cycle();
    const meta = byNode(after, 'cribl_node_metadata_info');
    const up = byNode(after, 'cribl_node_health_up');
    const answering = truth.filter((n) => value(up, n.id) === 1);
    expect(meta.size).toBe(answering.length);
    for (const n of answering.slice(0, 40)) {
      const res = await request(`${sim.baseUrl}/w/${encodeURIComponent(n.id)}/edge/metadata`, {
        headers: { authorization: `Bearer ${sim.token}` },
      });
      const item = ((await res.body.json()) as { items: NodeMetadata[] }).items[0]!;
      expect(meta.get(n.id)?.[0]?.labels).toMatchObject({
        os_name: item.os?.os_name ?? '',
        os_version: item.os?.os_version ?? '',
        cribl_mode: item.cribl?.mode ?? '',
        kube_namespace: item.kube?.namespace ?? '',
      });
    }
  });

  it('removed nodes vanish from every family at the next discovery', async () => {
    const gone = truth.slice(40, 45).map((n) => n.id);
    for (const id of gone) sim.fleet.removeNode(id);
    const after = await cycle();
    const ids = new Set(after.filter((s) => s.labels.node_id !== undefined).map((s) => s.labels.node_id));
    for (const id of gone) expect(ids.has(id)).toBe(false);
    expect(after.filter((s) => s.name === 'cribl_node_info')).toHaveLength(truth.length - 5);
  });

  it('a restarted node gets its metadata polled again; a node taken down shows up unhealthy', async () => {
    const target = sim.fleet.nodes().find((n) => n.health === 'healthy' && !n.disconnected && !n.hostile)!;
    const before = sim.stats().requests['/w/{nodeId}/edge/metadata'];
    const count = (r: typeof before) => Object.values(r ?? {}).reduce((a, b) => a + b, 0);
    sim.fleet.restart(target.id);
    sim.fleet.setHealth(target.id, 'shutting down');
    const after = await cycle();
    expect(count(sim.stats().requests['/w/{nodeId}/edge/metadata']) - count(before)).toBe(1);
    expect(value(byNode(after, 'cribl_node_healthy'), target.id)).toBe(0);
    expect(value(byNode(after, 'cribl_node_health_status'), target.id, { status: 'shutting_down' })).toBe(1);
    expect(value(byNode(after, 'cribl_node_start_timestamp_seconds'), target.id)).toBe(
      sim.fleet.node(target.id)!.startTime / 1000,
    );
  });

  it(
    'costs the leader at most one listing request per 500 nodes and one health request per node per ' + 'cycle',
    async () => {
      sim.resetStats();
      await cycle();
      const req = sim.stats().requests;
      const total = (route: string) => Object.values(req[route] ?? {}).reduce((a, b) => a + b, 0);
      const nodes = sim.fleet.nodes().length;
      expect(total('/products/{product}/workers')).toBeLessThanOrEqual(Math.ceil(nodes / 500) + 1);
      // Every node is asked exactly once, unreachable ones and the ids "." and ".." (sent as %2E and %2E%2E)
      // included (the leader's 502 for unreachable nodes is final).
      expect(total('/w/{nodeId}/health')).toBe(nodes);
      expect(total('/w/{nodeId}/edge/metadata')).toBe(0);
    },
  );
});
