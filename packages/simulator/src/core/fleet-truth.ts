import type { Product } from '@cribl-exporter/api/products';
import type { Fleet } from './fleet-types.js';

/**
 * The simulator's truth about its fleet, per group and per product, as a leader's listing shows it at one moment:
 * what an exporter's per-group aggregates must add up to (issue 51). A pure function of the fleet and the time, so
 * a test computes it beside the exporter it checks (`sim.truth()`, `GET /_sim/truth`, or `fleetTruth(sim.fleet, t)`).
 */

/** Three Edge heartbeat periods of 60 s (Cribl's documented period): not heard from for longer is silent. */
export const SILENT_AFTER_MS = 3 * 60_000;

/** Node counts of one group, or of a whole product. */
export interface TruthCounts {
  nodes: number;
  /** Listed `disconnected: false`. */
  connected: number;
  /** Listed `disconnected: true`. */
  disconnected: number;
  /** Connected, and `lastMsgTime` more than `silentAfterMs` before `at`. */
  silent: number;
  /** `info.cribl.config.version` differs from the group's deployed `configVersion` (connected or not). */
  drifted: number;
  /** Edge nodes whose `nodeUpgradeStatus.state` is 2 (failed). */
  failedUpgrades: number;
  /** Nodes by `info.cribl.version`. */
  byVersion: Record<string, number>;
  /** Nodes by the listing's `status` (`healthy`, `unhealthy`, `standby`, `shutting down`, or one set by hand). */
  byStatus: Record<string, number>;
}

/** One group's counts. */
export interface GroupTruth extends TruthCounts {
  group: string;
  product: Product;
}

/** The truth at `at`: every group (those without nodes included) and each product's totals. */
export interface FleetTruth {
  /** Epoch ms the truth is for. */
  at: number;
  silentAfterMs: number;
  groups: GroupTruth[];
  products: Record<Product, TruthCounts>;
}

const empty = (): TruthCounts => ({
  nodes: 0,
  connected: 0,
  disconnected: 0,
  silent: 0,
  drifted: 0,
  failedUpgrades: 0,
  byVersion: {},
  byStatus: {},
});

/** Counts the fleet's nodes as its listing serves them at `at` (epoch ms). */
export function fleetTruth(fleet: Fleet, at: number, silentAfterMs: number = SILENT_AFTER_MS): FleetTruth {
  const groups = new Map<string, GroupTruth>();
  const deployed = new Map<string, string | undefined>();
  for (const product of ['stream', 'edge'] as const) {
    for (const g of fleet.groups(product)) {
      groups.set(g.id, { group: g.id, product, ...empty() });
      deployed.set(g.id, g.configVersion);
    }
  }
  const products: Record<Product, TruthCounts> = { stream: empty(), edge: empty() };
  for (const n of fleet.nodes()) {
    const g = groups.get(n.group);
    const disconnected = n.disconnected;
    const silent = !disconnected && at - n.lastMsgTime > silentAfterMs;
    const drifted = n.configVersion !== deployed.get(n.group);
    const failed = n.upgrade?.state === 2;
    for (const c of [g, products[n.product]]) {
      if (!c) continue;
      c.nodes++;
      if (disconnected) c.disconnected++;
      else c.connected++;
      if (silent) c.silent++;
      if (drifted) c.drifted++;
      if (failed) c.failedUpgrades++;
      c.byVersion[n.criblVersion] = (c.byVersion[n.criblVersion] ?? 0) + 1;
      c.byStatus[n.listingStatus] = (c.byStatus[n.listingStatus] ?? 0) + 1;
    }
  }
  return { at, silentAfterMs, groups: [...groups.values()], products };
}
