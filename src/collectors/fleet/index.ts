/**
 * The fleet per group, at every node detail level (src/collectors/detail.ts): nodes by listing state, by last health
 * poll, by Cribl version and upgrade state, drifted and silent nodes, restarts. Counted at each discovery, after the
 * listing, from the nodes in the store: no request of its own. A dashboard or an alert on these reads the same at
 * `full`, `basic` and `minimal` (the level in force is cribl_exporter_node_detail, a self-metric: src/telemetry/).
 */
import { formatDuration } from '@cribl-exporter/api/duration';
import { PRODUCTS } from '@cribl-exporter/api/products';
import { collector, factsKey, type GroupFamily, type GroupItem } from '../collector.js';
import { HEARTBEAT_MS, SILENT_HEARTBEATS } from '../detail.js';
import { UPGRADE_STATES } from '../listing/index.js';
import { timeSlicer } from '../../util/yield.js';
import { each, gauge, line, q } from '../sample.js';
import { FLEET_HEALTH, FleetCounter, MAX_VERSIONS, NODE_STATES, OTHER_VERSION, type GroupFleet } from './aggregate.js';

export const NAME = 'fleet';

/** Longest stretch of counting between two yields to the event loop. */
const COUNT_SLICE_MS = 4;

export const groupFleet = factsKey<GroupFleet>(NAME);

/** One line per label value of a count by index (`counts[i]` for `values[i]`); none before the first count. */
function countsBy(
  name: string,
  label: string,
  values: readonly string[],
  counts: (f: GroupFleet) => readonly number[],
): (g: GroupItem, base: string) => string {
  return (g, base) => {
    const f = groupFleet.of(g);
    return f ? each(values, (v, i) => line(name, base, `${label}="${v}"`, counts(f)[i] ?? 0)) : '';
  };
}

/** A count with no label of its own; none before the first count. */
function countOf(name: string, read: (f: GroupFleet) => number): (g: GroupItem, base: string) => string {
  return (g, base) => {
    const f = groupFleet.of(g);
    return f ? gauge(name, base, read(f)) : '';
  };
}

/** "Edge 3m, Stream 3m": how old a heartbeat makes a node silent, per product. */
const silentAfter = PRODUCTS.map(
  (p) => `${p === 'edge' ? 'Edge' : 'Stream'} ${formatDuration(SILENT_HEARTBEATS * HEARTBEAT_MS[p])}`,
).join(', ');

const GROUP_FAMILIES: readonly GroupFamily[] = [
  {
    name: 'cribl_group_nodes',
    what: "Nodes of the group in the leader's listing, by state: connected or disconnected.",
    labels: ['state'],
    sample: countsBy('cribl_group_nodes', 'state', NODE_STATES, (f) => f.state),
  },
  {
    name: 'cribl_group_nodes_health',
    what:
      'Nodes of the group by their last health poll: the status answered (healthy, shutting_down, standby), ' +
      'unreachable when it failed, unknown while no poll of the node has ended.',
    labels: ['status'],
    sample: countsBy('cribl_group_nodes_health', 'status', FLEET_HEALTH, (f) => f.health),
  },
  {
    name: 'cribl_group_nodes_by_version',
    what:
      `Nodes of the group by the Cribl version the listing reports (empty when unreported; beyond ${MAX_VERSIONS} ` +
      `versions in a group, the others as "${OTHER_VERSION}").`,
    labels: ['version'],
    sample: (g, base) =>
      each(groupFleet.of(g)?.versions, ([v, n]) => line('cribl_group_nodes_by_version', base, `version=${q(v)}`, n)),
  },
  {
    name: 'cribl_group_nodes_config_outdated',
    what:
      "Nodes of the group whose config version differs from the group's deployed one (as " +
      'cribl_node_config_outdated: commit hashes compared by prefix; nodes with an unknown version not counted).',
    labels: [],
    sample: countOf('cribl_group_nodes_config_outdated', (f) => f.configOutdated),
  },
  {
    name: 'cribl_group_nodes_silent',
    what:
      `Connected nodes of the group whose last heartbeat to the leader is older than ${SILENT_HEARTBEATS} ` +
      `heartbeat periods of their product (${silentAfter}) at the discovery.`,
    labels: [],
    sample: countOf('cribl_group_nodes_silent', (f) => f.silent),
  },
  {
    name: 'cribl_group_node_restarts_total',
    type: 'counter',
    what:
      "Restarts seen across the group's nodes since the exporter started (changes of a node's start time between " +
      'listings), those of nodes that left the group included.',
    labels: [],
    sample: countOf('cribl_group_node_restarts_total', (f) => f.restarts),
  },
  {
    name: 'cribl_group_nodes_upgrade_status',
    what: 'Nodes of the group by the Edge upgrade state they report (active, current, failed, skipped).',
    labels: ['state'],
    sample: countsBy('cribl_group_nodes_upgrade_status', 'state', UPGRADE_STATES, (f) => f.upgrade),
  },
];

export const fleet = collector({
  name: NAME,
  freshness: (_s, intervals) =>
    `Counted at each discovery (every ${formatDuration(intervals.discoveryMs)}) from the leader's node listing ` +
    "and each node's last health poll; cached in between.",
  families: { group: GROUP_FAMILIES },
  schedule: {
    kind: 'discovery',
    cost: { perRun: 0 },
    run: async (ctx) => {
      const counter = new FleetCounter(ctx.groups(), ctx.clock.now());
      // About 0.5 µs a node: 250,000 nodes in one go held the event loop (and every scrape) for 120-140 ms.
      const slice = timeSlicer(COUNT_SLICE_MS);
      for (const n of ctx.nodes()) {
        const pause = slice();
        if (pause) await pause;
        counter.add(n);
      }
      if (!ctx.signal.aborted) ctx.setGroupFacts(counter.result());
    },
  },
});
