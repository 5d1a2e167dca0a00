/**
 * The packs job (`--collector.packs`, every `--packs.interval`): for each group the store knows, GET
 * /m/{group}/packs, then GET /m/{group}/p/{pack}/pipelines per pack for its pipeline count, one request at a time
 * through the leader's client and budget; the result goes to the store's group state.
 */
import type { Logger } from 'pino';
import { requestFailureReason } from '../collectors/failure-reason.js';
import { packsRequest, pipelinesRequest, type InstalledPack, type PacksFacts } from '../collectors/packs.js';
import { groupKey, type GroupState } from '../collectors/state.js';
import type { LeaderClient } from '../leader/types.js';
import type { LeaderSnapshot } from '../store/snapshot.js';
import type { Clock } from '../util/clock.js';

export interface PacksJobOptions {
  client: LeaderClient;
  snapshot: Pick<LeaderSnapshot, 'groups' | 'setGroupPacks'>;
  clock: Clock;
  logger: Logger;
  /** Bounds every request of one run. */
  intervalMs: number;
}

/** One group's packs and their pipeline counts, or why the list could not be read (the last list is kept). */
async function groupPacks(
  o: PacksJobOptions,
  g: GroupState,
  deadline: number,
  signal: AbortSignal,
): Promise<PacksFacts> {
  const res = await o.client.request(packsRequest(g.group.id, deadline, signal));
  if (!res.ok) {
    o.logger.debug({ group: g.group.id, reason: res.reason, status: res.status }, 'listing packs failed');
    return { ...g.packs, failure: requestFailureReason(res) };
  }
  const packs: InstalledPack[] = [];
  for (const p of res.body) {
    if (signal.aborted) break;
    const count = await o.client.request(pipelinesRequest(g.group.id, p.id, deadline, signal));
    packs.push(count.ok ? { ...p, pipelines: count.body } : p);
  }
  return { packs, lastSuccessMs: o.clock.now() };
}

/** Reads the packs of every group once; returns the requests sent. */
export async function runPacks(o: PacksJobOptions, signal: AbortSignal): Promise<number> {
  const deadline = o.clock.now() + o.intervalMs;
  const facts = new Map<string, PacksFacts>();
  let requests = 0;
  for (const g of o.snapshot.groups()) {
    if (signal.aborted) return requests;
    const f = await groupPacks(o, g, deadline, signal);
    requests += 1 + (f.failure ? 0 : (f.packs?.length ?? 0));
    facts.set(groupKey(g.product, g.group.id), f);
  }
  if (!signal.aborted) o.snapshot.setGroupPacks(facts);
  return requests;
}
