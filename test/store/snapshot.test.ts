import { describe, expect, it } from 'vitest';
import { NODE_FAMILY_INDEX } from '../../src/exposition/families.js';
import { familyText } from '../../src/exposition/render.js';
import { createLeaderSnapshot } from '../../src/store/snapshot.js';
import { node, worker } from '../exposition/fixtures.js';

describe('createLeaderSnapshot', () => {
  it('stores nodes and returns their state', () => {
    const s = createLeaderSnapshot();
    const n = node('w1');
    s.setNode('stream/w1', n);
    expect(s.getNode('stream/w1')).toBe(n);
    expect([...s.nodeKeys()]).toEqual(['stream/w1']);
    expect(s.size).toBe(1);
  });

  it('re-renders only the node that was written', () => {
    const s = createLeaderSnapshot();
    s.setNode('a', node('a'));
    s.setNode('b', node('b'));
    const [a1] = s.renderedNodes();
    const aBytes = Buffer.from(a1!.bytes);
    s.setNode('b', node('b', { health: { up: true, status: 'healthy', lastSuccessMs: 1 } }));
    const [a2, b2] = s.renderedNodes();
    expect(a2).toBe(a1);
    expect(a2!.bytes.equals(aBytes)).toBe(true); // a was not touched
    expect(familyText(b2!, NODE_FAMILY_INDEX.cribl_node_health_up)).toBe(
      'cribl_node_health_up{product="stream",group="default",node_id="b"} 1\n',
    );
  });

  it('re-renders in place when the new text fits, and allocates when it does not', () => {
    const s = createLeaderSnapshot();
    s.setNode('a', node('a', { health: { up: true, status: 'healthy', lastSuccessMs: 1717200000000 } }));
    const [first] = s.renderedNodes();
    const memory = first!.bytes;
    s.setNode('a', node('a', { health: { up: true, status: 'healthy', lastSuccessMs: 1717200030123 } }));
    const [second] = s.renderedNodes();
    expect(second!.bytes).toBe(memory);
    expect(familyText(second!)).toContain('cribl_node_health_last_success_timestamp_seconds{product="stream",group="default",node_id="a"} 1717200030.123\n');
    const w = worker('a');
    w.info.hostname = 'h'.repeat(10_000);
    s.setNode('a', node('a', { worker: w }));
    const [third] = s.renderedNodes();
    expect(third!.bytes).not.toBe(memory);
    expect(familyText(third!)).toContain('h'.repeat(10_000));
    expect(familyText(third!)).not.toContain('health');
  });

  it('bumps the generation only when the rendered text changes', () => {
    const s = createLeaderSnapshot();
    const notified: number[] = [];
    s.subscribe(() => notified.push(s.generation));
    s.setNode('a', node('a'));
    expect(s.generation).toBe(1);
    s.setNode('a', node('a')); // same data, new object
    expect(s.generation).toBe(1);
    s.setNode('a', node('a', { worker: worker('a', { workerProcesses: 5 }) }));
    expect(s.generation).toBe(2);
    s.deleteNode('a');
    expect(s.generation).toBe(3);
    s.deleteNode('a'); // already gone
    expect(s.generation).toBe(3);
    expect(notified).toEqual([1, 2, 3]);
  });

  it('keeps the latest state even when the text is unchanged', () => {
    const s = createLeaderSnapshot();
    s.setNode('a', node('a'));
    const [before] = s.renderedNodes();
    const again = node('a');
    s.setNode('a', again);
    expect(s.getNode('a')).toBe(again);
    expect(s.renderedNodes()[0]).toBe(before);
  });

  it('a deleted node vanishes from the texts', () => {
    const s = createLeaderSnapshot();
    s.setNode('a', node('a'));
    s.setNode('b', node('b'));
    s.deleteNode('a');
    const all = s.renderedNodes().map((n) => familyText(n)).join('');
    expect(all).not.toContain('node_id="a"');
    expect(all).toContain('node_id="b"');
    expect(s.getNode('a')).toBeUndefined();
  });

  it('renders groups and leader state with the target labels, bumping on change only', () => {
    const s = createLeaderSnapshot({ labels: { workspace: 'main' } });
    expect(s.leaderTexts()).toEqual(['', '']);
    s.setLeader({ up: true, lastDiscoveryMs: 1717200000000 });
    expect(s.leaderTexts()[0]).toBe('cribl_leader_up{workspace="main"} 1\n');
    const g = s.generation;
    s.setLeader({ up: true, lastDiscoveryMs: 1717200000000 });
    expect(s.generation).toBe(g);
    s.setGroups([{ product: 'edge', group: { id: 'fleet', workerCount: 2 } }]);
    expect(s.generation).toBe(g + 1);
    expect(s.groupTexts()[1]).toBe('cribl_group_workers{workspace="main",product="edge",group="fleet"} 2\n');
    expect(s.groups()).toHaveLength(1);
    expect(s.leader()).toEqual({ up: true, lastDiscoveryMs: 1717200000000 });
  });

  it('unsubscribes', () => {
    const s = createLeaderSnapshot();
    let calls = 0;
    const off = s.subscribe(() => calls++);
    s.setNode('a', node('a'));
    off();
    s.deleteNode('a');
    expect(calls).toBe(1);
  });

  it('rejects invalid target labels with one line naming the label', () => {
    expect(() => createLeaderSnapshot({ labels: { 'work-space': 'x' } })).toThrow('target label name "work-space"');
    expect(() => createLeaderSnapshot({ labels: { group: 'x' } })).toThrow('target label "group" clashes');
  });
});
