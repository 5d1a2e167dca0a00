import { describe, expect, it } from 'vitest';
import { HEARTBEAT_PERIOD_MS, HOSTILE_IDS, SimFleet, listingStatus } from '../../packages/simulator/src/core/fleet.js';
import type { NodeHealthMode } from '../../packages/simulator/src/core/fleet.js';
import { seededRandom } from '../../packages/simulator/src/core/random.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { expectWorkerEntry } from './shapes.js';

function fleet(nodes = 50, seed = 1, clock = new FakeClock(), leaderVersion = '4.19'): SimFleet {
  return new SimFleet({ nodes, leaderVersion, clock, random: seededRandom(seed) });
}

describe('SimFleet generation', () => {
  it('is deterministic from the seed', () => {
    const a = fleet(30, 7)
      .nodes()
      .map((n) => n.entry);
    const b = fleet(30, 7)
      .nodes()
      .map((n) => n.entry);
    const c = fleet(30, 8)
      .nodes()
      .map((n) => n.entry);
    expect(a).toEqual(b);
    expect(c.map((e) => e.id)).not.toEqual(a.map((e) => e.id));
  });

  it('spreads nodes over both products and several groups, one of them `default`', () => {
    const f = fleet(200);
    expect(f.size()).toBe(200);
    expect(f.size('stream') + f.size('edge')).toBe(200);
    expect(f.size('stream')).toBeGreaterThan(50);
    expect(f.size('edge')).toBeGreaterThan(30);
    const streamGroups = new Set(
      f
        .nodes()
        .filter((n) => n.product === 'stream')
        .map((n) => n.group),
    );
    const edgeGroups = new Set(
      f
        .nodes()
        .filter((n) => n.product === 'edge')
        .map((n) => n.group),
    );
    expect(streamGroups.has('default')).toBe(true);
    expect(streamGroups.size).toBeGreaterThanOrEqual(2);
    expect(edgeGroups.size).toBeGreaterThanOrEqual(2);
    for (const g of edgeGroups) expect(streamGroups.has(g)).toBe(false);
  });

  it('covers both products even with two nodes', () => {
    expect(
      fleet(2)
        .nodes()
        .map((n) => n.product),
    ).toEqual(['stream', 'edge']);
  });

  it('gives every node exactly the fields real leaders send, with GUID-like ids', () => {
    for (const n of fleet(120).nodes()) {
      expectWorkerEntry(n.entry, n.product);
      expect(n.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(n.entry.info.cribl.config.version).toBe(n.configVersion);
    }
  });

  it("serves the leader version as the nodes' version for most nodes", () => {
    const versions = fleet(100, 1, new FakeClock(), '4.17')
      .nodes()
      .map((n) => n.entry.info.cribl.version);
    expect(versions.filter((v) => v === '4.17.0').length).toBeGreaterThan(70);
  });
});

describe('heartbeats', () => {
  it('advances lastMsgTime in heartbeat ticks and freezes it while disconnected', async () => {
    const clock = new FakeClock();
    const f = fleet(5, 1, clock);
    const id = f.nodes()[0]!.id;
    const t0 = f.node(id)!.entry.lastMsgTime;
    expect(clock.now() - t0).toBeLessThan(HEARTBEAT_PERIOD_MS);
    await clock.advance(HEARTBEAT_PERIOD_MS);
    expect(f.node(id)!.entry.lastMsgTime).toBe(t0 + HEARTBEAT_PERIOD_MS);

    f.setDisconnected(id, true);
    const frozen = f.node(id)!.entry;
    expect(frozen.disconnected).toBe(true);
    expect(frozen.deployable).toBe(false);
    await clock.advance(5 * HEARTBEAT_PERIOD_MS);
    expect(f.node(id)!.entry.lastMsgTime).toBe(frozen.lastMsgTime);

    f.setDisconnected(id, false);
    expect(f.node(id)!.entry.lastMsgTime).toBeGreaterThan(frozen.lastMsgTime);
    expect(f.node(id)!.entry.disconnected).toBe(false);
  });
});

describe('fleet controls', () => {
  it.each<[NodeHealthMode, string]>([
    ['healthy', 'healthy'],
    ['slow', 'healthy'],
    ['shutting down', 'shutting down'],
    ['standby', 'standby'],
    ['unreachable', 'unhealthy'],
  ])('health %s shows as listing status %s', (mode, status) => {
    const f = fleet(3);
    const id = f.nodes()[0]!.id;
    f.setHealth(id, mode);
    expect(f.node(id)!.health).toBe(mode);
    expect(f.node(id)!.entry.status).toBe(status);
    expect(listingStatus(mode)).toBe(status);
  });

  it('restart moves startTime and firstMsgTime to now and reconnects', async () => {
    const clock = new FakeClock();
    const f = fleet(3, 1, clock);
    const id = f.nodes()[0]!.id;
    f.setDisconnected(id, true);
    await clock.advance(60_000);
    f.restart(id);
    const e = f.node(id)!.entry;
    expect(e.info.cribl.startTime).toBe(clock.now());
    expect(e.firstMsgTime).toBe(clock.now());
    expect(e.disconnected).toBe(false);
  });

  it('adds and removes nodes, keeping group counts', () => {
    const f = fleet(10);
    const before = f.groups('stream').find((g) => g.id === 'default')!.workerCount!;
    const n = f.addNode({ group: 'default' });
    expect(n.product).toBe('stream');
    expect(f.size()).toBe(11);
    expect(f.groups('stream').find((g) => g.id === 'default')!.workerCount).toBe(before + 1);
    expect(() => f.addNode({ id: n.id })).toThrow(/exists/);
    expect(() => f.addNode({ group: 'default', product: 'edge' })).toThrow(/belongs to product stream/);
    expect(f.removeNode(n.id)).toBe(true);
    expect(f.removeNode(n.id)).toBe(false);
    expect(f.node(n.id)).toBeUndefined();
    expect(f.size()).toBe(10);
  });

  it('creates a group on demand for a new group id', () => {
    const f = fleet(2);
    const n = f.addNode({ group: 'lab', product: 'edge' });
    expect(n.product).toBe('edge');
    expect(f.groups('edge').map((g) => g.id)).toContain('lab');
    expect(f.commits('lab')!.length).toBeGreaterThan(0);
  });

  it('throws naming the id for unknown nodes', () => {
    expect(() => fleet(2).setHealth('nope', 'standby')).toThrow('unknown node id "nope"');
  });

  it('adds every hostile id once, as id and hostname', () => {
    const f = fleet(2);
    const added = f.addHostileNodes();
    expect(added.map((n) => n.id)).toEqual([...HOSTILE_IDS]);
    expect(f.addHostileNodes()).toEqual([]);
    for (const n of added) {
      expect(n.hostile).toBe(true);
      expect(n.entry.id).toBe(n.id);
      expect(n.entry.info.hostname).toBe(n.id);
      expectWorkerEntry(n.entry, 'stream');
    }
    expect(HOSTILE_IDS).toEqual(
      expect.arrayContaining(['..', 'slash/inside', 'quote"double', 'back\\slash', 'new\nline']),
    );
    expect(HOSTILE_IDS.some((id) => id.includes('%'))).toBe(true);
    expect(HOSTILE_IDS.some((id) => [...id].some((ch) => ch.charCodeAt(0) > 0x7f))).toBe(true);
  });
});

describe('groups and config versions', () => {
  it('serves ConfigGroup fields with configVersion = newest commit', () => {
    const f = fleet(60);
    for (const product of ['stream', 'edge'] as const) {
      for (const g of f.groups(product)) {
        expect(g.type).toBe(product);
        expect(g.configVersion).toMatch(/^[0-9a-f]{7}$/);
        expect(f.commits(g.id)![0]!.hash!.slice(0, 7)).toBe(g.configVersion);
        expect(g.workerCount).toBe(f.nodes().filter((n) => n.group === g.id).length);
        expect(g.deployingWorkerCount).toBe(0);
        expect(g.incompatibleWorkerCount).toBe(0);
        expect(g.isFleet).toBe(product === 'edge' ? true : undefined);
      }
    }
  });

  it('deploy without rollout leaves nodes behind (deploying) until the next churn tick', () => {
    const f = fleet(40);
    const group = f.groups('stream').find((g) => g.id === 'default')!;
    const v = f.deployGroup('default', { rollout: false, message: 'change' });
    expect(v).not.toBe(group.configVersion);
    expect(f.commits('default')![0]).toMatchObject({ message: 'change', refs: 'HEAD -> master' });
    expect(f.commits('default')![1]!.refs).toBe('');
    const after = f.groups('stream').find((g) => g.id === 'default')!;
    expect(after.configVersion).toBe(v);
    expect(after.deployingWorkerCount).toBe(group.workerCount);
    f.churn({ join: 0, leave: 0, disconnect: 0, reconnect: 0, restart: 0, health: 0, configVersion: 0, deploy: 0 });
    expect(f.groups('stream').find((g) => g.id === 'default')!.deployingWorkerCount).toBe(0);
    expect(
      f
        .nodes()
        .filter((n) => n.group === 'default')
        .every((n) => n.configVersion === v),
    ).toBe(true);
  });

  it("setConfigVersion changes the node's running version and the group's deploying count", () => {
    const f = fleet(20);
    const n = f.nodes().find((x) => x.group === 'default')!;
    f.setConfigVersion(n.id, 'abcdef0');
    expect(f.node(n.id)!.entry.info.cribl.config.version).toBe('abcdef0');
    expect(f.groups('stream').find((g) => g.id === 'default')!.deployingWorkerCount).toBe(1);
  });
});

describe('churn', () => {
  it('applies each kind of change', () => {
    const f = fleet(100, 3);
    const before = new Map(f.nodes().map((n) => [n.id, { startTime: n.startTime, configVersion: n.configVersion }]));
    f.churn({ join: 3, leave: 2, disconnect: 2, reconnect: 0, restart: 1, health: 2, configVersion: 2, deploy: 1 });
    const after = f.nodes();
    expect(after.length).toBe(101);
    expect(after.filter((n) => !before.has(n.id)).length).toBe(3);
    expect([...before.keys()].filter((id) => !f.node(id)).length).toBe(2);
    expect(after.filter((n) => n.disconnected).length).toBe(2);
    expect(after.filter((n) => n.health !== 'healthy').length).toBe(2);
    const restarted = after.filter((n) => before.has(n.id) && before.get(n.id)!.startTime !== n.startTime);
    expect(restarted.length).toBe(1);
    const drifted = after.filter((n) => before.has(n.id) && before.get(n.id)!.configVersion !== n.configVersion);
    expect(drifted.length).toBe(2);
    const deploying = [...f.groups('stream'), ...f.groups('edge')].filter((g) => (g.deployingWorkerCount ?? 0) > 0);
    expect(deploying.length).toBeGreaterThanOrEqual(1);
    f.churn({ join: 0, leave: 0, disconnect: 0, reconnect: 2, restart: 0, health: 0, configVersion: 0, deploy: 0 });
    expect(f.nodes().filter((n) => n.disconnected).length).toBe(0);
  });
});

describe('large fleets', () => {
  it('holds 100,000 nodes and renders a page without touching the rest', () => {
    const f = fleet(100_000);
    expect(f.size()).toBe(100_000);
    const page = f.renderPage('stream', 500, 100, Date.now());
    expect(page.count).toBe(100);
    expect(page.total).toBe(f.size('stream'));
    const items = JSON.parse(`[${page.items}]`);
    expect(items).toHaveLength(100);
    expectWorkerEntry(items[0], 'stream');
  });
});
