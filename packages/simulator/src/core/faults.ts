import * as z from 'zod';
import { byRoute, routeName } from './route-names.js';
import { DEFAULT_SIGNAL_FAULTS, signalFaultsShape } from './faults-signals.js';
import type { SignalFaults } from './faults-signals.js';
import { DEFAULT_SEARCH_FAULTS, searchFaultsShape } from '../endpoints/search-jobs/faults.js';
import type { SearchFaults } from '../endpoints/search-jobs/faults.js';
import { DEFAULT_WORKSPACE_FAULTS, workspaceFaultsShape } from '../endpoints/workspaces/faults.js';
import type { WorkspaceFaults } from '../endpoints/workspaces/faults.js';
import { duration, share, size } from './schema-util.js';
import { parseRate } from './units.js';

/**
 * A time window, in milliseconds since the simulator started. With `every`, it repeats: active whenever
 * `(t - start) mod every < end - start` (for t ≥ start).
 */
export interface Window {
  start: number;
  end: number;
  every?: number | undefined;
}

/** A window in which the whole control plane answers 420. */
export interface LeaderWindow extends Window {
  state: 'standby' | 'shutting down';
  /** false: the 420 bodies carry no `role` (as before 4.17), so only the leader's /health tells standby apart. */
  role?: boolean;
}

/** Token bucket in front of the control plane: 429 when empty. */
export interface RateLimitFault {
  /** Tokens per second. */
  rate: number;
  /** Bucket size. */
  burst: number;
  /** Form of the Retry-After header on the 429 ('none' sends no header). */
  retryAfter: 'seconds' | 'http-date' | 'none';
  /** Seconds announced in Retry-After whatever the bucket says (e.g. 2, or a proxy's 86400); default: its wait. */
  retryAfterSeconds?: number;
  /** One bucket for everybody, or one per client (bearer token or remote address). */
  per: 'global' | 'client';
  /** Routes it applies to; null = every /api/v1 route except /auth/login. */
  routes: string[] | null;
}

/** 503 answers: a share of requests, and/or everything inside windows. */
export interface UnavailableFault {
  share: number;
  windows: Window[];
  /** Seconds to announce in Retry-After; null sends no Retry-After. */
  retryAfter: number | null;
  retryAfterForm: 'seconds' | 'http-date';
  routes: string[] | null;
}

/** Added latency (ms): `fixed + random() * jitter`. */
export interface LatencyFault {
  fixed: number;
  jitter: number;
}

/** A fault applied to a random share of requests of the given routes (null = every route). */
export interface ShareFault {
  share: number;
  routes: string[] | null;
}

/** A share of 200 answers replaced by a valid JSON body of at least `bytes` bytes. */
export interface OversizedFault extends ShareFault {
  bytes: number;
}

/**
 * A share of 200 answers sent slowly: the headers at once, then `bytes` bytes of the body every `every` ms for
 * `duration` ms, then the rest (a node or proxy that drips its answer).
 */
export interface DripFault extends ShareFault {
  every: number;
  duration: number;
  bytes: number;
}

/** Every `every` ms, this many random nodes (or groups, for `deploy`) change. */
export interface ChurnFault {
  every: number;
  join: number;
  leave: number;
  disconnect: number;
  reconnect: number;
  restart: number;
  health: number;
  configVersion: number;
  deploy: number;
}

/** Everything the simulator does wrong on purpose, and its timings; all durations in milliseconds. */
export interface Faults extends SignalFaults, SearchFaults, WorkspaceFaults {
  rateLimit: RateLimitFault | null;
  /** The leader's own notation, e.g. "2/second" (the real default); null = unlimited. */
  loginRateLimit: string | null;
  leaderWindows: LeaderWindow[];
  unavailable: UnavailableFault | null;
  /** Per route template, or '*' for every route (both add up). */
  latency: Record<string, LatencyFault>;
  /** How long a node in health mode 'slow' takes to answer. */
  slowNodeDelay: number;
  /** Connection reset (TCP RST) instead of an answer. */
  resets: ShareFault | null;
  /** 200 with the JSON body cut in half. */
  truncated: ShareFault | null;
  /** 200 with a body that is not JSON. */
  malformed: ShareFault | null;
  oversized: OversizedFault | null;
  drip: DripFault | null;
  /** Lifetime of tokens from POST /auth/login (the JWT `exp`). */
  tokenTtl: number;
  /** Lifetime of tokens from the OAuth endpoint (`expires_in`). */
  oauthTokenTtl: number;
  churn: ChurnFault | null;
}

/** Defaults: a well-behaved leader, except the login rate limit that real leaders ship with. */
export const DEFAULT_FAULTS: Readonly<Faults> = Object.freeze({
  rateLimit: null,
  loginRateLimit: '2/second',
  leaderWindows: [],
  unavailable: null,
  latency: {},
  slowNodeDelay: 600_000,
  resets: null,
  truncated: null,
  malformed: null,
  oversized: null,
  drip: null,
  tokenTtl: 3_600_000,
  oauthTokenTtl: 86_400_000,
  churn: null,
  ...DEFAULT_SEARCH_FAULTS,
  ...DEFAULT_WORKSPACE_FAULTS,
  ...DEFAULT_SIGNAL_FAULTS,
});

const routes = z.array(routeName).nullable().default(null);
const count = z.number().int().nonnegative().default(0);

const windowSchema = z
  .strictObject({
    start: duration,
    end: duration.optional(),
    duration: duration.optional(),
    every: duration.optional(),
  })
  .transform((w, ctx) => {
    const end = w.end ?? (w.duration === undefined ? undefined : w.start + w.duration);
    if (end === undefined || end <= w.start) {
      ctx.addIssue({ code: 'custom', message: 'needs `end` after `start`, or a positive `duration`' });
      return z.NEVER;
    }
    if (w.every !== undefined && w.every < end - w.start) {
      ctx.addIssue({ code: 'custom', message: '`every` must be at least the window length' });
      return z.NEVER;
    }
    const out: Window = { start: w.start, end };
    if (w.every !== undefined) out.every = w.every;
    return out;
  });

const leaderWindowSchema = z
  .strictObject({
    start: duration,
    end: duration.optional(),
    duration: duration.optional(),
    every: duration.optional(),
    state: z.enum(['standby', 'shutting down']).default('standby'),
    role: z.boolean().optional(),
  })
  .transform((w, ctx) => {
    const parsed = windowSchema.safeParse({ start: w.start, end: w.end, duration: w.duration, every: w.every });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message });
      return z.NEVER;
    }
    const out: LeaderWindow = { ...parsed.data, state: w.state };
    if (w.role !== undefined) out.role = w.role;
    return out;
  });

const shareFault = z.strictObject({ share, routes });

const faultsShape = {
  rateLimit: z
    .strictObject({
      rate: z.number().positive(),
      burst: z.number().min(1).optional(),
      retryAfter: z.enum(['seconds', 'http-date', 'none']).default('seconds'),
      retryAfterSeconds: z.number().int().min(1).max(31_536_000).optional(),
      per: z.enum(['global', 'client']).default('global'),
      routes,
    })
    .transform((r) => ({ ...r, burst: r.burst ?? Math.max(1, r.rate) }) satisfies RateLimitFault)
    .nullable(),
  loginRateLimit: z
    .string()
    .refine((s) => parseRate(s) !== undefined, { message: 'expected <n>/<second|minute|hour|day>, e.g. "2/second"' })
    .nullable(),
  leaderWindows: z.array(leaderWindowSchema),
  unavailable: z
    .strictObject({
      share: share.default(0),
      windows: z.array(windowSchema).default([]),
      retryAfter: z.number().int().nonnegative().nullable().default(null),
      retryAfterForm: z.enum(['seconds', 'http-date']).default('seconds'),
      routes,
    })
    .nullable(),
  latency: byRoute(z.strictObject({ fixed: duration.default(0), jitter: duration.default(0) })),
  slowNodeDelay: duration,
  resets: shareFault.nullable(),
  truncated: shareFault.nullable(),
  malformed: shareFault.nullable(),
  oversized: z.strictObject({ share, bytes: size.default(16 * 1024 * 1024), routes }).nullable(),
  drip: z
    .strictObject({
      share,
      every: duration.refine((ms) => ms > 0, { message: 'must be positive' }).default(2_000),
      duration: duration.default(20_000),
      bytes: z.number().int().positive().default(1),
      routes,
    })
    .nullable(),
  tokenTtl: duration,
  oauthTokenTtl: duration,
  churn: z
    .strictObject({
      every: duration.refine((ms) => ms > 0, { message: 'must be positive' }),
      join: count,
      leave: count,
      disconnect: count,
      reconnect: count,
      restart: count,
      health: count,
      configVersion: count,
      deploy: count,
    })
    .nullable(),
  ...searchFaultsShape,
  ...workspaceFaultsShape,
  ...signalFaultsShape,
};

/** Schema of a faults patch (scenario `faults:` section, admin PATCH/PUT body): every key optional. */
export const faultsPatchSchema = z.strictObject(faultsShape).partial();

/** What `setFaults` and the admin endpoint accept: any subset; durations as ms or "2s", sizes as bytes or "20MB". */
export type FaultsPatch = z.input<typeof faultsPatchSchema>;

/** Validated patch, durations in ms. */
export type ParsedFaultsPatch = z.output<typeof faultsPatchSchema>;

/** Applies a validated patch: top-level keys replace the current value, absent keys are kept. */
export function mergeFaults(base: Readonly<Faults>, patch: ParsedFaultsPatch): Faults {
  const out: Faults = { ...base };
  for (const key of Object.keys(patch) as (keyof Faults)[]) {
    const v = patch[key];
    if (v !== undefined) (out as unknown as Record<string, unknown>)[key] = v;
  }
  return out;
}

/** Formats the issues of a failed parse as one line: `path.to.field: message; …`. */
export function formatIssues(error: z.ZodError, prefix: string): string {
  return error.issues
    .slice(0, 3)
    .map((i) => {
      const path = [prefix, ...i.path.map(String)].filter(Boolean).join('.');
      return `${path || '(top level)'}: ${i.message}`;
    })
    .join('; ');
}

/** True while `now` (ms since start) falls inside the window. */
export function inWindow(w: Window, t: number): boolean {
  if (t < w.start) return false;
  if (w.every === undefined) return t < w.end;
  return (t - w.start) % w.every < w.end - w.start;
}
