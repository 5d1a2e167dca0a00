import { describe, expect, it } from 'vitest';
import { detailFor, exported, levelOf, type NodeDetail, type NodeDetailSetting } from '../../src/collectors/detail.js';

describe('detailFor', () => {
  it.each<[NodeDetailSetting, number, NodeDetail]>([
    ['auto', 0, 'full'],
    ['auto', 25_000, 'full'],
    ['auto', 25_001, 'basic'],
    ['auto', 100_000, 'basic'],
    ['auto', 100_001, 'minimal'],
    ['auto', 250_000, 'minimal'],
    ['full', 250_000, 'full'],
    ['minimal', 3, 'minimal'],
    ['basic', 3, 'basic'],
  ])('%s at %i nodes is %s', (setting, nodes, level) => {
    expect(detailFor(setting, nodes)).toBe(level);
  });
});

describe('exported', () => {
  it.each<[NodeDetail, 'basic' | undefined, boolean]>([
    ['full', undefined, true],
    ['full', 'basic', true],
    ['basic', 'basic', true],
    ['basic', undefined, false],
    ['minimal', 'basic', false],
    ['minimal', undefined, false],
  ])('%s exports a family tagged %s: %s', (level, tag, yes) => {
    expect(exported(level, tag)).toBe(yes);
  });
});

describe('levelOf', () => {
  it('is full until a discovery decided', () => {
    expect(levelOf(undefined, 'edge')).toBe('full');
    expect(levelOf({ levels: { edge: 'minimal' }, nodes: { edge: 1 } }, 'edge')).toBe('minimal');
    expect(levelOf({ levels: { edge: 'minimal' }, nodes: { edge: 1 } }, 'stream')).toBe('full');
  });
});
