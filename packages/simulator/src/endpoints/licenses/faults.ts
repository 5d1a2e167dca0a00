/** The licences' fault key (`faults.license`): Cribl.Cloud refusals, the licences, their usage, scheduled changes. */
import * as z from 'zod';
import { duration } from '../../core/schema-util.js';
import { scheduled } from '../../core/schedule.js';
import type { Schedule } from '../../core/schedule.js';
import { LICENSE_CLASSES } from './shapes.js';
import type { LicenseClass } from './shapes.js';

/** One installed licence; what is not given is generated from the seed. */
export interface LicenseSpec {
  id?: string;
  cls?: LicenseClass;
  title?: string;
  /** GB per day. */
  quota?: number;
  /** `exp` is the simulator's start plus this (ms). */
  expiresIn?: number;
}

/** A licence expiring soon (`exp` = the moment the window began + `expiresIn`) and/or the last day's usage. */
export interface LicenseWindow extends Schedule {
  /** Id of the licence `expiresIn` applies to (default: the first). */
  license?: string;
  expiresIn?: number;
  /** Billed ingest of the last complete day as a share of the first licence's quota (1 = the quota). */
  usage?: number;
}

/** GET /system/licenses and /system/licenses/usage. */
export interface LicenseBehaviour {
  /** Cribl.Cloud: both routes answer 403 (or 404); false: an on-prem leader. */
  cloud: false | 403 | 404;
  licenses: LicenseSpec[];
  /** Order of the usage days. */
  order: 'oldest' | 'newest' | 'shuffled';
  /** Whether the current, partial day is listed (its `endTime` is in the future). */
  partialDay: boolean;
  /** Complete days listed (1–90). */
  days: number;
  /** Daily billed ingest as a share of the quota (each day varies by ±8 % of it). */
  usage: number;
  windows: LicenseWindow[];
}

export interface LicenseFaults {
  license: LicenseBehaviour;
}

const licenseSpec = z.strictObject({
  id: z.string().min(1).optional(),
  cls: z.enum(LICENSE_CLASSES).optional(),
  title: z.string().optional(),
  quota: z.number().nonnegative().optional(),
  expiresIn: duration.optional(),
});

export const licenseFaultsShape = {
  license: z.strictObject({
    cloud: z.union([z.literal(false), z.literal(403), z.literal(404)]).default(false),
    licenses: z.array(licenseSpec).default([{}]),
    order: z.enum(['oldest', 'newest', 'shuffled']).default('oldest'),
    partialDay: z.boolean().default(false),
    days: z.number().int().min(1).max(90).default(30),
    usage: z.number().nonnegative().max(10).default(0.6),
    windows: z
      .array(
        scheduled({
          license: z.string().min(1).optional(),
          expiresIn: duration.optional(),
          usage: z.number().nonnegative().max(10).optional(),
        }),
      )
      .default([]),
  }),
};

export const DEFAULT_LICENSE_FAULTS: Readonly<LicenseFaults> = Object.freeze({
  license: Object.freeze({
    cloud: false,
    licenses: [{}],
    order: 'oldest',
    partialDay: false,
    days: 30,
    usage: 0.6,
    windows: [],
  }),
});
