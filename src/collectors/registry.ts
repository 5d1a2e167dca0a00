/**
 * Every collector, one line each. The order is the order of their families in /metrics, scope by scope (management,
 * leader, group, node), and the order in which the per-discovery and interval collectors run. To add a collector:
 * a folder beside the others and a line here (docs/ARCHITECTURE.md, "How to add an endpoint").
 */
import type { Collector } from './collector.js';
import { dataflow } from './dataflow/index.js';
import { fleet } from './fleet/index.js';
import { gitSettings } from './git-settings/index.js';
import { groupVersion } from './group-version/index.js';
import { groups } from './groups/index.js';
import { leaderHealth } from './leader-health/index.js';
import { leaderHosts } from './leader-hosts/index.js';
import { leaderInfo } from './leader-info/index.js';
import { leaderMessages } from './leader-messages/index.js';
import { license } from './license/index.js';
import { listing } from './listing/index.js';
import { nodeHealth } from './node-health/index.js';
import { nodeMetadata } from './node-metadata/index.js';
import { packs } from './packs/index.js';
import { search } from './search/index.js';
import { throughput } from './throughput/index.js';
import { workspaces } from './workspaces/index.js';

export const COLLECTORS: readonly Collector[] = [
  workspaces,
  listing,
  leaderHosts,
  leaderHealth,
  gitSettings,
  search,
  leaderInfo,
  leaderMessages,
  license,
  groups,
  fleet,
  groupVersion,
  packs,
  dataflow,
  throughput,
  nodeHealth,
  nodeMetadata,
];
