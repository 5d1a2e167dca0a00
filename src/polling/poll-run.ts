/**
 * One poll of a node, run: its primary collector (health), then its riders when due, and what the poll's outcome
 * changes of the node (answered, when, slow) and of the counts the schedule reads: polls still waiting for the
 * budget, slow nodes, nodes whose first poll has not ended. When and which node is polled is the schedule's
 * (poller.ts); the requests themselves are node-poll.ts's.
 */
import type { LeaderResult } from '../leader/types.js';
import type { Clock } from '@cribl-exporter/api/clock';
import { aboutNode, ridersGo, type NodePoll, type PolledNode } from './node-poll.js';

/** A node as a poll's run sees it. */
export interface RunNode extends PolledNode {
  /** When its next health poll is due (epoch ms): a retry may run until then. */
  readonly due: number;
  /** A poll of this node is in progress. */
  busy: boolean;
  /** The running poll has left the budget (it waits on the leader or the node now, not on the rate). */
  sent: boolean;
  /** Its last poll was slow or timed out. */
  slow: boolean;
  /** Its last health poll got an answer; when, if ever. */
  answered: boolean;
  lastSuccessMs: number | undefined;
  /**
   * Set while its health polls rotate (its level is basic or minimal): no riders then (their families are not
   * exported at those levels), and the first round does not wait for it (its liveness comes from the listing).
   */
  readonly rotation: object | undefined;
}

/** What the schedule hears of a poll's run. */
export interface PollRunEvents<E extends RunNode> {
  /** A poll left the budget (or ended without being sent): room for the next due node. */
  sent(e: E): void;
  /**
   * The primary's result, before the riders go; only while the node is listed and the poller runs. `now`: when it
   * ended.
   */
  primaryEnded(e: E, res: LeaderResult<unknown>, now: number): void;
}

export interface PollRunsOptions<E extends RunNode> {
  poll: NodePoll;
  clock: Clock;
  /** The primary's interval: a retry may run at least half of it. */
  intervalMs: number;
  /** A poll whose exchange takes longer than this is slow (`--leader.timeout.headers`). @default 10000 */
  slowPollMs?: number;
  /** Where the count of slow nodes goes (only when it changes). */
  metrics?: { slowNodes?(count: number): void };
  /** Called once, when the first health poll of every node tracked has ended; then dropped. */
  onFirstRound?: () => void;
  events: PollRunEvents<E>;
}

/** The runs of one leader's polls, and the counts they keep. */
export class PollRuns<E extends RunNode> {
  readonly #o: PollRunsOptions<E>;
  /** Polls dispatched and still waiting for the budget (not sent yet). */
  #unsent = 0;
  #slow = 0;
  #reportedSlow = -1;
  /** Called once no node is left without a first health poll, then dropped. */
  #onFirstRound: (() => void) | undefined;
  /** Nodes whose first health poll has not ended yet. */
  #unpolled = 0;

  constructor(opts: PollRunsOptions<E>) {
    this.#o = opts;
    this.#onFirstRound = opts.onFirstRound;
    this.#reportSlow();
  }

  /** Polls dispatched and not sent yet. */
  get unsent(): number {
    return this.#unsent;
  }

  /** Nodes whose last poll was slow or timed out. */
  get slowNodes(): number {
    return this.#slow;
  }

  /** A new full-level node (or one no longer rotating) without a first poll: its first poll is awaited. */
  track(): void {
    this.#unpolled++;
  }

  /** A node without a first poll that now rotates: no longer awaited; `listed` nodes are. */
  untrack(listed: number): void {
    if (--this.#unpolled === 0 && listed > 0) this.#firstRoundEnded();
  }

  /** After a listing of `listed` nodes: when none is awaited (every node rotates), the first round is this listing. */
  settle(listed: number): void {
    if (this.#unpolled === 0 && listed > 0) this.#firstRoundEnded();
  }

  /** A node that left; `remaining` nodes are still listed (the first round may end with it). */
  forget(e: E, remaining: number): void {
    this.#setSlow(e, false);
    if (e.polls === 0 && e.rotation === undefined && --this.#unpolled === 0 && remaining > 0) {
      this.#firstRoundEnded();
    }
  }

  /** A poll handed to the budget: it counts as unsent until it leaves it. */
  queued(): void {
    this.#unsent++;
  }

  /** A node's primary poll, then its riders when due and the node answered (or its health checks were refused). */
  async run(e: E, signal: AbortSignal): Promise<void> {
    e.busy = true;
    e.sent = false;
    try {
      const res = await this.#pollPrimary(e, signal);
      if (!e.sent) this.#markSent(e);
      if (!res || signal.aborted || e.removed) return;
      this.#o.events.primaryEnded(e, res, this.#o.clock.now());
      if (e.rotation === undefined && ridersGo(res)) await this.#o.poll.riders(e, signal);
    } finally {
      e.busy = false;
    }
  }

  /** The node's primary poll; its result, or undefined when the node left meanwhile. */
  async #pollPrimary(e: E, signal: AbortSignal): Promise<LeaderResult<unknown> | undefined> {
    const { clock, intervalMs } = this.#o;
    let exchangeMs: number | undefined;
    // A retry may run until this node's next poll is due, never later (at least half an interval).
    const deadline = Math.max(e.due, clock.now() + intervalMs / 2);
    const res = await this.#o.poll.primary(
      e,
      deadline,
      signal,
      (ms) => (exchangeMs = ms),
      () => this.#markSent(e),
    );
    if (!res) return undefined;
    // A poll not about the node (not sent, or the leader's own answer) leaves it as it was: its last answer stands.
    if (!aboutNode(res)) return res;
    if (e.polls++ === 0 && e.rotation === undefined) this.#unpolled--;
    e.answered = res.ok;
    if (res.ok) e.lastSuccessMs = clock.now();
    this.#setSlow(e, (!res.ok && res.reason === 'timeout') || (exchangeMs ?? 0) > (this.#o.slowPollMs ?? 10_000));
    if (this.#unpolled === 0) this.#firstRoundEnded();
    return res;
  }

  #markSent(e: E): void {
    if (e.sent) return;
    e.sent = true;
    this.#unsent--;
    this.#o.events.sent(e);
  }

  #firstRoundEnded(): void {
    const first = this.#onFirstRound;
    this.#onFirstRound = undefined;
    first?.();
  }

  #setSlow(e: E, slow: boolean): void {
    if (e.slow === slow) return;
    e.slow = slow;
    this.#slow += slow ? 1 : -1;
    this.#reportSlow();
  }

  #reportSlow(): void {
    if (this.#slow === this.#reportedSlow) return;
    this.#reportedSlow = this.#slow;
    this.#o.metrics?.slowNodes?.(this.#slow);
  }
}
