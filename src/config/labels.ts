/**
 * Target labels (a leaders: entry's `labels:`) are added to every snapshot series of that leader, so their names
 * must be valid and must not clash with a label the exporter sets itself. The reserved names are derived from
 * the families (one owner: each collector's families, src/collectors/registry.ts, and src/telemetry/self-metrics.ts),
 * checked here, at parse time, so that a clash is a settings error (exit 2).
 */
import { COLLECTORS } from '../collectors/registry.js';
import { SELF_METRIC_LABELS } from '../telemetry/self-metrics.js';
import { ValueError } from '@cribl-exporter/api/errors';

const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * Every label name the leader, group and node families put on their series, and the scopes' own. The management
 * families carry no target labels, so their `workspace` stays free for the leaders of discovered workspaces.
 */
const familyLabels = (): string[] => [
  'product',
  'group',
  'node_id',
  ...COLLECTORS.flatMap((c) => [
    ...(c.families.leader ?? []),
    ...(c.families.group ?? []),
    ...(c.families.node ?? []),
  ]).flatMap((f) => f.labels),
];

/**
 * Labels a target label may not reuse: every label of the snapshot families; the self-metrics' own labels
 * except `leader` (the default target label of a leaders: entry is `leader: <name>`, and self-metrics never carry
 * target labels); and `le`/`quantile`, which Prometheus gives a meaning of their own.
 */
export const reservedLabels = (): ReadonlySet<string> =>
  new Set([...familyLabels(), ...[...SELF_METRIC_LABELS].filter((l) => l !== 'leader'), 'le', 'quantile']);

/** Checks a target label name: Prometheus syntax, not `__`-prefixed, not one the exporter sets itself. */
export function checkLabelName(name: string): void {
  if (!LABEL_NAME_RE.test(name) || name.startsWith('__')) {
    throw new ValueError(
      `${JSON.stringify(name)} is not a valid label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)`,
    );
  }
  if (reservedLabels().has(name)) throw new ValueError(`${JSON.stringify(name)} is a label the exporter sets itself`);
}
