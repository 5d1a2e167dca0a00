import { NODE_FAMILIES, NODE_FAMILY_INDEX, SNAPSHOT_RENDERERS } from '../../src/collectors/index.js';
import { describe, expect, it } from 'vitest';
import { NodeTextStore } from '../../src/exposition/node-texts.js';
import { createLeaderSnapshot, type LeaderSnapshot } from '../../src/store/snapshot.js';
import { node, worker } from '../exposition/fixtures.js';

/** Applies the snapshot's waiting batch to `store` (what the body builder does); returns the batch's keys. */
function drain(s: LeaderSnapshot, store: NodeTextStore): string[] {
  const batch = s.takeNodeBatch();
  if (batch) store.apply(batch);
  return batch?.keys ?? [];
}

describe('createLeaderSnapshot', () => {
  it('stores nodes and returns their state', () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    const n = node('w1');
    s.setNode('stream/w1', n);
    expect(s.getNode('stream/w1')).toBe(n);
    expect([...s.nodeKeys()]).toEqual(['stream/w1']);
    expect(s.size).toBe(1);
  });

  it('hands over only the node that was written', () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    const store = new NodeTextStore();
    s.setNode('a', node('a'));
    s.setNode('b', node('b'));
    expect(drain(s, store)).toEqual(['a', 'b']);
    const a = store.text('a');
    s.setNode('b', node('b', { health: { up: true, status: 'healthy', lastSuccessMs: 1 } }));
    expect(s.pendingNodeBytes).toBeGreaterThan(0);
    expect(drain(s, store)).toEqual(['b']);
    expect(s.pendingNodeBytes).toBe(0);
    expect(store.text('a')).toBe(a);
    expect(store.text('b')).toContain('cribl_node_health_up{product="stream",group="default",node_id="b"} 1\n');
    expect(s.takeNodeBatch()).toBeUndefined();
  });

  it('a batch splits each node into families', () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    s.setNode('a', node('a', { health: { up: true, status: 'healthy', lastSuccessMs: 1717200030123 } }));
    const batch = s.takeNodeBatch()!;
    expect(batch.offsets).toHaveLength(NODE_FAMILIES.length + 1);
    const family = (f: number) =>
      Buffer.from(batch.bytes.subarray(batch.offsets[f], batch.offsets[f + 1])).toString('utf8');
    expect(family(NODE_FAMILY_INDEX.cribl_node_health_up!)).toBe(
      'cribl_node_health_up{product="stream",group="default",node_id="a"} 1\n',
    );
    expect(family(NODE_FAMILY_INDEX.cribl_node_health_last_success_timestamp_seconds!)).toBe(
      'cribl_node_health_last_success_timestamp_seconds{product="stream",group="default",node_id="a"} 1717200030.123\n',
    );
    expect(family(NODE_FAMILY_INDEX.cribl_node_disk_free_bytes!)).toBe('');
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

  it('keeps the latest state and sends its text', () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    s.setNode('a', node('a'));
    s.takeNodeBatch();
    const again = node('a');
    s.setNode('a', again);
    expect(s.getNode('a')).toBe(again);
    expect(s.takeNodeBatch()?.keys).toEqual(['a']);
  });

  it('a deleted node vanishes from the texts', () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    const store = new NodeTextStore();
    s.setNode('a', node('a'));
    s.setNode('b', node('b'));
    drain(s, store);
    s.deleteNode('a');
    drain(s, store);
    expect([...store.keys()]).toEqual(['b']);
    expect(s.getNode('a')).toBeUndefined();
  });

  it('requeueNodes sends every node again, once (for a builder that lost them)', () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    s.setNode('a', node('a'));
    s.setNode('b', node('b'));
    s.takeNodeBatch();
    s.setNode('a', node('a', { health: { up: false, failure: 'timeout' } }));
    s.requeueNodes();
    const store = new NodeTextStore();
    expect(drain(s, store)).toEqual(['a', 'b']);
    expect(store.text('a')).toContain('reason="timeout"');
    expect(s.takeNodeBatch()).toBeUndefined();
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
});
