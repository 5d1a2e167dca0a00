import { describe, expect, it } from 'vitest';
import { groupKey } from '../../src/collectors/collector.js';
import { LeaderSnapshot } from '../../src/store/snapshot.js';

const ident = (id: string, group = 'default') => ({ product: 'stream' as const, group, nodeId: id });

describe('LeaderSnapshot', () => {
  it('keeps each collector’s facts of a node under its name; a write replaces one collector’s only', () => {
    const s = new LeaderSnapshot();
    s.putNode('a', ident('a'), 'listing', { host: 'x' });
    s.setNodeFacts('a', 'node_health', { up: true });
    s.setNodeFacts('a', 'node_health', { up: false });
    expect(s.node('a')?.facts).toEqual({ listing: { host: 'x' }, node_health: { up: false } });
    s.putNode('a', ident('a'), 'listing', { host: 'y' });
    expect(s.node('a')?.facts).toEqual({ listing: { host: 'y' }, node_health: { up: false } });
  });

  it('a moment is the items as they were: writes after it make new items and leave it as it is', () => {
    const s = new LeaderSnapshot();
    s.putNode('a', ident('a'), 'listing', 1);
    const moment = s.moment();
    s.setNodeFacts('a', 'listing', 2);
    s.putNode('b', ident('b'), 'listing', 3);
    s.deleteNode('a');
    expect(moment.nodes.map((n) => [n.key, n.facts.listing])).toEqual([['a', 1]]);
    expect(s.moment().nodes.map((n) => [n.key, n.facts.listing])).toEqual([['b', 3]]);
  });

  it('keeps nodes in first-write order; a node that comes back after a delete goes last', () => {
    const s = new LeaderSnapshot();
    for (const k of ['a', 'b', 'c']) s.putNode(k, ident(k), 'listing', k);
    s.setNodeFacts('a', 'listing', 'again');
    expect([...s.nodeKeys()]).toEqual(['a', 'b', 'c']);
    s.deleteNode('a');
    s.putNode('a', ident('a'), 'listing', 'back');
    expect([...s.nodeKeys()]).toEqual(['b', 'c', 'a']);
  });

  it('replaces a node’s identity only when it changed (the listing moved it to another group)', () => {
    const s = new LeaderSnapshot();
    s.putNode('a', ident('a'), 'listing', 1);
    const first = s.node('a')?.ident;
    s.putNode('a', ident('a'), 'listing', 2);
    expect(s.node('a')?.ident).toBe(first);
    s.putNode('a', ident('a', 'other'), 'listing', 3);
    expect(s.node('a')?.ident).toEqual(ident('a', 'other'));
  });

  it('ignores facts for an unknown node', () => {
    const s = new LeaderSnapshot();
    s.setNodeFacts('nope', 'node_health', { up: true });
    expect(s.hasNode('nope')).toBe(false);
    expect(s.size).toBe(0);
  });

  it('a discovery’s groups keep the other collectors’ facts of the groups that stay', () => {
    const s = new LeaderSnapshot();
    s.setGroups('groups', [
      { product: 'stream', id: 'g1', facts: 'listed-1' },
      { product: 'edge', id: 'g1', facts: 'edge-1' },
    ]);
    s.setGroupFacts('packs', new Map([[groupKey('stream', 'g1'), 'packs-1']]));
    s.setGroups('groups', [
      { product: 'stream', id: 'g1', facts: 'listed-2' },
      { product: 'stream', id: 'g2', facts: 'listed-3' },
    ]);
    expect(s.group('stream', 'g1')?.facts).toEqual({ groups: 'listed-2', packs: 'packs-1' });
    expect(s.group('edge', 'g1')).toBeUndefined();
    expect(s.groups().map((g) => g.id)).toEqual(['g1', 'g2']);
  });

  // The keep rule: a group leaves only when an answered listing no longer has it.
  const KEEP: [string, { listed: string[]; unanswered: ('stream' | 'edge')[]; groups: string[] }][] = [
    ['every listing answered: the groups listed', { listed: ['stream/a'], unanswered: [], groups: ['stream/a'] }],
    [
      'a product unanswered: its groups kept, with their facts',
      { listed: ['stream/a'], unanswered: ['edge'], groups: ['stream/a', 'edge/f'] },
    ],
    [
      'a listing that failed on a later page: what it answered, and the rest kept',
      { listed: ['stream/b'], unanswered: ['stream'], groups: ['stream/b', 'stream/a'] },
    ],
    [
      'every listing unanswered: every group kept',
      { listed: [], unanswered: ['stream', 'edge'], groups: ['stream/a', 'stream/b', 'edge/f'] },
    ],
  ];
  it.each(KEEP)('a failed groups listing keeps the groups listed before: %s', (_, c) => {
    const s = new LeaderSnapshot();
    s.setGroups('groups', [
      { product: 'stream', id: 'a', facts: 'a-1' },
      { product: 'stream', id: 'b', facts: 'b-1' },
      { product: 'edge', id: 'f', facts: 'f-1' },
    ]);
    s.setGroupFacts('dataflow', new Map(s.groups().map((g) => [groupKey(g.product, g.id), `flow-${g.id}`])));
    const listed = c.listed.map((k) => {
      const [product, id] = k.split('/') as ['stream' | 'edge', string];
      return { product, id, facts: `${id}-2` };
    });
    s.setGroups('groups', listed, c.unanswered);
    expect(s.groups().map((g) => `${g.product}/${g.id}`)).toEqual(c.groups);
    for (const g of s.groups()) {
      const relisted = c.listed.includes(`${g.product}/${g.id}`);
      expect(g.facts).toEqual({ groups: `${g.id}-${relisted ? 2 : 1}`, dataflow: `flow-${g.id}` });
    }
  });

  it('writes the leader’s facts collector by collector', () => {
    const s = new LeaderSnapshot();
    s.setLeaderFacts('listing', { up: true });
    s.setLeaderFacts('git_settings', { remote: true });
    s.setLeaderFacts('listing', { up: false });
    expect(s.leader().facts).toEqual({ listing: { up: false }, git_settings: { remote: true } });
  });

  it('tells its listeners about every write, and renders the target labels once', () => {
    const s = new LeaderSnapshot({ workspace: 'a"b' });
    expect(s.targetPairs).toBe('workspace="a\\"b"');
    let heard = 0;
    const off = s.subscribe(() => heard++);
    s.putNode('a', ident('a'), 'listing', 1);
    s.setLeaderFacts('listing', 1);
    const generation = s.generation;
    off();
    s.setNodeFacts('a', 'listing', 2);
    expect(heard).toBe(2);
    expect(s.generation).toBe(generation + 1);
  });
});
