// The fleet collector's per-group counts (src/collectors/fleet/aggregate.ts): table tests of each rule, then one
// fleet counted whole.
import { describe, expect, it } from 'vitest';
import type { GroupItem, NodeItem } from '../../src/collectors/collector.js';
import { aggregate, fleetHealth, MAX_VERSIONS, OTHER_VERSION, silent } from '../../src/collectors/fleet/aggregate.js';
import { countRestartsGone, type ListedNode } from '../../src/collectors/listing/index.js';
import type { HealthFacts } from '../../src/collectors/node-health/index.js';

const NOW = Date.UTC(2026, 10, 1, 12, 0, 0);
const MIN = 60_000;
const DEPLOYED = 'abc1234';

function listed(over: Partial<ListedNode> = {}): ListedNode {
  return {
    id: 'n',
    group: 'g1',
    hostname: 'h',
    version: '4.19.0',
    platform: 'linux',
    arch: 'x64',
    distMode: 'managed-edge',
    configVersion: DEPLOYED,
    status: 'healthy',
    firstMsgTime: NOW - 60 * MIN,
    lastMsgTime: NOW - 5_000,
    startTime: NOW - 60 * MIN,
    workerProcesses: 1,
    cpus: 2,
    totalmem: 1,
    freeDiskSpace: undefined,
    totalDiskSpace: undefined,
    disconnected: false,
    deployable: undefined,
    upgradeState: undefined,
    upgradeTimestamp: undefined,
    restarts: 0,
    ...over,
  };
}

let seq = 0;
function node(
  l: Partial<ListedNode> = {},
  health?: HealthFacts,
  ident: { product?: 'edge' | 'stream'; group?: string } = {},
): NodeItem {
  const id = `n${seq++}`;
  const group = ident.group ?? l.group ?? 'g1';
  return {
    key: id,
    ident: { product: ident.product ?? 'edge', group, nodeId: id },
    facts: { listing: listed({ id, group, ...l }), ...(health ? { node_health: health } : {}) },
  };
}

const group = (id: string, facts: Record<string, unknown> = {}, product: 'edge' | 'stream' = 'edge'): GroupItem => ({
  product,
  id,
  facts: { groups: { id, configVersion: DEPLOYED }, ...facts },
});

describe('fleet health of a node (its last health poll)', () => {
  it.each<[string, HealthFacts | undefined, string]>([
    ['never polled', undefined, 'unknown'],
    ['answered healthy', { up: true, status: 'healthy', lastSuccessMs: NOW }, 'healthy'],
    ['answered shutting down', { up: true, status: 'shutting down', lastSuccessMs: NOW }, 'shutting_down'],
    ['answered standby', { up: true, status: 'standby', lastSuccessMs: NOW }, 'standby'],
    ['failed after an answer', { up: false, failure: 'timeout', lastSuccessMs: NOW - MIN }, 'unreachable'],
    ['failed, never answered', { up: false, failure: 'connect' }, 'unreachable'],
  ])('%s: %s', (_what, health, expected) => {
    expect(fleetHealth(node({}, health))).toBe(expected);
  });
});

describe('silent: connected, last heartbeat older than 3 periods (60 s each)', () => {
  it.each<[string, Partial<ListedNode>, boolean]>([
    ['heard 5 s ago', { lastMsgTime: NOW - 5_000 }, false],
    ['heard exactly 3 periods ago', { lastMsgTime: NOW - 3 * MIN }, false],
    ['heard 3 periods and 1 ms ago', { lastMsgTime: NOW - 3 * MIN - 1 }, true],
    ['heard an hour ago', { lastMsgTime: NOW - 60 * MIN }, true],
    ['disconnected, heard an hour ago', { lastMsgTime: NOW - 60 * MIN, disconnected: true }, false],
    ['connectedness unreported, heard an hour ago', { lastMsgTime: NOW - 60 * MIN, disconnected: undefined }, true],
  ])('%s: %s', (_what, l, expected) => {
    expect(silent(node(l), NOW)).toBe(expected);
  });
});

describe('aggregate', () => {
  it('counts each group of a mixed fleet', () => {
    const healthy: HealthFacts = { up: true, status: 'healthy', lastSuccessMs: NOW };
    const nodes = [
      node({ version: '4.19.0', restarts: 2 }, healthy),
      node({ version: '4.19.0', disconnected: true, lastMsgTime: NOW - 60 * MIN }, { up: false, failure: 'http_5xx' }),
      node({ version: '4.18.2', configVersion: 'def5678', upgradeState: 2 }, healthy),
      node({ version: undefined, lastMsgTime: NOW - 10 * MIN, upgradeState: 1 }),
      node({ configVersion: '1.0.3' }, { up: true, status: 'standby', lastSuccessMs: NOW }),
      node({}, healthy, { group: 'g2' }),
      // A group the groups listing does not have: not counted (its group is not exported).
      node({}, healthy, { group: 'gone' }),
    ];
    const counts = aggregate(
      nodes,
      [group('g1', { listing: { removed: 1, restartsGone: 3 } }), group('g2'), group('g3')],
      NOW,
    );
    expect([...counts.keys()]).toEqual(['edge\u0000g1', 'edge\u0000g2', 'edge\u0000g3']);
    expect(counts.get('edge\u0000g1')).toEqual({
      state: [4, 1],
      health: [2, 0, 1, 1, 1],
      versions: [
        ['', 1],
        ['4.18.2', 1],
        ['4.19.0', 3],
      ],
      // 'def5678' differs from the deployed commit; '1.0.3' is not a commit hash (not counted either way).
      configOutdated: 1,
      silent: 1,
      restarts: 5,
      upgrade: [0, 1, 1, 0],
    });
    expect(counts.get('edge\u0000g2')).toMatchObject({ state: [1, 0], health: [1, 0, 0, 0, 0], restarts: 0 });
    expect(counts.get('edge\u0000g3')).toEqual({
      state: [0, 0],
      health: [0, 0, 0, 0, 0],
      versions: [],
      configOutdated: 0,
      silent: 0,
      restarts: 0,
      upgrade: [0, 0, 0, 0],
    });
  });

  it(`counts at most ${MAX_VERSIONS} versions per group, the others as "${OTHER_VERSION}"`, () => {
    const nodes = Array.from({ length: MAX_VERSIONS + 5 }, (_, i) => node({ version: `4.${i}.0` }));
    const versions = aggregate(nodes, [group('g1')], NOW).get('edge\u0000g1')?.versions ?? [];
    expect(versions).toHaveLength(MAX_VERSIONS + 1);
    expect(versions.find(([v]) => v === OTHER_VERSION)).toEqual([OTHER_VERSION, 5]);
    expect(versions.reduce((n, [, c]) => n + c, 0)).toBe(MAX_VERSIONS + 5);
  });

  it('keeps a product apart from a group of the same id of the other product', () => {
    const nodes = [node({}, undefined, { product: 'stream', group: 'g1' }), node({}, undefined, { group: 'g1' })];
    const counts = aggregate(nodes, [group('g1', {}, 'stream'), group('g1')], NOW);
    expect(counts.get('stream\u0000g1')?.state).toEqual([1, 0]);
    expect(counts.get('edge\u0000g1')?.state).toEqual([1, 0]);
  });
});

describe('countRestartsGone: the restarts of the nodes a discovery no longer keeps in their group', () => {
  const kept = (entries: [string, string][]): Map<string, { listed: { group: string } }> =>
    new Map(entries.map(([key, group]) => [key, { listed: { group } }]));
  it.each<[string, number, [string, string][], Record<string, number>]>([
    ['kept in its group', 2, [['x', 'g1']], {}],
    ['gone from the listing (or to another shard)', 2, [], { 'edge\u0000g1': 2 }],
    ['moved to another group', 2, [['x', 'g2']], { 'edge\u0000g1': 2 }],
    ['gone, never restarted', 0, [], {}],
  ])('%s', (_what, restarts, after, expected) => {
    const n = { ...node({ restarts }), key: 'x' };
    const counts = new Map<string, number>([['edge\u0000g0', 1]]);
    countRestartsGone(counts, [n], kept(after));
    expect(Object.fromEntries(counts)).toEqual({ 'edge\u0000g0': 1, ...expected });
  });

  it('adds to what was counted before', () => {
    const counts = new Map([['edge\u0000g1', 3]]);
    countRestartsGone(counts, [node({ restarts: 2 }), node({ restarts: 1 })], new Map());
    expect(counts.get('edge\u0000g1')).toBe(6);
  });
});
