/**
 * The metric families of the snapshot (leader, group and per-node), their order in the body and
 * their HELP text. Names are the contract in docs/ARCHITECTURE.md. HELP says where each value
 * comes from and how often it is refreshed, because every value is cached between polls.
 */

import { escapeHelp } from '../format/escape.js';
import { formatDuration } from '../util/duration.js';
import type { Format } from '../format/format.js';

/** How often each source of data is refreshed, for HELP text. */
export interface RefreshIntervals {
  discoveryMs: number;
  healthMs: number;
  metadataMs: number;
}

type Source = 'discovery' | 'listing' | 'health' | 'metadata';

interface FamilyDef {
  readonly name: string;
  readonly source: Source;
  readonly what: string;
}

/** Leader families, in body order. */
export const LEADER_FAMILIES = [
  { name: 'cribl_leader_up', source: 'discovery', what: '1 if the last discovery (node listing) succeeded, else 0.' },
  { name: 'cribl_leader_last_discovery_timestamp_seconds', source: 'discovery', what: 'Time of the last successful discovery.' },
] as const satisfies readonly FamilyDef[];

/** Group / fleet families, in body order. */
export const GROUP_FAMILIES = [
  {
    name: 'cribl_group_info',
    source: 'discovery',
    what: 'Config group or fleet (value 1) with the config version the leader deploys to it; empty when unreported.',
  },
  { name: 'cribl_group_workers', source: 'discovery', what: 'Nodes in the group, as the leader counts them.' },
  {
    name: 'cribl_group_deploying_workers',
    source: 'discovery',
    what: 'Nodes of the group receiving a config deployment, as the leader counts them.',
  },
] as const satisfies readonly FamilyDef[];

/** Per-node families, in body order; a node's rendered text is one string per entry. */
export const NODE_FAMILIES = [
  {
    name: 'cribl_node_info',
    source: 'listing',
    what: 'Node facts (value 1): hostname, Cribl version, platform and CPU architecture.',
  },
  { name: 'cribl_node_connected', source: 'listing', what: '0 when the leader reports the node disconnected, else 1.' },
  {
    name: 'cribl_node_deployable',
    source: 'listing',
    what: '1 when the node can receive config deployments; only where the leader reports it.',
  },
  {
    name: 'cribl_node_config_info',
    source: 'listing',
    what: 'Config bundle version the node runs (value 1; empty when unreported).',
  },
  { name: 'cribl_node_first_heartbeat_timestamp_seconds', source: 'listing', what: "Time of the node's first heartbeat to the leader." },
  { name: 'cribl_node_last_heartbeat_timestamp_seconds', source: 'listing', what: "Time of the node's latest heartbeat to the leader." },
  { name: 'cribl_node_start_timestamp_seconds', source: 'listing', what: 'Start time of Cribl on the node.' },
  { name: 'cribl_node_worker_processes', source: 'listing', what: 'Worker processes the node runs.' },
  { name: 'cribl_node_cpus', source: 'listing', what: 'CPUs of the node.' },
  { name: 'cribl_node_memory_bytes', source: 'listing', what: 'Total memory of the node.' },
  { name: 'cribl_node_disk_free_bytes', source: 'listing', what: 'Free disk space of the node; only where the leader reports disk.' },
  { name: 'cribl_node_disk_total_bytes', source: 'listing', what: 'Disk size of the node; only where the leader reports disk.' },
  {
    name: 'cribl_node_health_up',
    source: 'health',
    what: '1 if the last health poll of the node got an answer (HTTP 200 or 420), 0 if it failed; absent until the first poll.',
  },
  { name: 'cribl_node_healthy', source: 'health', what: '1 if the last health poll answered 200 healthy, else 0.' },
  {
    name: 'cribl_node_health_status',
    source: 'health',
    what:
      'Health state set: status is healthy, shutting_down or standby, the answered one 1 and the others 0; ' +
      'no series while the last poll got no answer (see cribl_node_poll_failure_info).',
  },
  { name: 'cribl_node_health_last_success_timestamp_seconds', source: 'health', what: 'Time of the last answered health poll.' },
  {
    name: 'cribl_node_metadata_info',
    source: 'metadata',
    what: 'Node metadata (value 1): OS name and version, Cribl mode, Kubernetes namespace and pod; empty values where absent.',
  },
  { name: 'cribl_node_metadata_last_success_timestamp_seconds', source: 'metadata', what: 'Time of the last answered metadata poll.' },
  {
    name: 'cribl_node_poll_failure_info',
    source: 'health',
    what:
      '1 while the last health poll of the node failed, with the reason ' +
      '(timeout, connect, http_4xx, http_5xx, throttled, decode, leader_unavailable).',
  },
] as const satisfies readonly FamilyDef[];

/** Name of a per-node family. */
export type NodeFamilyName = (typeof NODE_FAMILIES)[number]['name'];

/** Position of each per-node family in a node's rendered texts. */
export const NODE_FAMILY_INDEX: Readonly<Record<NodeFamilyName, number>> = Object.fromEntries(
  NODE_FAMILIES.map((f, i) => [f.name, i]),
) as Record<NodeFamilyName, number>;

function refreshSentence(source: Source, intervals: RefreshIntervals): string {
  switch (source) {
    case 'discovery':
      return `Refreshed by discovery every ${formatDuration(intervals.discoveryMs)}; cached in between.`;
    case 'listing':
      return `From the leader's node listing, refreshed every ${formatDuration(intervals.discoveryMs)}; cached in between.`;
    case 'health':
      return `Polled every ${formatDuration(intervals.healthMs)} through the leader; cached between polls.`;
    case 'metadata':
      return `Polled every ${formatDuration(intervals.metadataMs)} through the leader; cached between polls.`;
  }
}

/** HELP text of a family, including how often it is refreshed. */
export function helpText(family: FamilyDef, intervals: RefreshIntervals): string {
  return `${family.what} ${refreshSentence(family.source, intervals)}`;
}

/** `# HELP` and `# TYPE` lines of a gauge family in the given format. */
export function gaugeHeader(name: string, help: string, format: Format): string {
  return `# HELP ${name} ${escapeHelp(help, format)}\n# TYPE ${name} gauge\n`;
}
