/**
 * Data in motion, from the leader's metrics store (POST /system/metrics/query, docs/ARCHITECTURE.md step 4), every
 * --throughput.interval (`--[no-]collector.throughput`, on by default): events and bytes per group, destination and
 * source, drops, blocked destinations and backpressure, persistent queue sizes, and Stream nodes' memory, load and
 * heartbeat lag. Four queries a window whatever the fleet's size (one per scope, groups split in `splitBys`); three
 * while Stream's node detail level is not `full` (the node scope's families are full-level ones).
 *
 * query.ts: the queries and their decoder; windows.ts: contiguous windows, catch-up and delta-to-cumulative;
 * facts.ts: what is kept per group and the status page's view (view.ts); families.ts: the families.
 */
import { boolRow, durationRow, intervalRow } from '../../settings/table.js';
import { formatDuration } from '@cribl-exporter/api/duration';
import { MAX_SERIES, reportOverLimit } from '../dataflow/index.js';
import { detailFacts, exported, levelOf } from '../detail.js';
import { collector, groupKey, type GroupItem, type NodeItem, type RunContext } from '../collector.js';
import { GROUP_FAMILIES, NODE_FAMILIES } from './families.js';
import {
  capConnectors,
  connectorRows,
  EMPTY_FACTS,
  foldConnectors,
  foldNode,
  foldTotals,
  throughputFacts,
  throughputNodeFacts,
  viewOf,
  type ThroughputFacts,
  type ThroughputLeaderFacts,
} from './facts.js';
import { GROUP_QUERY, metricsQuery, queries, type QuerySpec, type Row, type ScopeName } from './query.js';
import { NAME } from './view.js';
import { planWindow, type Planned, type WindowSettings } from './windows.js';

export { NAME } from './view.js';

/** Seconds of the leader's metrics never queried: gaps longer than --throughput.max-catch-up. */
export const SKIPPED = 'cribl_exporter_throughput_skipped_seconds_total';

interface Settings extends WindowSettings {
  readonly perNode: boolean;
  readonly maxSeries: number;
}

/** The groups facts are kept for, by id (the store's `__worker_group`). */
function groupsById(groups: readonly GroupItem[]): Map<string, GroupItem> {
  const out = new Map<string, GroupItem>();
  for (const g of groups) if (!out.has(g.id)) out.set(g.id, g);
  return out;
}

/** Folds one scope's answer (but the node scope's: foldNodes) into every group's facts. */
function fold(
  facts: Map<string, ThroughputFacts>,
  groups: ReadonlyMap<string, GroupItem>,
  spec: QuerySpec,
  rows: readonly Row[],
  w: Planned,
): void {
  const factsOf = (g: GroupItem): ThroughputFacts => facts.get(groupKey(g.product, g.id)) ?? EMPTY_FACTS;
  const put = (g: GroupItem, f: ThroughputFacts) => facts.set(groupKey(g.product, g.id), f);
  if (spec.scope === 'group') {
    const byGroup = new Map(rows.map((r) => [r.keys[0] ?? '', r.values]));
    for (const g of groups.values()) {
      const f = factsOf(g);
      const values = byGroup.get(g.id);
      // A group the store has nothing of in this window keeps its counters flat (and no point of history).
      put(g, values ? { ...f, ...foldTotals(f, values, w) } : f);
    }
  } else if (spec.scope !== 'node') {
    const byGroup = connectorRows(rows, spec);
    const kind = spec.scope;
    for (const g of groups.values()) {
      const f = factsOf(g);
      const list = foldConnectors(g, kind === 'destination' ? f.destinations : f.sources, byGroup.get(g.id), kind, w);
      put(g, kind === 'destination' ? { ...f, destinations: list } : { ...f, sources: list });
    }
  }
}

/** Folds the node scope's answer into the Stream nodes' facts: `out` gets those that changed, by node key. */
function foldNodes(
  out: Map<string, unknown>,
  nodes: readonly NodeItem[],
  rows: readonly Row[],
  w: Planned,
  nowMs: number,
): void {
  const byGroup = new Map<string, Map<string, Readonly<Record<string, number>>>>();
  for (const r of rows) {
    const [group = '', node = ''] = r.keys;
    const m = byGroup.get(group) ?? new Map<string, Readonly<Record<string, number>>>();
    byGroup.set(group, m.set(node, r.values));
  }
  for (const n of nodes) {
    if (n.ident.product !== 'stream') continue;
    const prev = throughputNodeFacts.of(n);
    const next = foldNode(prev, byGroup.get(n.ident.group)?.get(n.ident.nodeId), w, nowMs);
    if (next !== prev) out.set(n.key, next);
  }
}

/**
 * Whether Stream's node detail level in force exports the node families (full-level ones, untagged). At `basic` and
 * `minimal` no node series of this collector is exported, so the node scope is not queried: its answer is a row per
 * Stream node each window (megabytes at tens of thousands of nodes), and its facts would be kept for nothing.
 */
const nodeScopeExported = (ctx: RunContext<Settings>): boolean =>
  exported(levelOf(detailFacts.of(ctx.leader()), 'stream'), undefined);

/**
 * Leaves the node scope: every Stream node's figures go, and its cursor, so that the scope primes again when the
 * level comes back to full (its counters count from 0 then, not the time it was off).
 */
function dropNodeScope(
  cursors: Partial<Record<ScopeName, number>>,
  nodes: readonly NodeItem[],
  out: Map<string, unknown>,
) {
  delete cursors.node;
  for (const n of nodes) if (throughputNodeFacts.of(n) !== undefined) out.set(n.key, undefined);
}

/** One window of every scope: each scope's query, its answer folded in; a failed one is tried at the next run. */
async function run(ctx: RunContext<Settings>): Promise<void> {
  const s = ctx.settings;
  const now = ctx.clock.now();
  const prev = (ctx.leaderFacts() as ThroughputLeaderFacts | undefined) ?? { cursors: {} };
  const cursors: Partial<Record<ScopeName, number>> = { ...prev.cursors };
  const withNodes = nodeScopeExported(ctx);
  const groups = groupsById(ctx.groups());
  const facts = new Map<string, ThroughputFacts>();
  for (const g of groups.values()) facts.set(groupKey(g.product, g.id), throughputFacts.of(g) ?? EMPTY_FACTS);
  const nodeFacts = new Map<string, unknown>();
  if (!withNodes) dropNodeScope(cursors, ctx.nodes(), nodeFacts);
  let skippedMs = 0;
  let decodeError: string | undefined;
  let answered = false;
  for (const spec of queries(s.perNode)) {
    if (spec.scope === 'node' && !withNodes) continue;
    const w = planWindow(cursors[spec.scope], now, s);
    if (!w) continue;
    const res = await ctx.client.request(metricsQuery(spec, w, ctx.deadline, ctx.signal));
    if (ctx.signal.aborted) return;
    if (!res.ok) {
      if (res.reason === 'decode') decodeError ??= res.message;
      continue;
    }
    answered = true;
    cursors[spec.scope] = w.latestMs;
    skippedMs = Math.max(skippedMs, w.skippedMs);
    if (spec.scope === 'node') foldNodes(nodeFacts, ctx.nodes(), res.body, w, now);
    else fold(facts, groups, spec, res.body, w);
  }
  if (decodeError !== undefined && decodeError !== prev.decodeError) {
    ctx.logger.warn(
      { collector: NAME, error: decodeError },
      'the leader’s metrics store answered in a shape this exporter does not read: those windows are not counted ' +
        '(cribl_exporter_collector_failures_total{reason="decode"}); tried again at the next run',
    );
  }
  if (!answered && decodeError === undefined) {
    // Nothing answered (an outage, a refusal): the facts stay as they were; a refusal clears them (collector-runs).
    ctx.setNodeFacts(nodeFacts);
    ctx.setLeaderFacts({ ...prev, cursors } satisfies ThroughputLeaderFacts);
    return;
  }
  // Counted from 0 at the first answered run (the series exists before any gap).
  ctx.count(SKIPPED, skippedMs / 1000);
  const capped = capConnectors(facts, s.maxSeries);
  reportOverLimit(ctx, s.maxSeries, capped.over, 'the throughput series of the destinations and sources seen last');
  const withViews = new Map<string, ThroughputFacts>();
  for (const [key, f] of capped.facts) withViews.set(key, { ...f, view: viewOf(f) });
  ctx.setGroupFacts(withViews);
  ctx.setNodeFacts(nodeFacts);
  ctx.setLeaderFacts({
    cursors,
    ...(decodeError === undefined ? {} : { decodeError }),
  } satisfies ThroughputLeaderFacts);
}

export const throughput = collector({
  name: NAME,
  settings: {
    enabled: boolRow(
      'collector.throughput',
      true,
      'Read events, bytes, drops, blocked destinations, queue sizes and Stream nodes’ memory, load and heartbeat ' +
        'lag from the leader’s metrics store every --throughput.interval (cribl_group_sent_events_total, …): four ' +
        'requests, whatever the number of groups (three while Stream’s node detail level is not full: no node ' +
        'figures).',
    ),
    intervalMs: intervalRow(
      'throughput.interval',
      '60s',
      'Collectors',
      'How often the metrics store is read; each read covers the time since the last one.',
    ),
    lagMs: durationRow(
      'throughput.lag',
      '30s',
      'Collectors',
      'How far behind now each window of the metrics store ends, so that late worker reports are in it.',
    ),
    maxCatchUpMs: durationRow(
      'throughput.max-catch-up',
      '10m',
      'Collectors',
      'After an outage, how far back the next read of the metrics store goes; a longer gap is skipped and ' +
        'counted in cribl_exporter_throughput_skipped_seconds_total.',
    ),
    perNode: boolRow(
      'throughput.per-node',
      false,
      'Also count events and bytes per Stream worker node (cribl_node_received_events_total, …), in the same ' +
        'query as the node resources: one series each per node.',
    ),
    maxSeries: MAX_SERIES,
  },
  check: (s, where) => {
    if (s.intervalMs < 1000) return `${where('throughput.interval')} must be at least 1s`;
    if (s.maxCatchUpMs < s.intervalMs) {
      return (
        `${where('throughput.max-catch-up')} (${formatDuration(s.maxCatchUpMs)}) must be at least ` +
        `${where('throughput.interval')} (${formatDuration(s.intervalMs)}): every window would be cut`
      );
    }
    return undefined;
  },
  enabled: (s) => s.enabled,
  optional: true,
  permission: 'read access to the leader’s metrics (a Read Only role on the leader)',
  gauges: [
    {
      name: SKIPPED,
      counter: true,
      help:
        'Seconds of the leader’s metrics store never read: gaps longer than --throughput.max-catch-up after an ' +
        'outage (the throughput counters miss what happened in them).',
    },
  ],
  freshness: (s) =>
    `Read from the leader's metrics store (POST /system/metrics/query) every ${formatDuration(s.intervalMs)}, ` +
    `each window ending ${formatDuration(s.lagMs)} before its read (--throughput.interval, --throughput.lag); ` +
    'cached in between.',
  families: { group: GROUP_FAMILIES, node: NODE_FAMILIES },
  schedule: {
    kind: 'interval',
    perGroup: true,
    cost: { perRun: 4, perGroup: 0 },
    intervalMs: (s) => s.intervalMs,
    run,
  },
  // A minute's totals an hour before the deadline: what is read does not matter, whether it may be read does.
  probe: (_s, _g, deadline) => {
    const latestMs = Math.floor(deadline / 60_000) * 60_000 - 3_600_000;
    return metricsQuery(GROUP_QUERY, { earliestMs: latestMs - 60_000, latestMs }, deadline);
  },
});
