/**
 * Pure renderers from snapshot state to sample lines (no HELP/TYPE; those are per family, see
 * families.ts). A node is rendered once when its data changes, into one string per family
 * (kube-state-metrics style), so a scrape only concatenates.
 */

import type { GroupState, LeaderState, NodeState } from '../store/types.js';
import { escapeLabelValue, formatValue, labelText } from '../format/escape.js';
import { LEADER_FAMILIES, NODE_FAMILIES, NODE_FAMILY_INDEX, type NodeFamilyName } from './families.js';

/** One string per per-node family (NODE_FAMILIES order); empty where the node has no series. */
export type NodeTexts = readonly string[];

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Label names our families use themselves; a target label may not reuse them. */
export const RESERVED_LABELS: ReadonlySet<string> = new Set([
  'product', 'group', 'node_id', 'hostname', 'version', 'platform', 'arch', 'config_version', 'status',
  'os_name', 'os_version', 'cribl_mode', 'kube_namespace', 'kube_pod', 'reason', 'le', 'quantile',
]);

/** Throws one clear line when a target label name is invalid or clashes with a family's own label. */
export function validateTargetLabels(labels: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(labels)) {
    if (!LABEL_NAME.test(name) || name.startsWith('__')) {
      throw new Error(`target label name "${name}" is not a valid Prometheus label name`);
    }
    if (RESERVED_LABELS.has(name)) throw new Error(`target label "${name}" clashes with a label of the exported metrics`);
    if (typeof value !== 'string') throw new Error(`target label "${name}" must have a string value`);
  }
}

const HEALTH_STATES = [
  ['healthy', 'healthy'],
  ['shutting down', 'shutting_down'],
  ['standby', 'standby'],
] as const;

/** `"escaped value"` of anything the leader sent. */
function q(value: unknown): string {
  return `"${escapeLabelValue(labelText(value))}"`;
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** `{a="1",b="2"` (no closing brace): target labels first, then `rest`. */
function open(targetPairs: string, rest: string): string {
  if (!targetPairs) return `{${rest}`;
  return rest ? `{${targetPairs},${rest}` : `{${targetPairs}`;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

/** The pod name, whether the leader sends a string or an object with a `name`. */
function podName(pod: unknown): unknown {
  return typeof pod === 'string' ? pod : asRecord(pod)?.name;
}

/**
 * Renders one node's series, one string per per-node family. `targetPairs` are the leader's
 * target labels already rendered (`workspace="a"`), or empty.
 */
export function renderNode(state: NodeState, targetPairs: string): NodeTexts {
  const out = new Array<string>(NODE_FAMILIES.length).fill('');
  const base = open(targetPairs, `product=${q(state.product)},group=${q(state.group)},node_id=${q(state.nodeId)}`);
  const set = (name: NodeFamilyName, text: string): void => {
    out[NODE_FAMILY_INDEX[name]] = text;
  };
  const gauge = (name: NodeFamilyName, value: unknown, divisor = 1): void => {
    const n = finite(value);
    if (n !== undefined) set(name, `${name}${base}} ${formatValue(n / divisor)}\n`);
  };

  // Decoders check the shape, but the data is remote: read it defensively all the same.
  const w = asRecord(state.worker) ?? {};
  const info = asRecord(w.info) ?? {};
  const cribl = asRecord(info.cribl) ?? {};
  const config = asRecord(cribl.config) ?? {};
  const item = state.metadata?.item;

  set(
    'cribl_node_info',
    `cribl_node_info${base},hostname=${q(info.hostname)},version=${q(cribl.version)},` +
      `platform=${q(info.platform)},arch=${q(info.architecture)}} 1\n`,
  );
  gauge('cribl_node_connected', w.disconnected === true ? 0 : 1);
  if (typeof w.deployable === 'boolean') gauge('cribl_node_deployable', w.deployable ? 1 : 0);
  set('cribl_node_config_info', `cribl_node_config_info${base},config_version=${q(config.version ?? item?.cribl?.config_version)}} 1\n`);
  gauge('cribl_node_first_heartbeat_timestamp_seconds', w.firstMsgTime, 1000);
  gauge('cribl_node_last_heartbeat_timestamp_seconds', w.lastMsgTime, 1000);
  gauge('cribl_node_start_timestamp_seconds', cribl.startTime, 1000);
  gauge('cribl_node_worker_processes', w.workerProcesses);
  gauge('cribl_node_cpus', info.cpus);
  gauge('cribl_node_memory_bytes', info.totalmem);
  gauge('cribl_node_disk_free_bytes', info.freeDiskSpace);
  gauge('cribl_node_disk_total_bytes', info.totalDiskSpace);

  const health = state.health;
  if (health) {
    gauge('cribl_node_health_up', health.up ? 1 : 0);
    gauge('cribl_node_healthy', health.up && health.status === 'healthy' ? 1 : 0);
    // Without an answer there is no state to report: the failure family says why instead.
    if (health.up && health.status !== undefined) {
      let lines = '';
      for (const [answer, label] of HEALTH_STATES) {
        lines += `cribl_node_health_status${base},status="${label}"} ${health.status === answer ? 1 : 0}\n`;
      }
      set('cribl_node_health_status', lines);
    }
    gauge('cribl_node_health_last_success_timestamp_seconds', health.lastSuccessMs, 1000);
    if (!health.up && health.failure !== undefined) {
      set('cribl_node_poll_failure_info', `cribl_node_poll_failure_info${base},reason=${q(health.failure)}} 1\n`);
    }
  }

  if (item) {
    const os = asRecord(item.os) ?? {};
    const kube = asRecord(item.kube) ?? {};
    set(
      'cribl_node_metadata_info',
      `cribl_node_metadata_info${base},os_name=${q(os.os_name)},os_version=${q(os.os_version)},` +
        `cribl_mode=${q(asRecord(item.cribl)?.mode)},kube_namespace=${q(kube.namespace)},kube_pod=${q(podName(kube.pod))}} 1\n`,
    );
  }
  gauge('cribl_node_metadata_last_success_timestamp_seconds', state.metadata?.lastSuccessMs, 1000);
  return out;
}

/** Renders the leader families (LEADER_FAMILIES order); nothing before the first discovery result. */
export function renderLeader(leader: LeaderState | undefined, targetPairs: string): string[] {
  const out = LEADER_FAMILIES.map(() => '');
  if (!leader) return out;
  const labels = targetPairs ? `{${targetPairs}}` : '';
  out[0] = `cribl_leader_up${labels} ${leader.up ? 1 : 0}\n`;
  const last = finite(leader.lastDiscoveryMs);
  if (last !== undefined) out[1] = `cribl_leader_last_discovery_timestamp_seconds${labels} ${formatValue(last / 1000)}\n`;
  return out;
}

/** Renders the group families (GROUP_FAMILIES order), each group once. */
export function renderGroups(groups: readonly GroupState[], targetPairs: string): string[] {
  let info = '';
  let workers = '';
  let deploying = '';
  const seen = new Set<string>();
  for (const { product, group } of groups) {
    const key = `${product}\u0000${group.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const base = open(targetPairs, `product=${q(product)},group=${q(group.id)}`);
    info += `cribl_group_info${base},config_version=${q(group.configVersion)}} 1\n`;
    const count = finite(group.workerCount);
    if (count !== undefined) workers += `cribl_group_workers${base}} ${formatValue(count)}\n`;
    const busy = finite(group.deployingWorkerCount);
    if (busy !== undefined) deploying += `cribl_group_deploying_workers${base}} ${formatValue(busy)}\n`;
  }
  return [info, workers, deploying];
}
