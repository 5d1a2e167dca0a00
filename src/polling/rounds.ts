/**
 * Health rounds: the time to refresh every node once (`cribl_exporter_health_cycle_duration_seconds`), whether
 * the request budget is what keeps nodes from their interval (`cribl_exporter_health_cycle_overrun`), and why,
 * named in one log line.
 */
import type { Logger } from 'pino';
import type { BudgetState } from '../leader/budget.js';
import { round1, type MaxRpsSetting } from './rate.js';

/** What the monitor reads from the leader's budget (src/leader/budget.ts). */
export interface BudgetView {
  state(): BudgetState;
  /** Requests per second the budget can sustain now (rate, or window / latency when lower). */
  capacityPerSecond(): number;
}

/** A node as far as rounds are concerned: the last round it was refreshed in. */
export interface RoundMember {
  round: number;
}

/** Where rounds are reported (self-metrics). */
export interface CycleMetrics {
  healthCycle(targetSeconds: number, durationSeconds: number): void;
  overrun(active: boolean): void;
}

/** Why nodes are behind their interval. The first three are the budget's; the others are not. */
export type LagCause = 'pause' | 'rate' | 'concurrency' | 'slow_nodes' | 'credentials' | 'exporter';

/** Why nodes are late, in one log line's words, and the fields of that line. */
interface LagReason {
  cause: LagCause;
  text: string;
  fields: Record<string, unknown>;
}

/** A round may take this much longer than the interval before it counts as stretched (timer and dispatch jitter). */
const TOLERANCE = 1.1;

/** A check this late says the exporter's event loop is too busy to poll on time (its timers, every answer's too). */
const LOOP_LAG_MS = 1_000;

/** What a CycleMonitor needs. */
export interface CycleMonitorOptions {
  intervalMs: number;
  /** Requests per node per second the node collectors need (health and metadata together). */
  perNodeRate: number;
  logger: Logger;
  metrics?: CycleMetrics;
  /** The leader's budget, read to tell why nodes are late (rate, concurrency, pause) when they are. */
  budget?: BudgetView;
  /** `--leader.max-rps` and its ceiling, to name the setting that limits the rate. */
  rate?: { setting: MaxRpsSetting; ceiling: number };
}

/** The cycle, as a page or a check reads it. */
export interface CycleStatus {
  targetSeconds: number;
  /** Duration of the last complete round (seconds), once there was one. */
  lastSeconds: number | undefined;
  overrun: boolean;
  /** Why the current or last stretched round was late, while it is. */
  cause: LagCause | undefined;
}

/**
 * Counts rounds: a round starts with every node pending and ends when each has been refreshed once since (a poll
 * answered, or the node's slot coming while its previous poll, already sent, still runs: a slow node is late on its
 * own account). A poll the budget denied, or one still waiting for its rate, refreshes nothing: below the fleet's
 * need, rounds last as long as polling every node takes. Nodes that join during a round belong to the next one.
 */
export class CycleMonitor {
  readonly #o: CycleMonitorOptions;
  #id = 0;
  #active = false;
  #start = 0;
  #pending = 0;
  #members = 0;
  #pausedAtStart = 0;
  /** The most a check of the current round ran late. */
  #lagMs = 0;
  #last: number | undefined;
  #overrun = false;
  /** The cause logged for the current stretch (logged once per stretch). */
  #logged: LagCause | undefined;

  constructor(opts: CycleMonitorOptions) {
    this.#o = opts;
    opts.metrics?.overrun(false);
  }

  /** A node joined: it is refreshed in the next round. */
  join(m: RoundMember): void {
    this.#members++;
    m.round = this.#id;
  }

  /** A node left; it no longer holds its round up. */
  leave(m: RoundMember, now: number): void {
    this.#members--;
    if (this.#active && m.round !== this.#id && --this.#pending === 0) this.#end(now);
    if (this.#members > 0) return;
    // No node left in rounds (the fleet is gone, or every product's health polls rotate): no round is late, and the
    // last one's duration no longer stands for anything.
    this.#active = false;
    if (this.#overrun || (this.#last ?? 0) > 0) {
      this.#overrun = false;
      this.#last = undefined;
      this.#o.metrics?.overrun(false);
      this.#o.metrics?.healthCycle(this.#o.intervalMs / 1000, 0);
    }
    this.#logged = undefined;
  }

  /** A node was refreshed. */
  cover(m: RoundMember, now: number): void {
    if (!this.#active) this.#begin(now);
    if (m.round === this.#id) return;
    m.round = this.#id;
    if (--this.#pending === 0) this.#end(now);
  }

  /** Whether the current round still waits for this node. */
  holds(m: RoundMember): boolean {
    return this.#active && m.round !== this.#id;
  }

  /**
   * Looks at the current round (called every second): a round already late may be flagged before it ends.
   * `slowNodes`: nodes whose last poll was slow or timed out, and those the round waits for whose poll was sent and
   * is not answered yet (a node that just turned slow holds its round up before its poll times out); `unsent`:
   * polls the round waits for that have not been sent for a second, the budget having room (they wait for a token);
   * `lagMs`: how late this check ran (a busy event loop runs every timer late, and delays every answer with it).
   */
  check(now: number, slowNodes: number, unsent = 0, lagMs = 0): void {
    if (!this.#active) return;
    this.#lagMs = Math.max(this.#lagMs, lagMs);
    if (now - this.#start > this.#o.intervalMs * TOLERANCE) this.#late(now, slowNodes, unsent);
  }

  status(): CycleStatus {
    return {
      targetSeconds: this.#o.intervalMs / 1000,
      lastSeconds: this.#last === undefined ? undefined : this.#last / 1000,
      overrun: this.#overrun,
      cause: this.#logged,
    };
  }

  #begin(now: number): void {
    this.#active = true;
    this.#id++;
    this.#start = now;
    this.#pending = this.#members;
    this.#pausedAtStart = this.#o.budget?.state().pausedMs ?? 0;
    this.#lagMs = 0;
  }

  #end(now: number): void {
    const duration = now - this.#start;
    this.#last = duration;
    this.#o.metrics?.healthCycle(this.#o.intervalMs / 1000, duration / 1000);
    if (duration <= this.#o.intervalMs * TOLERANCE) {
      if (this.#overrun) {
        this.#overrun = false;
        this.#o.metrics?.overrun(false);
      }
      // Not while the leader is held (420): a round of polls that all failed for it is no recovery.
      if (this.#logged !== undefined && this.#o.budget?.state().held !== true) {
        this.#o.logger.info({ durationSeconds: duration / 1000 }, 'every node refreshed within its interval again');
        this.#logged = undefined;
      }
    }
    this.#active = false;
    if (this.#members > 0) this.#begin(now);
  }

  #late(now: number, slowNodes: number, unsent: number): void {
    // Once the budget made a round late, it stays the cause until a round is back within its interval (a round
    // already late stays late after the pause ends or the rate is raised).
    if (this.#overrun) return;
    const why = this.#explain(now, slowNodes, unsent);
    const budget = why.cause === 'pause' || why.cause === 'rate' || why.cause === 'concurrency';
    if (budget !== this.#overrun) {
      this.#overrun = budget;
      this.#o.metrics?.overrun(budget);
    }
    if (why.cause === this.#logged) return;
    this.#logged = why.cause;
    this.#o.logger.warn(
      {
        cause: why.cause,
        nodes: this.#members,
        roundSeconds: Math.round((now - this.#start) / 100) / 10,
        targetSeconds: this.#o.intervalMs / 1000,
        ...why.fields,
      },
      `nodes are refreshed less often than --health.interval: ${why.text}`,
    );
  }

  /** The real reason nodes are late, with the setting to change when there is one. */
  #explain(now: number, slowNodes: number, unsent: number): LagReason {
    return this.#budgetCause(now) ?? this.#otherCause(slowNodes, unsent);
  }

  /** The budget's causes, when it is one: a pause the leader asked for, the rate, or the concurrency window. */
  #budgetCause(now: number): LagReason | undefined {
    const b = this.#o.budget;
    const elapsed = now - this.#start;
    const needed = round1(this.#members * this.#o.perNodeRate);
    if (!b) return undefined;
    const st = b.state();
    // A pause that began before the round counts from the round's start only.
    const pausedMs = Math.min(elapsed, st.pausedMs - this.#pausedAtStart);
    if (st.paused || pausedMs > elapsed * 0.1) {
      return {
        cause: 'pause',
        text:
          `the leader made us pause (Retry-After on 429/503, or 420 while not serving) for ` +
          `${round1(pausedMs / 1000)} s of the last ${round1(elapsed / 1000)} s; see ` +
          'cribl_exporter_leader_throttled_total and the leader’s load',
        fields: { pausedSeconds: round1(pausedMs / 1000) },
      };
    }
    if (st.rate < needed) {
      const rate = round1(st.rate);
      const text =
        st.rate < st.maxRps * 0.95
          ? `the leader throttled us down to ${rate} requests/s (429/503), below the ${needed}/s the fleet ` +
            'needs: lengthen --health.interval, or have the leader allow more'
          : (this.#o.rate?.setting ?? 'auto') === 'auto'
            ? `--leader.max-rps auto is capped by --leader.max-rps-ceiling at ${rate} requests/s, below the ` +
              `${needed}/s the fleet needs: raise --leader.max-rps-ceiling if the leader can take it, or ` +
              'lengthen --health.interval'
            : `--leader.max-rps ${rate} is below the ${needed} requests/s the fleet needs: raise it, or set it ` +
              'to auto';
      return { cause: 'rate', text, fields: { neededRps: needed, rateRps: rate, maxRps: round1(st.maxRps) } };
    }
    const capacity = b.capacityPerSecond();
    if (capacity < needed) {
      const cut = st.limit < st.maxConcurrency;
      return {
        cause: 'concurrency',
        text:
          `${st.limit} requests at once with the leader's response time of ${round1(st.latencyMs ?? 0)} ms ` +
          `allow about ${round1(capacity)}/s, below the ${needed}/s the fleet needs: ` +
          (cut
            ? 'the leader slowed down and the window was cut (see cribl_exporter_leader_request_duration_seconds)'
            : 'raise --leader.max-concurrency'),
        fields: { neededRps: needed, capacityRps: round1(capacity), concurrency: st.limit },
      };
    }
    return undefined;
  }

  /** When the budget is not the cause: the exporter's own event loop, slow nodes, credentials, or none known. */
  #otherCause(slowNodes: number, unsent: number): LagReason {
    if (this.#lagMs >= LOOP_LAG_MS) {
      return {
        cause: 'exporter',
        text:
          `the exporter's event loop ran up to ${round1(this.#lagMs / 1000)} s late in this round: it is short of ` +
          'CPU (see process_cpu_seconds_total and its CPU limit); the request budget is not the cause',
        fields: { loopLagSeconds: round1(this.#lagMs / 1000) },
      };
    }
    if (slowNodes > 0) {
      return {
        cause: 'slow_nodes',
        text:
          `${slowNodes === 1 ? '1 node answers' : `${slowNodes} nodes answer`} slower than --leader.timeout.headers, ` +
          'not at all, or not yet (cribl_exporter_slow_nodes); the request budget is not the cause, raising ' +
          '--leader.max-rps will not help',
        fields: { slowNodes },
      };
    }
    // Polls that wait in the budget's queue wait for a request slot that answers slow to come or to end hold (a
    // window full of dripping bodies), not for credentials.
    const queued = this.#o.budget?.state().waiting ?? 0;
    if (unsent > 0 && queued > 0) {
      return {
        cause: 'slow_nodes',
        text:
          `${unsent === 1 ? '1 poll waits' : `${unsent} polls wait`} for a request slot, every one held by ` +
          'answers slow to come or to end (slow nodes, bodies that drip); the request budget is not the cause, ' +
          'raising --leader.max-rps will not help',
        fields: { unsentPolls: unsent, waitingForSlot: queued },
      };
    }
    if (unsent > 0) {
      return {
        cause: 'credentials',
        text:
          `polls wait for the leader's credentials before they are sent (${unsent} now; a token being obtained: see ` +
          'the warnings about it and cribl_exporter_auth_failures_total); the request budget is not the cause',
        fields: { unsentPolls: unsent },
      };
    }
    return {
      cause: 'exporter',
      text:
        'neither the request budget nor slow nodes nor credentials are the cause; the exporter itself may be short ' +
        'of CPU (see process_cpu_seconds_total)',
      fields: {},
    };
  }
}
