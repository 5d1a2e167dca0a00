/** The groups' fault keys (`faults.groupWindows`, `faults.cleanLocalChanges`): local changes and stuck deploys. */
import * as z from 'zod';
import { scheduled } from '../../core/schedule.js';
import type { Schedule } from '../../core/schedule.js';

/** A group's git state and deploy in another state: `git.localChanges`, a stuck `deployingWorkerCount`. */
export interface GroupWindow extends Schedule {
  group: string;
  localChanges?: number;
  deploying?: number;
}

export interface GroupFaults {
  groupWindows: GroupWindow[];
  /** `git.localChanges` of a clean group: sent as 0, or left out. */
  cleanLocalChanges: 'zero' | 'omit';
}

export const groupFaultsShape = {
  groupWindows: z.array(
    scheduled({
      group: z.string().min(1),
      localChanges: z.number().int().nonnegative().optional(),
      deploying: z.number().int().nonnegative().optional(),
    }),
  ),
  cleanLocalChanges: z.enum(['zero', 'omit']),
};

export const DEFAULT_GROUP_FAULTS: Readonly<GroupFaults> = Object.freeze({
  groupWindows: [],
  cleanLocalChanges: 'zero',
});
