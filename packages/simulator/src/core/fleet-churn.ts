import type { Random } from '@cribl-exporter/api/clock';
import type { ChurnFault } from './faults.js';
import type { NodeRec } from './fleet-model.js';
import { NODE_HEALTH_MODES, type NodeHealthMode } from './fleet-types.js';
import { pick } from './random.js';

/** What a churn step changes of the fleet (core/fleet.ts). */
export interface ChurnFleet {
  finishRollouts(): void;
  randomNode(ok: (r: NodeRec) => boolean): NodeRec | undefined;
  addNode(): unknown;
  removeNode(id: string): boolean;
  setDisconnected(id: string, disconnected: boolean): void;
  restart(id: string): void;
  setHealth(id: string, mode: NodeHealthMode): void;
  undeployedCommits(groupId: string): number | undefined;
  versionAt(groupId: string, index: number): string | undefined;
  setConfigVersion(id: string, version: string): void;
  groupIds(): string[];
  deployGroup(groupId: string, opts: { rollout: boolean }): string;
}

/**
 * One churn step: finish pending rollouts, then apply the given number of random changes. Draws from the fleet's
 * seeded stream in a fixed order, so a churning fleet repeats from its seed.
 */
export function churnStep(fleet: ChurnFleet, random: Random, counts: Omit<ChurnFault, 'every'>): void {
  fleet.finishRollouts();
  const each = (n: number, ok: (r: NodeRec) => boolean, apply: (r: NodeRec) => void): void => {
    for (let i = 0; i < n; i++) {
      const rec = fleet.randomNode(ok);
      if (rec) apply(rec);
    }
  };
  for (let i = 0; i < counts.join; i++) fleet.addNode();
  each(
    counts.leave,
    () => true,
    (r) => fleet.removeNode(r.id),
  );
  each(
    counts.disconnect,
    (r) => !r.disconnected,
    (r) => fleet.setDisconnected(r.id, true),
  );
  each(
    counts.reconnect,
    (r) => r.disconnected,
    (r) => fleet.setDisconnected(r.id, false),
  );
  each(
    counts.restart,
    () => true,
    (r) => fleet.restart(r.id),
  );
  each(
    counts.health,
    () => true,
    (r) => fleet.setHealth(r.id, r.health === 'healthy' ? pick(random, NODE_HEALTH_MODES.slice(1)) : 'healthy'),
  );
  // A node drifts to the commit before its group's deployed one, or comes back to the deployed one.
  each(
    counts.configVersion,
    () => true,
    (r) => {
      const at = fleet.undeployedCommits(r.group);
      if (at === undefined) return;
      const deployed = fleet.versionAt(r.group, at) ?? '0000000';
      const older = fleet.versionAt(r.group, at + 1);
      fleet.setConfigVersion(r.id, r.configVersion === deployed && older ? older : deployed);
    },
  );
  const groupIds = fleet.groupIds();
  for (let i = 0; i < counts.deploy && groupIds.length > 0; i++) {
    fleet.deployGroup(pick(random, groupIds), { rollout: false });
  }
}
