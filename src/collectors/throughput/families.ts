/**
 * The throughput families: per group (its totals, its destinations and sources, labelled as cribl_*_health so that
 * they join), and per Stream node (its node facts). Counters are what the windows summed since the
 * collector's first window; gauges are the last window's. A figure the leader never reported is absent, not 0.
 */
import { formatValue } from '../../format/escape.js';
import type { GroupFamily, GroupItem, NodeFamily, NodeItem } from '../collector.js';
import { each, line, q } from '../sample.js';
import { throughputFacts, throughputNodeFacts, type ConnectorFacts, type NodeFigures } from './facts.js';

const groupCounter = (name: string, alias: string, what: string): GroupFamily => ({
  name,
  type: 'counter',
  what,
  labels: [],
  sample: (g, base) => {
    const v = throughputFacts.of(g)?.totals?.[alias];
    return v === undefined ? '' : line(name, base, '', formatValue(v));
  },
});

type Kind = 'destination' | 'source';

const connectors = (g: GroupItem, kind: Kind): readonly ConnectorFacts[] => {
  const f = throughputFacts.of(g);
  return (kind === 'destination' ? f?.destinations : f?.sources) ?? [];
};

/** A family of one value per connector (`read` undefined: no series). */
function perConnector(
  kind: Kind,
  name: string,
  type: 'counter' | 'gauge',
  what: string,
  read: (c: ConnectorFacts) => number | undefined,
): GroupFamily {
  return {
    name,
    type,
    what,
    labels: [kind, 'type'],
    sample: (g, base) =>
      each(connectors(g, kind), (c) => {
        const v = c.cut ? undefined : read(c);
        return v === undefined ? '' : line(name, base, `${kind}=${q(c.id)},type=${q(c.type)}`, formatValue(v));
      }),
  };
}

const bit = (v: number | undefined): number | undefined => (v === undefined ? undefined : v > 0 ? 1 : 0);

const WINDOW = 'over each window';

export const GROUP_FAMILIES: readonly GroupFamily[] = [
  groupCounter(
    'cribl_group_received_events_total',
    'in_events',
    `Events the group's worker processes received (total.in_events), summed ${WINDOW}.`,
  ),
  groupCounter(
    'cribl_group_received_bytes_total',
    'in_bytes',
    `Bytes the group received (total.in_bytes), summed ${WINDOW}.`,
  ),
  groupCounter(
    'cribl_group_sent_events_total',
    'out_events',
    `Events the group sent to its destinations (total.out_events), summed ${WINDOW}.`,
  ),
  groupCounter(
    'cribl_group_sent_bytes_total',
    'out_bytes',
    `Bytes the group sent (total.out_bytes), summed ${WINDOW}.`,
  ),
  groupCounter(
    'cribl_group_dropped_events_total',
    'dropped_events',
    `Events the group dropped (total.dropped_events), summed ${WINDOW}.`,
  ),
  perConnector(
    'destination',
    'cribl_destination_sent_events_total',
    'counter',
    `Events the destination sent (total.out_events), summed ${WINDOW}; a transport suffix summed in.`,
    (c) => c.counters.out_events,
  ),
  perConnector(
    'destination',
    'cribl_destination_sent_bytes_total',
    'counter',
    `Bytes the destination sent (total.out_bytes), summed ${WINDOW}.`,
    (c) => c.counters.out_bytes,
  ),
  perConnector(
    'destination',
    'cribl_destination_dropped_events_total',
    'counter',
    `Events the destination dropped (total.dropped_events), summed ${WINDOW}.`,
    (c) => c.counters.dropped_events,
  ),
  perConnector(
    'destination',
    'cribl_destination_blocked',
    'gauge',
    '1 when any worker process reported the destination blocked in the last window (blocked.outputs, its ' +
      'largest value), 0 when none did; absent where the leader does not report it (Edge).',
    (c) => bit(c.gauges.blocked),
  ),
  perConnector(
    'destination',
    'cribl_destination_backpressure',
    'gauge',
    '1 when any worker process reported backpressure on the destination in the last window ' +
      '(backpressure.outputs, its largest value), 0 when none did.',
    (c) => bit(c.gauges.backpressure),
  ),
  perConnector(
    'destination',
    'cribl_destination_pq_queue_size_bytes',
    'gauge',
    "The largest size a worker process reported for the destination's persistent queue in the last window " +
      '(pq.queue_size, per worker process); absent without a queue.',
    (c) => c.gauges.pq_size,
  ),
  perConnector(
    'source',
    'cribl_source_received_events_total',
    'counter',
    `Events the source received (total.in_events), summed ${WINDOW}; a transport suffix (syslog:id:udp) summed in.`,
    (c) => c.counters.in_events,
  ),
  perConnector(
    'source',
    'cribl_source_received_bytes_total',
    'counter',
    `Bytes the source received (total.in_bytes), summed ${WINDOW}.`,
    (c) => c.counters.in_bytes,
  ),
  perConnector(
    'source',
    'cribl_source_pq_queue_size_bytes',
    'gauge',
    "The largest size a worker process reported for the source's persistent queue in the last window " +
      '(pq.queue_size, per worker process); absent without a queue.',
    (c) => c.gauges.pq_size,
  ),
];

const figures = (n: NodeItem): NodeFigures | undefined => throughputNodeFacts.of(n);

const EDGE = ' Stream worker nodes only: Edge nodes are not split per node in the store (no series for them).';

function perNode(
  name: string,
  type: 'counter' | 'gauge',
  what: string,
  read: (f: NodeFigures) => number | undefined,
): NodeFamily {
  return {
    name,
    type,
    what: what + EDGE,
    labels: [],
    sample: (n, base) => {
      const f = figures(n);
      const v = f && read(f);
      return v === undefined ? '' : line(name, base, '', formatValue(v));
    },
  };
}

export const NODE_FAMILIES: readonly NodeFamily[] = [
  perNode(
    'cribl_node_memory_free_bytes',
    'gauge',
    "The node's free memory (system.free_mem), the average of the last window.",
    (f) => f.gauges.free_mem,
  ),
  perNode(
    'cribl_node_load_average',
    'gauge',
    "The node's load average (system.load_avg), the average of the last window.",
    (f) => f.gauges.load_avg,
  ),
  perNode(
    'cribl_node_worker_process_heartbeat_lag_seconds',
    'gauge',
    "The largest heartbeat lag of the node's worker processes (system.max_worker_process_heartbeat_lag) in the " +
      'last window.',
    (f) => f.gauges.heartbeat_lag,
  ),
  perNode(
    'cribl_node_received_events_total',
    'counter',
    `Events the node received (total.in_events), summed ${WINDOW} (--throughput.per-node).`,
    (f) => f.counters.in_events,
  ),
  perNode(
    'cribl_node_received_bytes_total',
    'counter',
    `Bytes the node received (total.in_bytes), summed ${WINDOW} (--throughput.per-node).`,
    (f) => f.counters.in_bytes,
  ),
  perNode(
    'cribl_node_sent_events_total',
    'counter',
    `Events the node sent (total.out_events), summed ${WINDOW} (--throughput.per-node).`,
    (f) => f.counters.out_events,
  ),
  perNode(
    'cribl_node_sent_bytes_total',
    'counter',
    `Bytes the node sent (total.out_bytes), summed ${WINDOW} (--throughput.per-node).`,
    (f) => f.counters.out_bytes,
  ),
];
