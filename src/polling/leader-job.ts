/**
 * One leader's discovery job: ask the leader's own /health, list the fleet, keep this process's share of it, and
 * apply the result to the snapshot (leader and group state) and to the poller (which nodes to poll); then one
 * commit-history request per group and the git settings (src/polling/leader-requests.ts). The scheduler runs it
 * every discovery interval; src/app.ts only wires it.
 */
import type { Logger } from 'pino';
import { fromProbe } from '../collectors/leader-health.js';
import type { Discoverer } from '../discovery/discovery.js';
import { selectNodes, type ShardConfig } from '../discovery/select.js';
import type { LeaderClient } from '../leader/types.js';
import type { LeaderSnapshot } from '../store/snapshot.js';
import type { Clock } from '../util/clock.js';
import { carriedVersions, pollGitSettings, pollLeaderHealth, pollVersions } from './leader-requests.js';
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
  /** The leader's client (the listing's own): /health, commit histories, git settings. */
  client: LeaderClient;
  snapshot: Pick<LeaderSnapshot, 'setGroups' | 'setLeader' | 'getGroup' | 'leader'>;
  clock: Clock;
  logger: Logger;
  metrics: DiscoveryMetrics;
  /** Bounds every request of one discovery (and its retries). */
  discoveryIntervalMs: number;
  shard: ShardConfig;
  /** 0 = no limit. */
  maxNodes: number;
  /** GET /system/settings/git-settings once per discovery (`--[no-]collector.git-settings`). @default true */
  gitSettings?: boolean;
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

  /**
   * An answer of the leader's /health that the 420 hold's probe got (src/leader/probe.ts): while the leader is
   * not serving, the per-discovery /health is not sent, and these keep its state current.
   */
  onHealthProbe(status: number, json: unknown): void {
    const health = fromProbe(status, json, this.#o.clock.now());
    if (health) this.#o.snapshot.setLeader({ health });
  }

  /** One discovery; the outcome goes to the snapshot and the poller. */
  async discover(signal: AbortSignal): Promise<void> {
    const { clock, snapshot, metrics, logger, client } = this.#o;
    const start = clock.now();
    const deadline = start + this.#o.discoveryIntervalMs;
    // The leader itself first: it answers (anonymously) even when the listing would not.
    const health = await pollLeaderHealth(client, snapshot.leader()?.health, clock, deadline, signal);
    if (signal.aborted) return;
    snapshot.setLeader({ health });
    const out = await this.#o.discoverer.discover(deadline, signal);
    if (signal.aborted) return;
    if (!out.ok) {
      metrics.discovery((clock.now() - start) / 1000);
      this.#failingSince ??= start;
      this.#failures++;
      logger.warn({ reason: out.reason, status: out.status, err: out.message }, 'discovery failed');
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
    // Groups first: nodes are rendered against their group's deployed version (the store's group facts).
    const groups = carriedVersions(out.groups, (g) => snapshot.getGroup(g.product, g.group.id)?.versions);
    await snapshot.setGroups(groups);
    await this.#o.poller.setNodes(sel.nodes);
    this.#lastDiscoveryMs = clock.now();
    snapshot.setLeader({ up: true, failure: undefined, lastDiscoveryMs: this.#lastDiscoveryMs });
    metrics.nodes(sel.nodes.size, sel.overLimit);
    // Then what needs a request per group, and the git settings; the listing's result is out already.
    const [withVersions, git] = await Promise.all([
      pollVersions(client, groups, deadline, signal),
      this.#o.gitSettings === false ? undefined : pollGitSettings(client, snapshot.leader()?.git, deadline, signal),
    ]);
    if (signal.aborted) return;
    await snapshot.setGroups(withVersions);
    if (git) snapshot.setLeader({ git });
    metrics.discovery((clock.now() - start) / 1000);
    const requests = out.requests + 1 + groups.length + (git ? 1 : 0);
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
      logger.info({ nodes: sel.nodes.size, requests, otherShards: sel.otherShards }, 'first discovery complete');
    }
    this.#discovered = true;
  }
}
