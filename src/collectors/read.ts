/**
 * What a collector keeps of a request it repeats (a leader's settings, its vitals, a group's destinations): the last
 * value read, kept through a failed read with why that read failed, and when a read last worked. One shape for every
 * such fact, so that each family reads `value` and none invents its own.
 */
import type { Endpoint } from '@cribl-exporter/api/routes';
import type { LeaderRequest, LeaderResult } from '../leader/types.js';
import { boolRow } from '../settings/table.js';
import { collector, discoveryFreshness, type ScopeFamily } from './collector.js';
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

/** A page of a paged list as kept: its items, how many the leader sent (for paging), and its total when it says. */
export interface Page<T> {
  readonly items: T[];
  readonly received: number;
  readonly totalCount?: number;
}

/** The page with the items `keep` keeps (undefined for what is not an item). */
export function keptPage<T>(
  page: { items: unknown[]; totalCount?: number | undefined },
  keep: (raw: unknown) => T | undefined,
): Page<T> {
  const items: T[] = [];
  for (const raw of page.items) {
    const item = keep(raw);
    if (item !== undefined) items.push(item);
  }
  const { totalCount } = page;
  return { items, received: page.items.length, ...(totalCount === undefined ? {} : { totalCount }) };
}

/**
 * A collector that reads one endpoint of the leader once per discovery, turned on and off by its own flag: its facts
 * of the leader are the Read of that endpoint. `oddities` names what in an answer the API does not promise, each said
 * once per `key` while the collector lives.
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
  readonly oddities?: (value: T) => readonly { key: string; fields?: Record<string, unknown>; message: string }[];
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
        const res = await ctx.client.request(o.request(ctx.deadline, ctx.signal));
        if (ctx.signal.aborted) return;
        ctx.setLeaderFacts(nextRead(ctx.leaderFacts() as Read<T> | undefined, res, ctx.clock.now()));
        for (const odd of res.ok && o.oddities ? o.oddities(res.body) : []) {
          ctx.warnOnce(odd.key, odd.fields ?? {}, odd.message);
        }
      },
    },
    probe: (_s, _g, deadline) => o.request(deadline),
  });
}
