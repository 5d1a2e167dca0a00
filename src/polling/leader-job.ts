/**
 * One leader's discovery job: list the fleet, keep this process's share of it, and apply the result to the
 * snapshot (leader and group state) and to the poller (which nodes to poll). The scheduler runs it every
 * discovery interval; src/app.ts only wires it.
 */
import type { Logger } from 'pino';
import type { Discoverer } from '../discovery/discovery.js';
import { selectNodes, type ShardConfig } from '../discovery/select.js';
import type { LeaderSnapshot } from '../store/snapshot.js';
import type { Clock } from '../util/clock.js';
import type { Poller } from './poller.js';

/** Where a discovery reports (the prom-client side lives in src/telemetry/). */
export interface DiscoveryMetrics {
  /** Duration of the last discovery. */
  discovery(seconds: number): void;
  /** Nodes exported, and nodes left out by `--max-nodes`. */
  nodes(exported: number, overLimit: number): void;
}

export interface LeaderJobOptions {
  discoverer: Discoverer;
  poller: Poller;
  snapshot: Pick<LeaderSnapshot, 'setGroups' | 'setLeader'>;
  clock: Clock;
  logger: Logger;
  metrics: DiscoveryMetrics;
  /** Bounds every request of one discovery (and its retries). */
  discoveryIntervalMs: number;
  shard: ShardConfig;
  /** 0 = no limit. */
  maxNodes: number;
}

export class LeaderJob {
  readonly #o: LeaderJobOptions;
  #discovered = false;
  #lastDiscoveryMs: number | undefined;
  #overLimitLogged = 0;
  /** When the failures since the last successful discovery began, while there are some. */
  #failingSince: number | undefined;
  #failures = 0;

  constructor(opts: LeaderJobOptions) {
    this.#o = opts;
  }

  /** True once a discovery succeeded. */
  get discovered(): boolean {
    return this.#discovered;
  }

  /** One discovery; the outcome goes to the snapshot and the poller. */
  async discover(signal: AbortSignal): Promise<void> {
    const { clock, snapshot, metrics, logger } = this.#o;
    const start = clock.now();
    const out = await this.#o.discoverer.discover(start + this.#o.discoveryIntervalMs, signal);
    metrics.discovery((clock.now() - start) / 1000);
    if (signal.aborted) return;
    if (!out.ok) {
      this.#failingSince ??= start;
      this.#failures++;
      logger.warn({ reason: out.reason, err: out.message }, 'discovery failed');
      snapshot.setLeader({
        up: false,
        ...(this.#lastDiscoveryMs === undefined ? {} : { lastDiscoveryMs: this.#lastDiscoveryMs }),
        failure: {
          reason: out.reason,
          ...(out.status === undefined ? {} : { status: out.status }),
          message: out.message,
        },
      });
      return;
    }
    const sel = selectNodes(out.nodes, this.#o.shard, this.#o.maxNodes);
    await this.#o.poller.setNodes(sel.nodes);
    snapshot.setGroups(out.groups);
    this.#lastDiscoveryMs = clock.now();
    snapshot.setLeader({ up: true, lastDiscoveryMs: this.#lastDiscoveryMs });
    metrics.nodes(sel.nodes.size, sel.overLimit);
    if (sel.overLimit !== this.#overLimitLogged) {
      if (sel.overLimit > 0) {
        logger.warn(
          { exported: sel.nodes.size, notExported: sel.overLimit, maxNodes: this.#o.maxNodes },
          'more nodes than --max-nodes: the excess is not exported',
        );
      }
      this.#overLimitLogged = sel.overLimit;
    }
    if (this.#failingSince !== undefined) {
      const downSeconds = Math.round((clock.now() - this.#failingSince) / 1000);
      logger.info({ failedDiscoveries: this.#failures, downSeconds }, 'leader recovered: discovery succeeded again');
      this.#failingSince = undefined;
      this.#failures = 0;
    }
    if (!this.#discovered) {
      logger.info(
        { nodes: sel.nodes.size, requests: out.requests, otherShards: sel.otherShards },
        'first discovery complete',
      );
    }
    this.#discovered = true;
  }
}
