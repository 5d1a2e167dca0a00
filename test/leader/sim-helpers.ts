import { ENDPOINTS } from '@cribl-exporter/api/routes';
import type { LeaderClient } from '../../src/leader/types.js';
import type { LeaderClientLimits } from '../../src/leader/settings.js';
import { withAuth } from '../../src/auth/with-auth.js';
import pino from 'pino';
import { Agent } from 'undici';
import { RequestBudget } from '../../src/leader/budget.js';
import type { RequestBudgetOptions } from '../../src/leader/budget.js';
import { createLeaderClient } from '../../src/leader/client.js';
import type { LeaderResult } from '../../src/leader/types.js';
import type { Simulator } from '@cribl-exporter/simulator';
import { systemClock } from '@cribl-exporter/api/clock';
import { fakeAuth, recordingMetrics } from './helpers.js';

/** A real client (undici Agent, system clock) for a running simulator. */
export function clientForSim(
  baseUrl: string,
  token: string,
  budget: Partial<RequestBudgetOptions>,
  limits: Partial<LeaderClientLimits> = {},
) {
  const { metrics, events } = recordingMetrics();
  const b = new RequestBudget({
    maxRps: 50,
    burst: 50,
    maxConcurrency: 8,
    clock: systemClock,
    observer: metrics,
    ...budget,
  });
  const client: LeaderClient = withAuth(
    createLeaderClient({
      baseUrl,
      name: 'sim',
      dispatcher: new Agent({ connect: { timeout: 2000 }, keepAliveTimeout: 10_000 }),
      budget: b,
      clock: systemClock,
      random: Math.random,
      logger: pino({ level: 'silent' }),
      metrics,
      limits: {
        connectTimeoutMs: 2000,
        headersTimeoutMs: 2000,
        bodyTimeoutMs: 2000,
        backoffBaseMs: 100,
        backoffMaxMs: 1000,
        healthProbeIntervalMs: 200,
        healthProbeMaxMs: 400,
        ...limits,
      },
    }),
    fakeAuth({ token }).auth,
  );
  return { client, budget: b, events };
}

/** Tallies of a load run. */
export interface RunTally {
  ok: number;
  byReason: Record<string, number>;
  results: LeaderResult<unknown>[];
}

/**
 * Keeps `callers` request loops busy against the simulator's node health endpoints until `durationMs`
 * have passed; each request carries a deadline `deadlineMs` ahead (its "poll cycle").
 */
export async function drive(
  client: LeaderClient,
  sim: Simulator,
  opts: { durationMs: number; callers: number; deadlineMs?: number; keep?: boolean },
): Promise<RunTally> {
  const ids = sim.fleet.nodes().map((n) => n.id);
  const end = Date.now() + opts.durationMs;
  const tally: RunTally = { ok: 0, byReason: {}, results: [] };
  let i = 0;
  const loop = async (): Promise<void> => {
    while (Date.now() < end) {
      const id = ids[i++ % ids.length]!;
      const r = await client.request({
        endpoint: ENDPOINTS.nodeHealth,
        path: `/w/${encodeURIComponent(id)}/health`,
        nodeScoped: true,
        accept: [200, 420],
        deadline: Math.min(end, Date.now() + (opts.deadlineMs ?? 2000)),
        decode: (j) => j,
      });
      if (opts.keep) tally.results.push(r);
      if (r.ok) tally.ok++;
      else tally.byReason[r.reason] = (tally.byReason[r.reason] ?? 0) + 1;
      // A failed request ends its "cycle" at once; do not spin on instant failures.
      if (!r.ok) await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  await Promise.all(Array.from({ length: opts.callers }, loop));
  return tally;
}

/** Count of answers with `status` for a route in the simulator's statistics. */
export function simCount(sim: Simulator, route: string, status: string): number {
  return sim.stats().requests[route]?.[status] ?? 0;
}
