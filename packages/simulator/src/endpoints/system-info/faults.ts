/** The system info's fault key (`faults.vitals`): the leader's disk and memory, and scheduled changes. */
import * as z from 'zod';
import { share, size } from '../../core/schema-util.js';
import { scheduled } from '../../core/schedule.js';
import type { Schedule } from '../../core/schedule.js';

/** The leader's disk and memory as shares free, for a while. */
export interface VitalsWindow extends Schedule {
  diskFree?: number;
  memoryFree?: number;
}

/** GET /system/info: the leader's disk and memory. */
export interface Vitals {
  diskTotal: number;
  /** Share of the disk available. */
  diskFree: number;
  memoryTotal: number;
  memoryFree: number;
  windows: VitalsWindow[];
}

export interface VitalsFaults {
  vitals: Vitals;
}

export const vitalsFaultsShape = {
  vitals: z.strictObject({
    diskTotal: size.default(100 * 1024 ** 3),
    diskFree: share.default(0.6),
    memoryTotal: size.default(16 * 1024 ** 3),
    memoryFree: share.default(0.4),
    windows: z.array(scheduled({ diskFree: share.optional(), memoryFree: share.optional() })).default([]),
  }),
};

export const DEFAULT_VITALS_FAULTS: Readonly<VitalsFaults> = Object.freeze({
  vitals: Object.freeze({
    diskTotal: 100 * 1024 ** 3,
    diskFree: 0.6,
    memoryTotal: 16 * 1024 ** 3,
    memoryFree: 0.4,
    windows: [],
  }),
});
