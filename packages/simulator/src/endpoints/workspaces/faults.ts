import { duration } from '../../core/schema-util.js';

/** The management plane's fault key (`faults.workspaceTransition`); core/faults.ts adds it to the faults. */
export interface WorkspaceFaults {
  /** Management plane: how long a new workspace is Provisioning, and a deleted one Deprovisioning. */
  workspaceTransition: number;
}

export const DEFAULT_WORKSPACE_FAULTS: Readonly<WorkspaceFaults> = Object.freeze({ workspaceTransition: 30_000 });

export const workspaceFaultsShape = { workspaceTransition: duration };
