/**
 * What a collector keeps of a request it repeats (a leader's settings, its vitals, a group's destinations): the last
 * value read, kept through a failed read with why that read failed, and when a read last worked. One shape for every
 * such fact, so that each family reads `value` and none invents its own.
 */
import type { Endpoint } from '../api/routes.js';
import type { LeaderRequest, LeaderResult } from '../leader/types.js';
import { boolRow } from '../settings/table.js';
import { collector, discoveryFreshness, type RunContext, type ScopeFamily } from './collector.js';
import { requestFailureReason, type RequestFailureReason } from './failure-reason.js';

export interface Read<T> {
  readonly value?: T;
  /** Epoch ms of the last read that worked. */
  readonly lastSuccessMs?: number;
  /** Why the last read failed; absent when it worked. */
  readonly failure?: RequestFailureReason;
}

/** The read after a result: the new value, or the last one kept with why this read failed. */
export function nextRead<T>(prev: Read<T> | undefined, res: LeaderResult<T>, nowMs: number): Read<T> {
  if (res.ok) return { value: res.body, lastSuccessMs: nowMs };
  return {
    ...(prev?.value === undefined ? {} : { value: prev.value }),
    ...(prev?.lastSuccessMs === undefined ? {} : { lastSuccessMs: prev.lastSuccessMs }),
    failure: requestFailureReason(res),
  };
}

/** A GET of the leader's API (global or group context), bounded by a deadline and, in a run, its signal. */
export function get<T>(
  endpoint: Endpoint,
  path: string,
  decode: LeaderRequest<T>['decode'],
  deadline: number,
  signal?: AbortSignal,
  query?: LeaderRequest<T>['query'],
): LeaderRequest<T> {
  return { endpoint, path, deadline, decode, ...(query ? { query } : {}), ...(signal ? { signal } : {}) };
}

/**
 * One request of a run whose facts of the leader are its Read; returns the result (undefined when the run was
 * stopped, and then nothing is written).
 */
export async function readLeader<T>(
  ctx: RunContext<unknown>,
  req: LeaderRequest<T>,
): Promise<LeaderResult<T> | undefined> {
  const res = await ctx.client.request(req);
  if (ctx.signal.aborted) return undefined;
  ctx.setLeaderFacts(nextRead(ctx.leaderFacts() as Read<T> | undefined, res, ctx.clock.now()));
  return res;
}

/** Something odd in an answer, said once per `key` while the collector lives. */
export interface Oddity {
  readonly key: string;
  readonly fields?: Record<string, unknown>;
  readonly message: string;
}

/**
 * A collector that reads one endpoint of the leader once per discovery, turned on and off by its own flag: its facts
 * of the leader are the Read of that endpoint. `oddities` names what in an answer the API does not promise.
 */
export function leaderReader<T>(o: {
  readonly name: string;
  /** `collector.<name>`: the flag, on by default. */
  readonly flag: string;
  readonly help: string;
  readonly permission?: string;
  /** Not read from Cribl.Cloud leaders (where the endpoint means nothing), whatever the flag says. */
  readonly notOnCloud?: true;
  readonly request: (deadline: number, signal?: AbortSignal) => LeaderRequest<T>;
  readonly oddities?: (value: T) => readonly Oddity[];
  readonly families: readonly ScopeFamily[];
}) {
  return collector({
    name: o.name,
    settings: { enabled: boolRow(o.flag, true, o.help) },
    enabled: (s, target) => s.enabled && !(o.notOnCloud && target.cloud),
    optional: true,
    ...(o.permission ? { permission: o.permission } : {}),
    freshness: (_s, intervals) => discoveryFreshness(intervals),
    families: { leader: o.families },
    schedule: {
      kind: 'discovery',
      run: async (ctx) => {
        const res = await readLeader(ctx, o.request(ctx.deadline, ctx.signal));
        for (const odd of res?.ok && o.oddities ? o.oddities(res.body) : []) {
          ctx.warnOnce(odd.key, odd.fields ?? {}, odd.message);
        }
      },
    },
    probe: (_s, _g, deadline) => o.request(deadline),
  });
}
