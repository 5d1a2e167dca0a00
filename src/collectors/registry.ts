/**
 * Every collector, one line each. The order is the order of their families in /metrics, scope by scope (management,
 * leader, group, node), and the order in which the per-discovery and interval collectors run. To add a collector:
 * a folder beside the others and a line here (docs/ARCHITECTURE.md, "How to add an endpoint"); a test adds one of
 * its own with `registerCollector`. Whatever iterates the collectors reads COLLECTORS when it runs, never a copy
 * made at import time, so that a collector registered later is everywhere the others are.
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

const LIST: Collector[] = [
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

/** Every collector: the list above, then those registered since, in the order registered. */
export const COLLECTORS: readonly Collector[] = LIST;

/**
 * The collectors of the list above, without those registered since: what a thread of its own that loads this module
 * (the body worker) has.
 */
export const LISTED: readonly Collector[] = [...LIST];

/**
 * Adds a collector after the others (its families last in each scope): one that exists only in a test, registered
 * before the exporter parses its settings or starts. A name already registered is an error (two owners of one
 * `collect[]` value and one key of facts).
 */
export function registerCollector<S>(c: Collector<S>): void {
  if (LIST.some((o) => o.name === c.name)) throw new Error(`a collector named ${c.name} is already registered`);
  LIST.push(c);
}
