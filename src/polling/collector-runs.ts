/**
 * Runs the per-discovery and interval collectors of one leader: each run gets the leader's client (so its budget and
 * credentials), its settings, a deadline, and writes its facts under its own name in the leader's store.
 */
import type { Logger } from 'pino';
import type { Collector, RunContext, Target } from '../collectors/collector.js';
import type { LeaderClient, LeaderRequest, LeaderResult } from '../leader/types.js';
import type { LeaderSnapshot } from '../store/snapshot.js';
import type { Clock } from '../util/clock.js';

export interface CollectorRunsOptions {
  client: LeaderClient;
  store: Pick<LeaderSnapshot, 'groups' | 'leader' | 'setLeaderFacts' | 'setGroupFacts'>;
  clock: Clock;
  logger: Logger;
  settingsOf: (c: Collector) => unknown;
  target: Target;
}

/** The collectors of a leader that run on a schedule kind (per discovery, or on their own interval). */
export class CollectorRuns {
  readonly #o: CollectorRunsOptions;

  constructor(o: CollectorRunsOptions) {
    this.#o = o;
  }

  /** Whether a collector runs for this leader with the settings in force. */
  enabled(c: Collector): boolean {
    return c.enabled?.(this.#o.settingsOf(c), this.#o.target) ?? true;
  }

  /** One run of `c`, its requests bounded by `deadline`; returns the requests it sent. */
  async run(c: Collector, deadline: number, signal: AbortSignal): Promise<number> {
    const s = c.schedule;
    if (s.kind !== 'discovery' && s.kind !== 'interval') return 0;
    const { store, clock, logger } = this.#o;
    let requests = 0;
    const client: LeaderClient = {
      baseUrl: this.#o.client.baseUrl,
      request: <T>(req: LeaderRequest<T>): Promise<LeaderResult<T>> => {
        requests++;
        return this.#o.client.request(req);
      },
      close: () => Promise.resolve(),
    };
    const ctx: RunContext<unknown> = {
      settings: this.#o.settingsOf(c),
      client,
      clock,
      logger,
      deadline,
      signal,
      groups: () => store.groups(),
      leaderFacts: () => store.leader().facts[c.name],
      setLeaderFacts: (facts) => store.setLeaderFacts(c.name, facts),
      setGroupFacts: (facts) => store.setGroupFacts(c.name, facts),
    };
    await s.run(ctx);
    return requests;
  }
}
