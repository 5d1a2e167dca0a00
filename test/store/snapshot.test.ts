import { SNAPSHOT_RENDERERS } from '../../src/collectors/index.js';
import { describe, expect, it } from 'vitest';
import { createLeaderSnapshot } from '../../src/store/snapshot.js';
import { unpackNodes } from '../../src/store/node-table.js';
import { compactWorker } from '../../src/collectors/listing.js';
import type { NodeState } from '../../src/collectors/state.js';
import { node, worker } from '../exposition/fixtures.js';

/** A state as the store keeps it: the listing entry's exported fields only (the decoder drops the rest). */
const kept = (n: NodeState): NodeState => ({ ...n, worker: compactWorker(n.worker) });

describe('createLeaderSnapshot', () => {
  it('stores nodes and returns their state', () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    const n = node('w1');
    s.setNode('stream/w1', n);
    expect(s.getNode('stream/w1')).toEqual(kept(n));
    expect(s.getNode('stream/w1')).not.toBe(s.getNode('stream/w1')); // made from the columns on each read
    expect([...s.nodeKeys()]).toEqual(['stream/w1']);
    expect(s.size).toBe(1);
  });

  it('keeps nodes in first-write order (the body order); a deleted node that comes back goes last', () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    for (const id of ['a', 'b', 'c']) s.setNode(id, node(id));
    s.setNode('a', node('a', { health: { up: false, failure: 'timeout' } }));
    expect([...s.nodes()].map((n) => n.nodeId)).toEqual(['a', 'b', 'c']);
    s.deleteNode('b');
    s.setNode('b', node('b'));
    expect([...s.nodes()].map((n) => n.nodeId)).toEqual(['a', 'c', 'b']);
  });

  it('a write replaces the state object: states read before (a build in progress) stay as they were', () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    s.setNode('a', node('a', { health: { up: true, status: 'healthy', lastSuccessMs: 1 } }));
    const held = [...s.nodes()];
    s.setNode('a', { ...s.getNode('a')!, health: { up: false, failure: 'timeout' } });
    expect(held[0]?.health).toEqual({ up: true, status: 'healthy', lastSuccessMs: 1 });
    expect(s.getNode('a')?.health).toEqual({ up: false, failure: 'timeout' });
  });

  it('renders the target labels once', () => {
    expect(createLeaderSnapshot({ labels: { workspace: 'a"b' }, render: SNAPSHOT_RENDERERS }).targetPairs).toBe(
      'workspace="a\\"b"',
    );
    expect(createLeaderSnapshot({ render: SNAPSHOT_RENDERERS }).targetPairs).toBe('');
  });

  it(
    'bumps the generation on every node write (polls and listings always bring a new timestamp) and real ' + 'deletion',
    () => {
      const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
      const notified: number[] = [];
      s.subscribe(() => notified.push(s.generation));
      s.setNode('a', node('a'));
      expect(s.generation).toBe(1);
      s.setNode('a', node('a', { worker: worker('a', { workerProcesses: 5 }) }));
      expect(s.generation).toBe(2);
      s.deleteNode('a');
      expect(s.generation).toBe(3);
      s.deleteNode('a'); // already gone
      expect(s.generation).toBe(3);
      expect(notified).toEqual([1, 2, 3]);
    },
  );

  it('keeps the latest state; a deleted node is gone', () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    s.setNode('a', node('a'));
    const again = node('a');
    s.setNode('a', again);
    expect(s.getNode('a')).toEqual(kept(again));
    s.deleteNode('a');
    expect(s.getNode('a')).toBeUndefined();
    expect([...s.nodes()]).toEqual([]);
  });

  it('renders groups and leader state with the target labels, bumping on change only', () => {
    const s = createLeaderSnapshot({ labels: { workspace: 'main' }, render: SNAPSHOT_RENDERERS });
    expect(s.leaderTexts().join('')).toBe('');
    s.setLeader({ up: true, lastDiscoveryMs: 1717200000000 });
    expect(s.leaderTexts()[0]).toBe('cribl_leader_up{workspace="main"} 1\n');
    const g = s.generation;
    s.setLeader({ up: true, lastDiscoveryMs: 1717200000000 });
    expect(s.generation).toBe(g);
    void s.setGroups([{ product: 'edge', group: { id: 'fleet', workerCount: 2 } }]);
    expect(s.generation).toBe(g + 1);
    expect(s.groupTexts()[1]).toBe('cribl_group_workers{workspace="main",product="edge",group="fleet"} 2\n');
  });

  it('unsubscribes', () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    let calls = 0;
    const off = s.subscribe(() => calls++);
    s.setNode('a', node('a'));
    off();
    s.deleteNode('a');
    expect(calls).toBe(1);
  });

  it('a view keeps the states of its start through writes, deletes and slot reuse until closed', () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    const healthy = { up: true, status: 'healthy' as const, lastSuccessMs: 1 };
    for (const id of ['a', 'b', 'c']) s.setNode(id, node(id, { health: healthy }));
    const view = s.nodeView();
    const later = s.nodeView();
    s.setNodeHealth('a', { up: false, failure: 'timeout', lastSuccessMs: 1 });
    s.deleteNode('b');
    s.setNode('d', node('d')); // takes b's slot
    s.setNode('c', node('c', { worker: worker('c', { workerProcesses: 9 }) }));
    later.close();
    const seen = view.slice(0, 10);
    expect(seen.map((n) => n.nodeId)).toEqual(['a', 'b', 'c']);
    expect(seen.map((n) => n.health)).toEqual([healthy, healthy, healthy]);
    expect(seen[2]?.worker.workerProcesses).toBe(4);
    expect(view.length).toBe(3);
    // Packed for the body worker (columns), the same states: saved ones included.
    const packed = view.pack(0, 10);
    expect(packed.transfer.length).toBe(3); // numbers, flags and string codes
    expect(unpackNodes(packed.data).slice(0, 10)).toEqual(seen);
    expect(unpackNodes(view.pack(1, 2).data).slice(0, 5)).toEqual([seen[1]]);
    view.close();
    expect(view.slice(0, 10)).toEqual([]); // a closed view no longer knows what it held
    expect(view.pack(0, 10).data.length).toBe(0);
    // Now: a's new health, b gone, d last.
    expect([...s.nodes()].map((n) => [n.nodeId, n.health?.up])).toEqual([
      ['a', false],
      ['c', undefined],
      ['d', undefined],
    ]);
    expect(
      s
        .nodeView()
        .slice(1, 2)
        .map((n) => n.nodeId),
    ).toEqual(['c']);
  });

  it('reads and writes health and metadata by key; an unknown key is left alone', () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    s.setNode('k', node('w9'));
    expect(s.nodeId('k')).toBe('w9');
    expect(s.hasNode('k')).toBe(true);
    expect(s.nodeHealth('k')).toBeUndefined();
    s.setNodeHealth('k', { up: true, status: 'standby', lastSuccessMs: 5, startTime: 4 });
    expect(s.nodeHealth('k')).toEqual({ up: true, status: 'standby', lastSuccessMs: 5, startTime: 4 });
    const item = { timestamp: 3, kube: { namespace: 'ns', pod: { name: 'p' } } };
    s.setNodeMetadata('k', { item, lastSuccessMs: 3 });
    expect(s.nodeMetadata('k')).toEqual({ item, lastSuccessMs: 3 });
    s.setNodeHealth('nope', { up: false });
    s.setNodeMetadata('nope', {});
    expect(s.hasNode('nope')).toBe(false);
    expect(s.nodeId('nope')).toBeUndefined();
    expect(s.size).toBe(1);
  });
});

describe('setListing: a listing written without reading the whole state', () => {
  const g = (id: string, configVersion?: string) => ({
    product: 'stream' as const,
    group: { id, ...(configVersion ? { configVersion } : {}) },
  });
  const healthy = { up: true, status: 'healthy' as const, lastSuccessMs: 5, startTime: 7 };
  const metadata = { lastSuccessMs: 9 };
  const w1 = worker('w1');
  const restarted = worker('w1', { info: { ...w1.info, cribl: { ...w1.info.cribl, startTime: 2 } } });
  const cases: { name: string; earlier?: NodeState; before?: NodeState; group: string; w: NodeState['worker'] }[] = [
    { name: 'a new node', group: 'default', w: worker('w1') },
    { name: 'the same listing', before: node('w1', { health: healthy, metadata }), group: 'default', w: worker('w1') },
    {
      name: 'a restart (another start time) counts one more',
      earlier: node('w1', { worker: restarted }),
      before: node('w1', { health: healthy }),
      group: 'default',
      w: restarted,
    },
    {
      name: 'a move to another group takes that group’s deployed version',
      before: node('w1', { metadata }),
      group: 'blue',
      w: worker('w1', { group: 'blue', lastMsgTime: 1 }),
    },
    {
      name: 'fields the listing no longer has are dropped',
      before: node('w1', { worker: worker('w1', { disconnected: true, deployable: false }) }),
      group: 'default',
      w: worker('w1'),
    },
  ];
  it.each(cases)('$name: the same state as setNode({ ...getNode(key), listing })', async (c) => {
    const { before, group, w } = c;
    const [a, b] = [0, 1].map(() => createLeaderSnapshot({ render: SNAPSHOT_RENDERERS }));
    for (const s of [a!, b!]) {
      await s.setGroups([g('default', 'v1'), g('blue', 'v2')]);
      if (c.earlier) s.setNode('k', c.earlier);
      if (before) s.setNode('k', before);
    }
    const was = a!.getNode('k');
    const view = a!.nodeView();
    a!.setListing('k', 'stream', group, w);
    const prev = b!.getNode('k');
    b!.setNode('k', prev ? { ...prev, group, worker: w } : { product: 'stream', group, nodeId: w.id, worker: w });
    expect(a!.getNode('k')).toEqual(b!.getNode('k'));
    // A build's view still sees the state of its start.
    if (was) expect(view.slice(0, 1)).toStrictEqual([was]);
    if (c.earlier) expect(a!.getNode('k')?.restarts).toBe(2);
    // The node belongs to its new group: a deploy there re-writes it, and only there.
    for (const s of [a!, b!]) await s.setGroups([g('default', 'v3'), g('blue', 'v4')]);
    expect(a!.getNode('k')?.deployedConfigVersion).toBe(group === 'blue' ? 'v4' : 'v3');
    expect(a!.getNode('k')).toEqual(b!.getNode('k'));
    view.close();
  });

  it('keeps health and metadata, and bumps the generation', () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    s.setNode('k', node('w1', { health: healthy, metadata }));
    const gen = s.generation;
    s.setListing('k', 'stream', 'default', worker('w1', { lastMsgTime: 42 }));
    expect(s.getNode('k')).toMatchObject({ health: healthy, metadata, worker: { lastMsgTime: 42 } });
    expect(s.generation).toBeGreaterThan(gen);
  });
});
