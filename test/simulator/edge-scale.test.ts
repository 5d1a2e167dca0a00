/**
 * The Edge-heavy scale scenario (examples/scenarios/edge-scale.yaml, issue 51) in small, and the fleet's truth
 * (sim.truth(), GET /_sim/truth, fleetTruth): the counts per group must be what the listing serves, so the exporter's
 * per-group aggregates can be compared with them exactly.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SILENT_AFTER_MS, fleetTruth, nodeCount, parseScenario, startSimulator } from '@cribl-exporter/simulator';
import type { FleetTruth, Simulator, SimulatorOptions, TruthCounts } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { JSON_BODY, call } from './helpers.js';

const sims: Simulator[] = [];
afterEach(async () => {
  while (sims.length) await sims.pop()!.close();
});

const FILE = 'edge-scale.yaml';
const scenario = () =>
  parseScenario(readFileSync(join(import.meta.dirname, '../../examples/scenarios', FILE), 'utf8'), FILE);

async function sim(opts: SimulatorOptions = {}): Promise<{ s: Simulator; clock: FakeClock }> {
  const clock = new FakeClock();
  const s = await startSimulator({ clock, ...opts });
  sims.push(s);
  return { s, clock };
}

interface Entry {
  id: string;
  group: string;
  lastMsgTime: number;
  disconnected: boolean;
  status: string;
  info: { cribl: { version: string; config: { version: string } } };
  nodeUpgradeStatus?: { state: number };
}

/** Every entry of a product's listing, in pages of 500, as an exporter reads it. */
async function listing(s: Simulator, product: 'stream' | 'edge'): Promise<Entry[]> {
  const out: Entry[] = [];
  for (let offset = 0; ; offset += 500) {
    const r = await call(s.origin, `/api/v1/products/${product}/workers?limit=500&offset=${offset}`, {
      token: s.token,
    });
    expect(r.status).toBe(200);
    out.push(...(r.json.items as Entry[]));
    if (offset + 500 >= r.json.totalCount) return out;
  }
}

/** The truth recomputed from the wire: the listings, the groups' configVersion and the time. */
async function truthFromWire(s: Simulator, at: number): Promise<Map<string, TruthCounts>> {
  const out = new Map<string, TruthCounts>();
  for (const product of ['stream', 'edge'] as const) {
    const groups = await call(s.origin, `/api/v1/products/${product}/groups`, { token: s.token });
    const deployed = new Map<string, string>(
      (groups.json.items as { id: string; configVersion: string }[]).map((g) => [g.id, g.configVersion]),
    );
    for (const id of deployed.keys()) {
      out.set(id, {
        nodes: 0,
        connected: 0,
        disconnected: 0,
        silent: 0,
        drifted: 0,
        failedUpgrades: 0,
        byVersion: {},
        byStatus: {},
      });
    }
    for (const e of await listing(s, product)) {
      const g = out.get(e.group)!;
      g.nodes++;
      if (e.disconnected) g.disconnected++;
      else g.connected++;
      if (!e.disconnected && at - e.lastMsgTime > SILENT_AFTER_MS) g.silent++;
      if (e.info.cribl.config.version !== deployed.get(e.group)) g.drifted++;
      if (e.nodeUpgradeStatus?.state === 2) g.failedUpgrades++;
      const v = e.info.cribl.version;
      g.byVersion[v] = (g.byVersion[v] ?? 0) + 1;
      g.byStatus[e.status] = (g.byStatus[e.status] ?? 0) + 1;
    }
  }
  return out;
}

const byGroup = (t: FleetTruth): Map<string, TruthCounts> =>
  new Map(t.groups.map(({ group: _g, product: _p, ...counts }) => [_g, counts]));

describe('examples/scenarios/edge-scale.yaml', () => {
  const NODES = 3000;

  it('is the issue-51 fleet in small: mostly Edge, many fleets of varied size, the shares of --nodes', async () => {
    const { s } = await sim({ nodes: NODES, scenario: scenario() });
    const t = s.truth();
    const all = t.products.edge.nodes + t.products.stream.nodes;
    expect(all).toBe(NODES);
    expect(t.products.edge.nodes / NODES).toBeGreaterThan(0.95);
    const fleets = t.groups.filter((g) => g.product === 'edge');
    expect(fleets).toHaveLength(150);
    expect(t.groups.filter((g) => g.product === 'stream')).toHaveLength(4);
    // Varied: the largest fleet holds many times the median one.
    const sizes = fleets.map((g) => g.nodes).sort((a, b) => b - a);
    expect(sizes[0]!).toBeGreaterThan(10 * sizes[75]!);
    // The shares of the scenario, of the fleet given with `nodes` (every pick finds a node at this size).
    const sum = (k: 'disconnected' | 'silent' | 'drifted') => t.products.edge[k] + t.products.stream[k];
    expect(sum('disconnected')).toBe(nodeCount('3%', NODES));
    expect(sum('silent')).toBe(nodeCount('1%', NODES));
    expect(sum('drifted')).toBe(nodeCount('0.5%', NODES));
    expect(Object.keys({ ...t.products.edge.byVersion, ...t.products.stream.byVersion }).sort()).toEqual([
      '4.15.1',
      '4.16.3',
      '4.17.1',
      '4.18.2',
      '4.19.0',
    ]);
    expect(t.products.edge.failedUpgrades).toBeGreaterThanOrEqual(nodeCount('0.1%', NODES));
    expect(t.products.stream.failedUpgrades).toBe(0);
  });

  it('has a truth per group that is exactly what the listing serves, now and after time passes', async () => {
    const { s, clock } = await sim({ nodes: NODES, scenario: scenario() });
    const [a, b, c] = s.fleet.nodes().filter((n) => n.product === 'edge');
    s.fleet.setHealth(a!.id, 'unreachable');
    s.fleet.setHealth(b!.id, 'standby');
    s.fleet.setListingStatus(c!.id, 'degraded');
    expect(s.truth().products.edge.byStatus).toMatchObject({ unhealthy: 1, standby: 1, degraded: 1 });
    expect(await truthFromWire(s, clock.now())).toEqual(byGroup(s.truth()));
    // Connected nodes keep heartbeating, the silent ones stay silent, the disconnected ones stay listed.
    await clock.advance(15 * 60_000);
    const later = s.truth();
    expect(await truthFromWire(s, clock.now())).toEqual(byGroup(later));
    expect(later.products).toEqual(s.truth().products);
    expect(later.products.edge.silent).toBeGreaterThan(0);
  });

  it('is the same fleet for the same seed, and GET /_sim/truth serves the same truth', async () => {
    const a = await sim({ nodes: 1000, scenario: scenario() });
    const b = await sim({ nodes: 1000, scenario: scenario() });
    expect(a.s.truth().groups).toEqual(b.s.truth().groups);
    const r = await call(a.s.origin, '/_sim/truth');
    expect(r.status).toBe(200);
    expect(r.json).toEqual(JSON.parse(JSON.stringify(a.s.truth())));
    expect(fleetTruth(a.s.fleet, a.clock.now(), 1)).toEqual(a.s.truth(1));
    expect((await call(a.s.origin, '/_sim/truth?silentAfter=soon')).status).toBe(400);
  });
});

describe('silent nodes', () => {
  it('freeze their lastMsgTime while listed connected, until they heartbeat, reconnect or restart', async () => {
    const { s, clock } = await sim({ nodes: 10 });
    const [a, b, c] = s.fleet.nodes();
    const frozen = clock.now() - 5 * 60_000;
    s.fleet.setSilent(a!.id, frozen);
    const patched = await call(s.origin, `/_sim/nodes/${b!.id}`, {
      method: 'PATCH',
      headers: JSON_BODY,
      body: JSON.stringify({ silent: true, criblVersion: '4.15.1' }),
    });
    expect(patched.json).toMatchObject({ silent: true, disconnected: false });
    s.fleet.setSilent(c!.id, frozen);
    const heardB = s.fleet.node(b!.id)!.lastMsgTime;
    await clock.advance(60_000);
    expect(s.fleet.node(a!.id)!.entry).toMatchObject({ lastMsgTime: frozen, disconnected: false });
    expect(s.fleet.node(b!.id)!.entry).toMatchObject({ lastMsgTime: heardB, info: { cribl: { version: '4.15.1' } } });
    expect(s.truth().products.stream.silent + s.truth().products.edge.silent).toBe(2);
    s.fleet.setSilent(a!.id, null);
    s.fleet.restart(b!.id);
    s.fleet.setDisconnected(c!.id, true);
    s.fleet.setDisconnected(c!.id, false);
    for (const n of [a, b, c]) expect(s.fleet.node(n!.id)!.silent).toBe(false);
    expect(s.fleet.node(a!.id)!.lastMsgTime).toBeGreaterThan(clock.now() - 10_000);
  });
});

describe('scenario counts', () => {
  it('take a share of the fleet ("3%") or a number, and refuse other strings in one line', () => {
    expect(nodeCount('3%', 250_000)).toBe(7500);
    expect(nodeCount('0.5%', 3000)).toBe(15);
    expect(nodeCount(12, 3000)).toBe(12);
    expect(() => parseScenario('fleet: { disconnected: "3 percent" }', 'x.yaml')).toThrow(
      /^x\.yaml: fleet\.disconnected: /,
    );
    expect(() => parseScenario('fleet: { silent: "120%" }', 'x.yaml')).toThrow(/at most 100%/);
    expect(() => parseScenario('fleet: { criblVersions: { "4.19": 1 } }', 'x.yaml')).toThrow(/4\.19\.0/);
    expect(() => parseScenario('fleet: { edgeShare: 1.5 }', 'x.yaml')).toThrow(/fleet\.edgeShare/);
  });
});
