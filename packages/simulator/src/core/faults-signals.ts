import { duration } from './schema-util.js';
import { DEFAULT_GROUP_FAULTS, groupFaultsShape } from '../endpoints/groups/faults.js';
import type { GroupFaults } from '../endpoints/groups/faults.js';
import { DEFAULT_LICENSE_FAULTS, licenseFaultsShape } from '../endpoints/licenses/faults.js';
import type { LicenseFaults } from '../endpoints/licenses/faults.js';
import { DEFAULT_MESSAGE_FAULTS, messageFaultsShape } from '../endpoints/messages/faults.js';
import type { MessageFaults } from '../endpoints/messages/faults.js';
import { DEFAULT_THROUGHPUT_FAULTS, throughputFaultsShape } from '../endpoints/metrics-query/faults.js';
import type { ThroughputFaults } from '../endpoints/metrics-query/faults.js';
import { DEFAULT_STATUS_FAULTS, statusFaultsShape } from '../endpoints/status/faults.js';
import type { StatusFaults } from '../endpoints/status/faults.js';
import { DEFAULT_VITALS_FAULTS, vitalsFaultsShape } from '../endpoints/system-info/faults.js';
import type { VitalsFaults } from '../endpoints/system-info/faults.js';

/**
 * The faults keys of the data-flow and leader signals (issue 39), gathered from their endpoints' folders:
 * destination/source status, local changes and stuck deploys, licences, the leader's disk and memory, bulletins,
 * the data in motion; and the fleet's `maxWorkerAge`. Each has settings and scheduled changes (core/schedule.ts).
 */

/** Schemas of the signal faults keys (merged into the faults grammar). */
export const signalFaultsShape = {
  ...statusFaultsShape,
  ...groupFaultsShape,
  ...licenseFaultsShape,
  ...vitalsFaultsShape,
  ...messageFaultsShape,
  ...throughputFaultsShape,
  /** The leader removes nodes disconnected for longer than this (a group's `maxWorkerAge`); null: never. */
  maxWorkerAge: duration.refine((ms) => ms > 0, { message: 'must be positive' }).nullable(),
};

/** The signal faults in force. */
export interface SignalFaults
  extends StatusFaults, GroupFaults, LicenseFaults, VitalsFaults, MessageFaults, ThroughputFaults {
  maxWorkerAge: number | null;
}

/** Defaults: every item Green, one prod licence on-prem, a leader disk 60 % free, no bulletins. */
export const DEFAULT_SIGNAL_FAULTS: Readonly<SignalFaults> = Object.freeze({
  ...DEFAULT_STATUS_FAULTS,
  ...DEFAULT_GROUP_FAULTS,
  ...DEFAULT_LICENSE_FAULTS,
  ...DEFAULT_VITALS_FAULTS,
  ...DEFAULT_MESSAGE_FAULTS,
  ...DEFAULT_THROUGHPUT_FAULTS,
  maxWorkerAge: null,
});
