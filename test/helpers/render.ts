/** The collectors' families rendered for one item, as the body renders them (without HELP and TYPE). */
import type { GroupItem, NodeIdent, NodeItem, ScopeItem } from '../../src/collectors/collector.js';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { q } from '../../src/collectors/sample.js';
import { openLabels } from '../../src/format/family.js';

export const NODE_FAMILIES = COLLECTORS.flatMap((c) => c.families.node ?? []);
export const GROUP_FAMILIES = COLLECTORS.flatMap((c) => c.families.group ?? []);
export const LEADER_FAMILIES = COLLECTORS.flatMap((c) => c.families.leader ?? []);
export const MANAGEMENT_FAMILIES = COLLECTORS.flatMap((c) => c.families.management ?? []);

/** One string per node family (registry order). */
export function renderNode(n: NodeItem, targetPairs = '', group?: GroupItem): string[] {
  const { product, group: g, nodeId } = n.ident;
  const base = openLabels(targetPairs, `product=${q(product)},group=${q(g)},node_id=${q(nodeId)}`);
  return NODE_FAMILIES.map((f) => f.sample(n, base, { group }));
}

/** A node family's text of the texts renderNode gives. */
export function family(texts: readonly string[], name: string): string {
  const i = NODE_FAMILIES.findIndex((f) => f.name === name);
  if (i < 0) throw new Error(`no node family ${name}`);
  return texts[i] ?? '';
}

/** One string per group family, each group's samples in turn. */
export function renderGroups(groups: readonly GroupItem[], targetPairs = ''): string[] {
  return GROUP_FAMILIES.map((f) =>
    groups
      .map((g) => f.sample(g, openLabels(targetPairs, `product=${q(g.product)},group=${q(g.id)}`), undefined))
      .join(''),
  );
}

/** One string per leader family. */
export function renderLeader(leader: ScopeItem, targetPairs = ''): string[] {
  return LEADER_FAMILIES.map((f) => f.sample(leader, openLabels(targetPairs, ''), undefined));
}

/** A node item with the facts given, by collector name. */
export function nodeItem(facts: Record<string, unknown>, ident: Partial<NodeIdent> = {}): NodeItem {
  const full: NodeIdent = { product: 'stream', group: 'default', nodeId: 'w1', ...ident };
  return { key: full.nodeId, ident: full, facts };
}
