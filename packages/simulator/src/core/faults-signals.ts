import * as z from 'zod';
import { MESSAGE_SEVERITIES } from '@cribl-exporter/api/shapes';
import { LICENSE_CLASSES } from '../endpoints/licenses/shapes.js';
import type { MessageSeverity } from '@cribl-exporter/api/shapes';
import type { LicenseClass } from '../endpoints/licenses/shapes.js';
import { duration, share, size } from './schema-util.js';

/**
 * The faults keys of the data-flow and leader signals (issue 39): destination/source status, local changes and stuck
 * deploys, licences, the leader's disk and memory, bulletins. Each has settings and scheduled changes: an entry is
 * in force from `start` (ms since the simulator started; when omitted, from the moment it was set) until `end` (or
 * `start + duration`; when both are omitted, until it is cleared), repeating every `every` when given.
 */

/** When a scheduled change is in force (ms since the simulator started). */
export interface Schedule {
  start: number;
  end?: number;
  every?: number;
}

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

/** A group's git state and deploy in another state: `git.localChanges`, a stuck `deployingWorkerCount`. */
export interface GroupWindow extends Schedule {
  group: string;
  localChanges?: number;
  deploying?: number;
}

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

/** A bulletin (GET /system/messages) listed while in force; its `time` is when its window began. */
export interface MessageSpec extends Schedule {
  id?: string;
  severity?: MessageSeverity;
  title?: string;
  text: string;
  group?: string;
}

/**
 * A change of the data in motion (POST /system/metrics/query), for a while: one of `destination`, `source` (with
 * `group`) or `node`. A destination's `eps` is the rate offered to it (default: its share of the group's sources),
 * a source's the rate it receives (0: silent); a blocked destination queues (with a persistent queue) or drops.
 */
export interface ThroughputWindow extends Schedule {
  group?: string;
  destination?: string;
  source?: string;
  node?: string;
  /** Instead of `node`: the first this many connected worker nodes of `group` (listing order). */
  nodes?: number;
  /** Events per second. */
  eps?: number;
  blocked?: boolean;
  backpressure?: boolean;
  /** The node's largest worker-process heartbeat lag (ms). */
  heartbeatLag?: number;
  /** The node's free memory as a share of its memory. */
  freeMemory?: number;
  load?: number;
}

/** The metrics store's flow model: the changes scheduled on it. */
export interface ThroughputBehaviour {
  windows: ThroughputWindow[];
  /** While one is in force, POST /system/metrics/query answers 500 (the store down, the rest of the leader up). */
  outages: Schedule[];
}

/** True while `t` (ms since start) falls inside the schedule. */
export function activeAt(s: Schedule, t: number): boolean {
  if (t < s.start) return false;
  if (s.end === undefined) return true;
  if (s.every === undefined) return t < s.end;
  return (t - s.start) % s.every < s.end - s.start;
}

/** When the schedule's current occurrence began (ms since start); call while it is active. */
export function begunAt(s: Schedule, t: number): number {
  if (s.every === undefined) return s.start;
  return s.start + Math.floor((t - s.start) / s.every) * s.every;
}

const scheduleShape = {
  start: duration.optional(),
  end: duration.optional(),
  duration: duration.optional(),
  every: duration.optional(),
};

/**
 * Adds the schedule keys to an entry and checks them. Without `start`, the entry keeps a relative `duration` until
 * it is stamped with the time it is set (stampSchedules).
 */
function scheduled<S extends z.ZodRawShape>(shape: S) {
  type Out = z.output<z.ZodObject<S>> & { start?: number; end?: number; every?: number };
  type Raw = Record<string, unknown> & { start?: number; end?: number; duration?: number; every?: number };
  return z.strictObject({ ...shape, ...scheduleShape }).transform((raw, ctx): Out => {
    const { start, end, duration: length, every, ...rest } = raw as unknown as Raw;
    const from = start ?? 0;
    const until = end ?? (length === undefined ? undefined : from + length);
    if (until !== undefined && until <= from) {
      ctx.addIssue({ code: 'custom', message: 'needs `end` after `start`, or a positive `duration`' });
      return z.NEVER;
    }
    if (every !== undefined && (until === undefined || every < until - from)) {
      ctx.addIssue({ code: 'custom', message: '`every` needs an `end` or `duration`, and at least the window length' });
      return z.NEVER;
    }
    const out: Raw = { ...rest };
    if (start !== undefined) out.start = start;
    // Without a start, a duration counts from the moment the entry is stamped (stampSchedules).
    if (start === undefined && end === undefined && length !== undefined) out.duration = length;
    else if (until !== undefined) out.end = until;
    if (every !== undefined) out.every = every;
    return out as Out;
  });
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

/** A throughput window as given: durations as ms or strings such as "5m". */
export type ThroughputWindowInput = z.input<typeof throughputWindow>;

/** One throughput window (also the body of the admin calls, which take `group` from the path). */
export const throughputWindow = scheduled({
  group: z.string().min(1).optional(),
  destination: z.string().min(1).optional(),
  source: z.string().min(1).optional(),
  node: z.string().min(1).optional(),
  nodes: z.number().int().positive().optional(),
  eps: z.number().nonnegative().max(10_000_000).optional(),
  blocked: z.boolean().optional(),
  backpressure: z.boolean().optional(),
  heartbeatLag: duration.optional(),
  freeMemory: share.optional(),
  load: z.number().nonnegative().optional(),
})
  .refine((w) => [w.destination, w.source, w.node, w.nodes].filter((x) => x !== undefined).length === 1, {
    message: 'name exactly one of `destination`, `source`, `node` and `nodes`',
  })
  .refine((w) => w.node !== undefined || w.group !== undefined, {
    message: 'a destination, source or `nodes` needs `group`',
  })
  .refine((w) => w.destination !== undefined || (w.blocked === undefined && w.backpressure === undefined), {
    message: '`blocked` and `backpressure` are for a destination',
  })
  .refine(
    (w) =>
      w.node !== undefined ||
      w.nodes !== undefined ||
      (w.heartbeatLag === undefined && w.freeMemory === undefined && w.load === undefined),
    { message: '`heartbeatLag`, `freeMemory` and `load` are for a node' },
  )
  .refine((w) => (w.node === undefined && w.nodes === undefined) || w.eps === undefined, {
    message: '`eps` is for a destination or source',
  });

const licenseSpec = z.strictObject({
  id: z.string().min(1).optional(),
  cls: z.enum(LICENSE_CLASSES).optional(),
  title: z.string().optional(),
  quota: z.number().nonnegative().optional(),
  expiresIn: duration.optional(),
});

/** Schemas of the faults keys of this file (merged into the faults grammar). */
export const signalFaultsShape = {
  dataflow: z.strictObject({
    healthCounts: z.enum(['all', 'nonzero']).default('all'),
    disabled: z.enum(['omit', 'unknown']).default('omit'),
    rollup: z.enum(['worst', 'degraded']).default('worst'),
    untyped: z.number().int().nonnegative().default(0),
    windows: z.array(dataflowWindow).default([]),
  }),
  groupWindows: z.array(
    scheduled({
      group: z.string().min(1),
      localChanges: z.number().int().nonnegative().optional(),
      deploying: z.number().int().nonnegative().optional(),
    }),
  ),
  cleanLocalChanges: z.enum(['zero', 'omit']),
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
  vitals: z.strictObject({
    diskTotal: size.default(100 * 1024 ** 3),
    diskFree: share.default(0.6),
    memoryTotal: size.default(16 * 1024 ** 3),
    memoryFree: share.default(0.4),
    windows: z.array(scheduled({ diskFree: share.optional(), memoryFree: share.optional() })).default([]),
  }),
  messages: z.array(
    scheduled({
      id: z.string().min(1).optional(),
      severity: z.enum(MESSAGE_SEVERITIES).optional(),
      title: z.string().optional(),
      text: z.string().min(1),
      group: z.string().optional(),
    }),
  ),
  throughput: z.strictObject({
    windows: z.array(throughputWindow).default([]),
    outages: z.array(scheduled({})).default([]),
  }),
  /** The leader removes nodes disconnected for longer than this (a group's `maxWorkerAge`); null: never. */
  maxWorkerAge: duration.refine((ms) => ms > 0, { message: 'must be positive' }).nullable(),
};

/** The signal faults in force (see the interfaces above). */
export interface SignalFaults {
  dataflow: DataflowBehaviour;
  groupWindows: GroupWindow[];
  /** `git.localChanges` of a clean group: sent as 0, or left out. */
  cleanLocalChanges: 'zero' | 'omit';
  license: LicenseBehaviour;
  vitals: Vitals;
  messages: MessageSpec[];
  throughput: ThroughputBehaviour;
  maxWorkerAge: number | null;
}

/** Defaults: every item Green, one prod licence on-prem, a leader disk 60 % free, no bulletins. */
export const DEFAULT_SIGNAL_FAULTS: Readonly<SignalFaults> = Object.freeze({
  dataflow: Object.freeze({
    healthCounts: 'all',
    disabled: 'omit',
    rollup: 'worst',
    untyped: 0,
    windows: [],
  }),
  groupWindows: [],
  cleanLocalChanges: 'zero',
  license: Object.freeze({
    cloud: false,
    licenses: [{}],
    order: 'oldest',
    partialDay: false,
    days: 30,
    usage: 0.6,
    windows: [],
  }),
  vitals: Object.freeze({
    diskTotal: 100 * 1024 ** 3,
    diskFree: 0.6,
    memoryTotal: 16 * 1024 ** 3,
    memoryFree: 0.4,
    windows: [],
  }),
  messages: [],
  throughput: Object.freeze({ windows: [], outages: [] }),
  maxWorkerAge: null,
});

type Unstamped = { start?: number; end?: number; duration?: number };

/**
 * Gives every scheduled entry of a parsed patch without `start` the time it is set (`t`, ms since start), so that
 * a change made at run time begins then (and a bulletin is dated then). Changes the patch in place.
 */
export function stampSchedules(patch: Record<string, unknown>, t: number): void {
  const stamp = (list: unknown): void => {
    if (!Array.isArray(list)) return;
    for (const w of list as Unstamped[]) {
      if (w.start !== undefined) continue;
      w.start = t;
      if (w.duration !== undefined) w.end = t + w.duration;
      delete w.duration;
    }
  };
  const section = (v: unknown): unknown => (v && typeof v === 'object' ? (v as { windows?: unknown }).windows : v);
  stamp(section(patch.dataflow));
  stamp(patch.groupWindows);
  stamp(section(patch.license));
  stamp(section(patch.vitals));
  stamp(patch.messages);
  stamp(section(patch.throughput));
  stamp((patch.throughput as { outages?: unknown } | undefined)?.outages);
}
