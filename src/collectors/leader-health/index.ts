/**
 * GET /health in the global context (no auth): the leader itself, once per discovery, before the listing (it answers
 * anonymously even when the listing would not). 200 is healthy; 420 with the same body is an answer too (standby,
 * shutting down): the leader's state, kept, and the start of a hold (nothing else is sent to a leader that does not
 * serve; node polls read leader_unavailable). While the budget is held (the
 * leader answered 420 elsewhere), the hold's own /health probe brings the answers (src/leader/probe.ts, `fromProbe`)
 * and the per-discovery request is not sent.
 */
import { ENDPOINTS } from '@cribl-exporter/api/routes';
import { leaderHealthSchema, type LeaderHealth } from '@cribl-exporter/api/shapes';
import type { LeaderRequest, LeaderResult } from '../../leader/types.js';
import { collector, discoveryFreshness, factsKey, type RunContext, type ScopeFamily } from '../collector.js';
import { checkStatus, HEALTH_LABELS, HEALTH_STATES } from '../node-health/index.js';
import { get, nextRead, type Read } from '../read.js';
import { gaugeOf, line, q, stateSet } from '../sample.js';

export const NAME = 'leader_health';

export type { LeaderHealth } from '@cribl-exporter/api/shapes';

/** Decodes the leader's /health answer (200 or 420); a 200 must say healthy, a 420 must not. */
export function decodeLeaderHealth(json: unknown, status: number): LeaderHealth {
  return checkStatus(leaderHealthSchema.parse(json), status);
}

/** The leader's own health check: anonymous; a 420 is its state (accepted, and the answer is kept) and holds it. */
const leaderHealthRequest = (deadline: number, signal?: AbortSignal): LeaderRequest<LeaderHealth> => ({
  ...get(ENDPOINTS.leaderHealth, '/health', decodeLeaderHealth, deadline, signal),
  anonymous: true,
  accept: [200, 420],
  // Shutting down or standby: the leader is not serving; every request to it waits while /health is probed.
  holds: (status) => status === 420,
});

/** What the exporter knows of the leader's own health: the last answer (absent while the leader does not answer). */
export type LeaderHealthFacts = Read<LeaderHealth>;

export const leaderHealthFacts = factsKey<LeaderHealthFacts>(NAME);

/**
 * The facts after a result. A request the budget did not send because the leader is held unavailable (420
 * elsewhere; no status) keeps the last answer: the hold's probe keeps it current (`fromProbe`).
 */
export function nextLeaderHealth(
  prev: LeaderHealthFacts | undefined,
  res: LeaderResult<LeaderHealth>,
  nowMs: number,
): LeaderHealthFacts {
  const held = !res.ok && res.reason === 'leader_unavailable' && res.status === undefined;
  return nextRead(res.ok || held ? prev : { ...prev, value: undefined }, res, nowMs);
}

/** The facts from an answer of the hold's /health probe (status 200 or 420 and its JSON), when it decodes. */
export function fromProbe(status: number, json: unknown, nowMs: number): LeaderHealthFacts | undefined {
  try {
    return { value: decodeLeaderHealth(json, status), lastSuccessMs: nowMs };
  } catch {
    return undefined;
  }
}

async function run(ctx: RunContext<unknown>): Promise<void> {
  const res = await ctx.client.request(leaderHealthRequest(ctx.deadline, ctx.signal));
  if (ctx.signal.aborted) return;
  ctx.setLeaderFacts(nextLeaderHealth(ctx.leaderFacts() as LeaderHealthFacts | undefined, res, ctx.clock.now()));
}

const FAMILIES: readonly ScopeFamily[] = [
  {
    name: 'cribl_leader_health_status',
    what:
      "The leader's own health state set (GET /health): status is healthy, shutting_down or standby, the " +
      'answered one 1 and the others 0; no series while the leader does not answer.',
    labels: ['status'],
    sample: (l, base) => {
      const status = leaderHealthFacts.of(l)?.value?.status;
      const current = status === undefined ? undefined : HEALTH_LABELS[status];
      return stateSet('cribl_leader_health_status', base, 'status', HEALTH_STATES, current);
    },
  },
  {
    name: 'cribl_leader_role_info',
    what: "The leader's role as its /health reports it (value 1): primary or standby; absent before 4.17.",
    labels: ['role'],
    sample: (l, base) => {
      const role = leaderHealthFacts.of(l)?.value?.role;
      return role === undefined ? '' : line('cribl_leader_role_info', base, `role=${q(role)}`);
    },
  },
  gaugeOf(
    'cribl_leader_start_timestamp_seconds',
    'Start time of the leader process, from its /health.',
    (l) => leaderHealthFacts.of(l)?.value?.startTime,
    1000,
  ),
];

export const leaderHealth = collector({
  name: NAME,
  freshness: (_s, intervals) => discoveryFreshness(intervals),
  families: { leader: FAMILIES },
  schedule: { kind: 'discovery', first: true, run },
  probe: (_s, _g, deadline) => leaderHealthRequest(deadline),
});
