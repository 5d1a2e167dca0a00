/**
 * One node's poll, as the per-node schedule (poller.ts) starts it: the primary node collector's request (the health
 * poll), its facts written to the store, then each riding collector whose `due` says so (the metadata). Which
 * collectors those are comes from the registry; this file knows none of them.
 */
import type { Logger } from 'pino';
import type { Collector, NodeSchedule, RideContext } from '../collectors/collector.js';
import type { LeaderClient, LeaderResult } from '../leader/types.js';
import type { LeaderSnapshot } from '../store/snapshot.js';
import type { Clock } from '@cribl-exporter/api/clock';

/**
 * Whether a result says something about the node. A poll that was not sent (the budget could not fit it, a pause, a
 * hold: `notSent`, whatever its reason, `timeout` included when every slot was held by unanswered requests) or that
 * the leader answered about itself (429, 503 and 420 outside host context: `throttled`, `leader_unavailable`) does
 * not: the node's last answer stands, and its freshness timestamp says how old it is.
 */
export function aboutNode(res: LeaderResult<unknown>): boolean {
  return res.ok || (res.notSent !== true && res.reason !== 'throttled' && res.reason !== 'leader_unavailable');
}

/**
 * Whether the riders (the metadata) poll a node after its primary poll's result: when the node answered, and when the
 * leader refused the primary's route (401, 403, also while that refusal holds the polls back): a refusal of the health
 * checks says nothing of the node's other routes, which go on.
 */
export function ridersGo(res: LeaderResult<unknown>): boolean {
  return res.ok || res.status === 401 || res.status === 403;
}

/** A node collector with its settings in force. */
export interface NodeCollector {
  readonly name: string;
  readonly schedule: NodeSchedule<unknown>;
  readonly settings: unknown;
}

/** The node collectors of the registry that run with these settings: the primary first, then the riders. */
export function nodeCollectors(
  collectors: readonly Collector[],
  settingsOf: (c: Collector) => unknown,
  enabled: (c: Collector) => boolean,
): { primary: NodeCollector; riders: NodeCollector[] } {
  const all = collectors
    .filter((c) => c.schedule.kind === 'node' && enabled(c))
    .map((c) => ({ name: c.name, schedule: c.schedule as NodeSchedule<unknown>, settings: settingsOf(c) }));
  const primary = all.find((c) => c.schedule.primary === true);
  if (!primary) throw new Error('no primary node collector is registered');
  return { primary, riders: all.filter((c) => c !== primary) };
}

/** What a rider remembers of a node between polls. */
export interface RideState {
  restarted: boolean;
  lastPollMs: number | undefined;
}

/** A node as its poll sees it (the schedule's entry). */
export interface PolledNode {
  readonly key: string;
  /** Primary polls completed. */
  polls: number;
  /** The node left the listing. */
  removed: boolean;
  /** One per rider. */
  readonly rides: RideState[];
}

export interface NodePollOptions {
  client: LeaderClient;
  store: Pick<LeaderSnapshot, 'node' | 'hasNode' | 'setNodeFacts'>;
  clock: Clock;
  logger: Logger;
  primary: NodeCollector;
  riders: readonly NodeCollector[];
}

/** Polls nodes: the primary, then the riders that are due. */
export class NodePoll {
  readonly #o: NodePollOptions;

  constructor(o: NodePollOptions) {
    this.#o = o;
  }

  get primaryIntervalMs(): number {
    return this.#o.primary.schedule.intervalMs(this.#o.primary.settings);
  }

  /** Requests per node per second that the node collectors need, all together. */
  get perNodeRate(): number {
    return [this.#o.primary, ...this.#o.riders].reduce((r, c) => r + 1000 / c.schedule.intervalMs(c.settings), 0);
  }

  /** A new node's rider states. */
  rides(): RideState[] {
    return this.#o.riders.map(() => ({ restarted: false, lastPollMs: undefined }));
  }

  /**
   * The primary poll of a node: its result, written to the store as the collector's facts (a changed start time
   * marks a restart for the riders); undefined when the node left meanwhile (its series are gone already). A result
   * that is not about the node (`aboutNode`) leaves its facts as they are; an accepted answer that is the leader's own
   * (its 420 standby body: `holds`) comes back as `leader_unavailable`.
   */
  async primary(
    n: PolledNode,
    deadline: number,
    signal: AbortSignal,
    onExchange?: (ms: number) => void,
    onSent?: () => void,
  ): Promise<LeaderResult<unknown> | undefined> {
    const { store, clock, primary } = this.#o;
    const item = store.node(n.key);
    if (!item) return undefined;
    const req = primary.schedule.request(item.ident.nodeId, deadline, signal, onExchange);
    if (onSent) req.onSent = onSent;
    const answer = await this.#o.client.request(req);
    if (n.removed || !store.hasNode(n.key) || signal.aborted) return undefined;
    const res: LeaderResult<unknown> =
      answer.ok && req.holds?.(answer.status, answer.body) === true
        ? { ok: false, reason: 'leader_unavailable', status: answer.status, message: 'the leader is not serving' }
        : answer;
    if (!res.ok && !aboutNode(res)) {
      this.#debug(primary.name, item.ident.nodeId, res);
      return res;
    }
    const prev = store.node(n.key)?.facts[primary.name];
    const next = primary.schedule.next(prev, res, clock.now());
    const schedule = primary.schedule;
    const before = prev === undefined ? undefined : schedule.startTime?.(prev);
    if (before !== undefined && schedule.startTime?.(next) !== before) this.restarted(n);
    if (!res.ok) this.#debug(primary.name, item.ident.nodeId, res);
    store.setNodeFacts(n.key, primary.name, next);
    return res;
  }

  /** The riders due after the primary's answer, one after the other. */
  async riders(n: PolledNode, signal: AbortSignal): Promise<void> {
    const { store, clock, riders } = this.#o;
    const primaryIntervalMs = this.primaryIntervalMs;
    for (const [i, rider] of riders.entries()) {
      const ride = n.rides[i];
      if (!ride || n.removed || signal.aborted) return;
      const context: RideContext = {
        key: n.key,
        polls: n.polls,
        restarted: ride.restarted,
        lastPollMs: ride.lastPollMs,
        nowMs: clock.now(),
        primaryIntervalMs,
      };
      if (!rider.schedule.due?.(rider.settings, context)) continue;
      const item = store.node(n.key);
      if (!item) return;
      const { lastPollMs, restarted } = ride;
      ride.restarted = false;
      ride.lastPollMs = clock.now();
      const intervalMs = rider.schedule.intervalMs(rider.settings);
      const deadline = clock.now() + Math.min(intervalMs, primaryIntervalMs);
      const res = await this.#o.client.request(rider.schedule.request(item.ident.nodeId, deadline, signal));
      if (n.removed || !store.hasNode(n.key) || signal.aborted) return;
      if (!res.ok) this.#debug(rider.name, item.ident.nodeId, res);
      // Not about the node: its last answer stands; the rider asks again at its next due poll.
      if (!aboutNode(res)) {
        ride.lastPollMs = lastPollMs;
        ride.restarted = restarted;
        continue;
      }
      store.setNodeFacts(
        n.key,
        rider.name,
        rider.schedule.next(store.node(n.key)?.facts[rider.name], res, clock.now()),
      );
    }
  }

  /** The node restarted (a new start time in the listing or its primary's answer): every rider polls it next. */
  restarted(n: PolledNode): void {
    for (const ride of n.rides) ride.restarted = true;
  }

  #debug(collector: string, node: string, res: Extract<LeaderResult<unknown>, { ok: false }>): void {
    this.#o.logger.debug(
      { node, reason: res.reason, status: res.status, err: res.message },
      `${collector} poll failed`,
    );
  }
}
