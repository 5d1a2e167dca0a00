import { describe, expect, it } from 'vitest';
import { compactMetadata } from '../../src/collectors/compact.js';
import { nodeWithFacts } from '../../src/collectors/index.js';
import { node } from '../exposition/fixtures.js';

const item = (pod: string) => ({
  timestamp: 1717200000000,
  cribl: { mode: 'managed-edge', version: '4.15.1', config_version: 'abc', group: 'default_fleet' },
  os: { os_name: 'Ubuntu', os_version: '24.04' },
  kube: { namespace: 'edge', pod },
});

describe('compactMetadata', () => {
  it('keeps the same fields, sharing the parts nodes have in common', () => {
    const a = compactMetadata(item('pod-a'));
    const b = compactMetadata(item('pod-b'));
    expect(a).toEqual(item('pod-a'));
    expect(b.cribl).toBe(a.cribl);
    expect(b.os).toBe(a.os);
    expect(b.kube).toEqual({ namespace: 'edge', pod: 'pod-b' });
    const other = compactMetadata({ ...item('pod-c'), os: { os_name: 'Ubuntu', os_version: '22.04' } });
    expect(other.os).not.toBe(a.os);
  });

  it('leaves absent parts absent', () => {
    expect(compactMetadata({ timestamp: 1 })).toEqual({ timestamp: 1 });
  });
});

describe('nodeWithFacts', () => {
  it('stores a new metadata answer compact, and keeps a held one as it is', () => {
    const first = nodeWithFacts(undefined, node('a', { metadata: { item: item('p1'), lastSuccessMs: 1 } }), undefined);
    const other = nodeWithFacts(undefined, node('b', { metadata: { item: item('p2'), lastSuccessMs: 1 } }), undefined);
    expect(first.metadata?.item).toEqual(item('p1'));
    expect(other.metadata?.item?.os).toBe(first.metadata?.item?.os);
    // A failed poll carries the held item over: no new copy.
    const failed = { ...first, metadata: { item: first.metadata?.item, failure: 'timeout' as const } };
    expect(nodeWithFacts(first, failed, undefined)).toBe(failed);
  });
});
