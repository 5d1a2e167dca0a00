/** The status's fault key (`faults.dataflow`): how the status routes answer, and the states scheduled on them. */
import * as z from 'zod';
import { scheduled } from '../../core/schedule.js';
import type { Schedule } from '../../core/schedule.js';

/** Worker processes in a state: a number, or `all` of the group's. */
export type ProcessCount = number | 'all';

/** Worker processes of an item (or of its persistent queue) that are not Green, and the error they report. */
export interface StateCounts {
  red?: ProcessCount;
  yellow?: ProcessCount;
  unknown?: ProcessCount;
  /** `status.error.message`; by default red processes report a connection (destination) or listen (source) error. */
  error?: string;
}

/** A destination or a source of a group in another state than Green (one of `destination`, `source`). */
export interface DataflowWindow extends Schedule, StateCounts {
  group: string;
  destination?: string;
  source?: string;
  /** The persistent queue's processes (the item must have one). */
  pq?: StateCounts;
}

/** How GET /m/{group}/system/status/{outputs,inputs} answers, and the changes scheduled on it. */
export interface DataflowBehaviour {
  /** `all`: every healthCounts key, zeros included (the spec's examples); `nonzero`: only non-zero keys. */
  healthCounts: 'all' | 'nonzero';
  /** Disabled items: left out (`omit`), or listed with health Unknown (`unknown`). */
  disabled: 'omit' | 'unknown';
  /** `worst`: the worst state with a non-zero count; `degraded`: Red only when every process is, else Yellow. */
  rollup: 'worst' | 'degraded';
  /** Items per group (the last destinations and sources) listed without `type`. */
  untyped: number;
  windows: DataflowWindow[];
}

export interface StatusFaults {
  dataflow: DataflowBehaviour;
}

const processCount = z.union([z.number().int().nonnegative(), z.literal('all')]);
const stateCounts = {
  red: processCount.optional(),
  yellow: processCount.optional(),
  unknown: processCount.optional(),
  error: z.string().min(1).optional(),
};

const dataflowWindow = scheduled({
  group: z.string().min(1),
  destination: z.string().min(1).optional(),
  source: z.string().min(1).optional(),
  ...stateCounts,
  pq: z.strictObject(stateCounts).optional(),
}).refine((w) => (w.destination === undefined) !== (w.source === undefined), {
  message: 'name exactly one of `destination` and `source`',
});

export const statusFaultsShape = {
  dataflow: z.strictObject({
    healthCounts: z.enum(['all', 'nonzero']).default('all'),
    disabled: z.enum(['omit', 'unknown']).default('omit'),
    rollup: z.enum(['worst', 'degraded']).default('worst'),
    untyped: z.number().int().nonnegative().default(0),
    windows: z.array(dataflowWindow).default([]),
  }),
};

export const DEFAULT_STATUS_FAULTS: Readonly<StatusFaults> = Object.freeze({
  dataflow: Object.freeze({
    healthCounts: 'all',
    disabled: 'omit',
    rollup: 'worst',
    untyped: 0,
    windows: [],
  }),
});
