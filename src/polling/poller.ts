/**
 * The per-node schedule: when each node's health poll is due, which due node the budget serves next, the wake-up
 * loop, and polls of slow nodes detached so they hold nobody up. One poll's run (its primary, its riders, what its
 * outcome changes) is poll-run.ts's.
 */
import type { NodeIdent } from '../collectors/collector.js';
import { detailFacts, levelOf, rotates, type NodeDetail } from '../collectors/detail.js';
import type { Product } from '@cribl-exporter/api/products';
import type { LeaderResult } from '../leader/types.js';
import type { LeaderSnapshot } from '../store/snapshot.js';
import type { Clock } from '@cribl-exporter/api/clock';
import { fnv1a64Halves } from '../util/hash.js';
import { Alarm } from '../util/timer.js';
import { timeSlicer } from '../util/yield.js';
import { CycleMonitor } from './rounds.js';
import type { CycleMetrics, CycleMonitorOptions, CycleStatus, RoundMember } from './rounds.js';
import { DueHeap, KeyHeap, type HeapKey } from './due-heap.js';
import { aboutNode, type NodePoll, type RideState } from './node-poll.js';
import { PollRuns, type RunNode } from './poll-run.js';
import { rotationRate, type PollingPlan, type RotationRate } from './rate.js';
import { Rotation } from './rotation.js';

/** Where the poller reports (the prom-client side lives in src/telemetry/). */
export interface PollerMetrics extends CycleMetrics {
  /** Seconds since the oldest successful health refresh among nodes that answered their last poll. */
  pollAgeMax?(seconds: number): void;
  /** Nodes whose last health poll took longer than the header timeout, or timed out. */
  slowNodes?(count: number): void;
  /** Seconds to poll every node of a rotating product once (undefined: the product no longer rotates). */
  rotation?(product: Product, seconds: number | undefined): void;
}

/** A node of a discovery: who it is, its listing facts and its start time (a change is a restart). */
export interface DiscoveredNode {
  readonly ident: NodeIdent;
  readonly facts: unknown;
  readonly startTime: number;
}

export interface PollerOptions extends Omit<CycleMonitorOptions, 'intervalMs' | 'perNodeRate' | 'metrics'> {
  /** Polls a node: its primary collector, then the riders due. */
  poll: NodePoll;
  /**
   * What the poller writes of the store: the nodes a discovery lists, under the listing collector's name; and reads:
   * the level of each product (the leader's detailFacts, written by the discovery before it sets the nodes).
   */
  snapshot: Pick<LeaderSnapshot, 'putNode' | 'deleteNode' | 'hasNode' | 'leader'>;
  /** The listing collector's name (its facts of each node come with a discovery). */
  listing: string;
  clock: Clock;
  /**
   * Polls this poller keeps outstanding at most (waiting for the budget or in flight). The budget decides the
   * real concurrency; this bound keeps memory flat when the leader is slow.
   */
  maxOutstanding: number;
  metrics?: PollerMetrics;
  /** A poll whose exchange takes longer than this is slow (`--leader.timeout.headers`). @default 10000 */
  slowPollMs?: number;
  /**
   * Called after each discovery is applied, with the number of nodes polled and, of them, those of each rotating
   * product (the automatic rate follows them); it returns the rate each rotation is allowed (src/polling/rate.ts).
   * Without it, or without a product's rate, a rotation goes at `rotationRate`.
   */
  onNodes?: (
    count: number,
    rotations: Pick<PollingPlan, 'rotating' | 'rotatingLevels'>,
  ) => { rotation: Partial<Record<Product, RotationRate>> } | void;
  /**
   * Called once, when the first health poll of every node known has ended (answered or failed) and its outcome is in
   * the snapshot: the app builds /metrics then, so that a first scrape finds the fleet.
   */
  onFirstRound?: () => void;
  /** Longest stretch of applying a listing between two yields to the event loop. @default 4 ms */
  sliceMs?: number;
  /**
   * The scheduled loop wakes only on multiples of this many ms (epoch time), so that polls due within one quantum
   * go out together (a finished poll still wakes it at once when polls were waiting for a slot); shorter for large
   * fleets (quantumFor). 0: at each node's own due time. @default 0 (the exporter uses POLL_QUANTUM_MS)
   */
  quantumMs?: number;
}

/**
 * The exporter's `quantumMs`. Waking once per node (every 15 ms at 2,000 nodes, health every 30 s) cost more than the
 * polls: the exporter used 0.070–0.076 cores in the steady state at 2,000 nodes against 0.034–0.035 with a quantum of
 * 250 ms or 1 s (per-thread CPU from /proc over 60 s, `dist/cli.js`, runs back to back). A
 * node's polls stay one interval apart (its slot moves by less than a quantum, the same way each time); the budget
 * still paces the requests of a quantum.
 */
export const POLL_QUANTUM_MS = 250;

/**
 * Polls due per quantum, at most: the quantum shrinks with the fleet (`quantumFor`). A quantum saves wake-ups where
 * the process would idle between polls; a large fleet never idles (2,000 polls a second at 50,000 nodes), and a
 * quantum's polls released at once (500 there) outlive a few of V8's young-generation collections and are promoted.
 * At 50,000 nodes a 10 ms quantum against 250 ms: 0.385 and 0.416 cores against 0.424 and 0.474 in the steady state,
 * runs alternated, and 7.5 against 8.6 MB/s promoted to old space. 20 keeps 250 ms up to 2,400
 * nodes at a 30 s health interval.
 */
export const QUANTUM_MAX_POLLS = 20;

/**
 * The quantum in force: `maxMs` (the poller's `quantumMs`), or shorter so that `nodes` polled once per `intervalMs`
 * bring at most QUANTUM_MAX_POLLS polls per quantum; never under 1 ms. A shortened quantum divides the interval, so
 * that a node's polls stay exactly one interval apart. 0 (no quantum) stays 0.
 */
export function quantumFor(maxMs: number, nodes: number, intervalMs: number): number {
  if (maxMs <= 0 || nodes <= 0) return maxMs;
  let q = Math.max(1, Math.floor((intervalMs * QUANTUM_MAX_POLLS) / nodes));
  if (q >= maxMs) return maxMs;
  while (q > 1 && intervalMs % q !== 0) q--;
  return q;
}

/**
 * Where a node's polls fall in the interval, from the FNV-1a 64 hash h of its key: (h >> 16) mod `intervalMs` (in
 * numbers, not BigInt: h >> 16 is under 2^48).
 */
export function nodePhase(key: string, intervalMs: number): number {
  const [hi, lo] = fnv1a64Halves(key);
  return (hi * 0x1_0000 + (lo >>> 16)) % intervalMs;
}

/** A node's polling schedule (its facts live in the snapshot, their only owner). */
interface Entry extends RoundMember, RunNode {
  /** Node start time (listing) last seen; a change means the node restarted. */
  startTime: number;
  readonly rides: RideState[];
  /** Offset of the node's slots within the interval (ms), from a hash of its key. */
  readonly phase: number;
  /** When its next health poll is due (epoch ms). */
  due: number;
  heapIndex: number;
  /** Since when its poll is in progress; whether it stopped counting as outstanding (slow). */
  busySince: number;
  detached: boolean;
  /** Slots before this time are skipped: the node was polled out of turn (its first poll, a pass) just before. */
  skipUntil: number;
  /**
   * When its last turn ended: a poll answered, or failed on the node's own account (timeout, the node's error);
   * -Infinity before any. A poll the budget or the leader's throttling kept from the node is no turn.
   */
  turn: number;
  /**
   * Where it waits among the due nodes (-1: not waiting; it is in the schedule's heap then); a rotating node's place in
   * its rotation's queue.
   */
  readyIndex: number;
  /**
   * Its product's rotation, while its level rotates (basic, minimal): then it is in no heap of the schedule and no
   * round, but in its rotation's queue while no poll of it runs.
   */
  rotation: Rotation<Entry> | undefined;
}

/** Due nodes wait for the budget oldest turn first. */
const BY_TURN: HeapKey<Entry> = {
  key: (e) => e.turn,
  index: (e) => e.readyIndex,
  setIndex: (e, i) => (e.readyIndex = i),
};

/**
 * Longest stretch of applying a listing between two yields to the event loop. Scrapes that arrive
 * meanwhile wait this long at most (a fixed count of 500 nodes took 20–50 ms on a busy 2-core machine).
 */
const SET_NODES_SLICE_MS = 4;

/** The loop looks at rounds, ages and slow nodes at least this often. */
const HOUSEKEEPING_MS = 1_000;

/**
 * A poll in progress this long stops counting against maxOutstanding (a slow node: it must not hold the fleet's
 * polls up), up to MAX_DETACHED such polls (each is one request waiting on the leader, a few KB).
 */
const DETACH_AFTER_MS = 2_000;
const MAX_DETACHED = 1_000;

/**
 * Polls every node through the leader on its own schedule (the primary node collector: health): each node has a
 * due time, its phase spread over the interval by a hash of its key (as Prometheus spreads scrape targets), so a slow
 * or timed-out request delays only that node. New nodes are polled at once, as fast as the budget allows. The riding
 * collectors (metadata) follow a poll's answer when they are due (node-poll.ts). Outcomes go to the snapshot.
 *
 * A node whose slot came waits among the due nodes until the budget has room, and the due nodes are served oldest
 * turn first (the node that has waited longest since its last answer gets the next permit): while the budget cannot
 * cover the fleet, every node is refreshed once per round (the time the allowed rate needs for the whole fleet),
 * whatever its slot. A node that timed out or failed had its turn and waits a round like the others; one whose poll
 * the leader's throttling or a pause kept from it keeps its place at the head. Nothing is dispatched while the
 * leader's budget is paused or held: the due nodes then wait here, oldest first, not in the budget's queue.
 */
export class Poller {
  readonly #o: PollerOptions;
  readonly #intervalMs: number;
  readonly #nodes = new Map<string, Entry>();
  /** Nodes not due yet, and nodes whose poll runs, by due time. */
  readonly #heap = new DueHeap<Entry>();
  /** Due nodes waiting for the budget, oldest turn first. */
  readonly #ready = new KeyHeap<Entry>(BY_TURN);
  /** The rotations of the products whose level rotates, by product (kept once made). */
  readonly #rotations = new Map<Product, Rotation<Entry>>();
  readonly #cycle: CycleMonitor;
  readonly #runs: PollRuns<Entry>;
  #outstanding = 0;
  readonly #inProgress = new Set<Entry>();
  #detached = 0;
  #wake: (() => void) | undefined;
  readonly #alarm: Alarm;
  #lastHousekeeping = -Infinity;
  #running = false;

  constructor(opts: PollerOptions) {
    this.#o = opts;
    this.#intervalMs = opts.poll.primaryIntervalMs;
    this.#alarm = new Alarm(opts.clock, () => this.#nudge());
    this.#cycle = new CycleMonitor({ ...opts, intervalMs: this.#intervalMs, perNodeRate: opts.poll.perNodeRate });
    this.#runs = new PollRuns<Entry>({
      poll: opts.poll,
      clock: opts.clock,
      intervalMs: this.#intervalMs,
      slowPollMs: opts.slowPollMs,
      metrics: opts.metrics,
      onFirstRound: opts.onFirstRound,
      events: { sent: () => this.#sent(), primaryEnded: (e, res, now) => this.#primaryEnded(e, res, now) },
    });
  }

  /** The primary's interval: each node is polled once per interval. */
  get intervalMs(): number {
    return this.#intervalMs;
  }

  /**
   * Rounds, slow nodes and the rotations (per rotating product: nodes, polls per second, seconds to poll each once),
   * for a status page or a check (cheap: no walk over the nodes).
   */
  status(): CycleStatus & { nodes: number; slowNodes: number; rotations: Partial<Record<Product, RotationRate>> } {
    const rotations: Partial<Record<Product, RotationRate>> = {};
    for (const [product, r] of this.#rotations) {
      if (r.size > 0) rotations[product] = { nodes: r.size, rps: r.rps, seconds: r.seconds };
    }
    return { ...this.#cycle.status(), nodes: this.#nodes.size, slowNodes: this.#runs.slowNodes, rotations };
  }

  /**
   * Applies a discovery: writes each node's listing facts, removes nodes that left (their series vanish), and
   * marks restarted nodes for their riders. New nodes are due at once.
   */
  async setNodes(nodes: ReadonlyMap<string, DiscoveredNode>): Promise<void> {
    const { snapshot, clock, listing } = this.#o;
    for (const [key, e] of this.#nodes) {
      if (!nodes.has(key)) this.#remove(e);
    }
    // Re-rendering 50,000 nodes in one go would block the loop (and every scrape) for seconds.
    const slice = timeSlicer(this.#o.sliceMs ?? SET_NODES_SLICE_MS);
    const rotationOf = this.#rotationOf();
    let added = false;
    for (const [key, d] of nodes) {
      const pause = slice();
      if (pause) await pause;
      const prev = this.#nodes.get(key);
      const rotation = rotationOf(d.ident.product);
      if (!prev || !snapshot.hasNode(key)) {
        if (prev) this.#remove(prev);
        this.#add(key, d.startTime, clock.now(), rotation);
        snapshot.putNode(key, d.ident, listing, d.facts);
        added = true;
        continue;
      }
      if (prev.rotation !== rotation) this.#move(prev, rotation, clock.now());
      if (prev.startTime !== d.startTime) this.#o.poll.restarted(prev);
      prev.startTime = d.startTime;
      snapshot.putNode(key, d.ident, listing, d.facts);
    }
    this.#paceRotations();
    // A fleet whose every node rotates has its liveness from the listing: its first round is this listing.
    this.#runs.settle(this.#nodes.size);
    if (added) this.#nudge();
  }

  /** The rotation of a product's nodes by the levels of the last discovery (undefined: full, every interval). */
  #rotationOf(): (product: Product) => Rotation<Entry> | undefined {
    const facts = detailFacts.of(this.#o.snapshot.leader());
    return (product) => {
      const level = levelOf(facts, product);
      if (!rotates(level)) return undefined;
      let r = this.#rotations.get(product);
      if (!r) this.#rotations.set(product, (r = new Rotation<Entry>(BY_TURN)));
      r.level = level;
      return r;
    };
  }

  /** The allowed rate follows the nodes polled (onNodes); each rotation goes at the rate it is given. */
  #paceRotations(): void {
    const rotating: Partial<Record<Product, number>> = {};
    const rotatingLevels: Partial<Record<Product, NodeDetail>> = {};
    for (const [product, r] of this.#rotations) {
      if (r.size === 0) continue;
      rotating[product] = r.size;
      rotatingLevels[product] = r.level;
    }
    const allowed = this.#o.onNodes?.(this.#nodes.size, { rotating, rotatingLevels });
    for (const [product, r] of this.#rotations) {
      r.rps = allowed?.rotation[product]?.rps ?? rotationRate(r.size, this.#intervalMs, r.level);
      this.#o.metrics?.rotation?.(product, r.size > 0 ? r.seconds : undefined);
    }
  }

  /**
   * A node whose level changed between full (slots, rounds) and rotating (its product's queue), or between two
   * products' rotations. A poll of it in progress ends where the node now belongs.
   */
  #move(e: Entry, to: Rotation<Entry> | undefined, now: number): void {
    const from = e.rotation;
    if (from) {
      from.queue.remove(e);
      from.size--;
    } else {
      this.#heap.remove(e);
      this.#ready.remove(e);
      this.#cycle.leave(e, now);
      if (e.polls === 0) this.#runs.untrack(this.#nodes.size);
    }
    e.rotation = to;
    if (to) {
      to.size++;
      if (!e.busy) to.queue.push(e);
      return;
    }
    this.#cycle.join(e);
    if (e.polls === 0) this.#runs.track();
    e.due = e.polls === 0 ? now : this.#slotAfter(e, now);
    this.#heap.push(e);
  }

  /**
   * Polls every node on its schedule until `signal` aborts (production: started once per leader). Each node's
   * poll is started when it is due, with at most maxOutstanding in progress; every second it also reports the
   * oldest refresh and looks at the current round.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error('the poller is already running');
    this.#running = true;
    const onAbort = (): void => this.#nudge();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      while (!signal.aborted) {
        const now = this.#o.clock.now();
        this.#dispatchDue(now, signal);
        this.#dispatchRotations(now, signal);
        // How late the loop came to it: a busy event loop runs every timer late (the first time there is no lag).
        const late = now - this.#lastHousekeeping - HOUSEKEEPING_MS;
        if (late >= 0) this.#housekeeping(now, Number.isFinite(late) ? late : 0);
        let at = this.#lastHousekeeping + HOUSEKEEPING_MS;
        const next = this.#heap.peek();
        const blockedUntil = this.#blockedUntil(now);
        const full = this.#outstanding >= this.#o.maxOutstanding;
        const room = !full && blockedUntil === 0 && !this.#budgetFull();
        if (next && room) at = Math.min(at, next.due);
        if (room) for (const r of this.#rotations.values()) at = Math.min(at, r.nextAt(now));
        // Due nodes wait: for the end of the leader's pause (a hold: the next look), or a poll to detach.
        if (this.#ready.size > 0 || (next && next.due <= now)) {
          if (blockedUntil > 0) at = Math.min(at, blockedUntil);
          else if (full) at = Math.min(at, this.#nextDetach(now));
        }
        // Woken at `at`, or earlier by a nudge (a poll finished while all were outstanding, new nodes, stop).
        const woken = new Promise<void>((resolve) => (this.#wake = resolve));
        this.#alarm.set(this.#quantize(Math.max(now + 1, at)));
        await woken;
        this.#wake = undefined;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#alarm.cancel();
      this.#running = false;
    }
  }

  /** Health polls per interval: each full-level node once, and each rotation's share. */
  #pollsPerInterval(): number {
    let polls = this.#nodes.size;
    for (const r of this.#rotations.values()) {
      polls += Math.min(r.size, (r.rps * this.#intervalMs) / 1000) - r.size;
    }
    return polls;
  }

  /** `at` rounded up to the next multiple of the quantum in force for the fleet (quantumFor). */
  #quantize(at: number): number {
    const q = quantumFor(this.#o.quantumMs ?? 0, this.#pollsPerInterval(), this.#intervalMs);
    return q > 0 ? Math.ceil(at / q) * q : at;
  }

  /**
   * One pass: polls every node now (nodes never polled first), as fast as the budget allows, and waits for them.
   * Each node's next scheduled poll then comes at its next slot at least half an interval later. For tests and
   * hand-driven schedules; production runs `run`.
   */
  async runHealthCycle(signal: AbortSignal): Promise<void> {
    const { clock } = this.#o;
    const order = [...this.#nodes.values()]
      .filter((e) => !e.busy)
      .sort((a, b) => (a.polls === 0 ? 0 : 1) - (b.polls === 0 ? 0 : 1) || a.due - b.due);
    let running = 0;
    let wake: (() => void) | undefined;
    const done = (): void => {
      running--;
      wake?.();
      wake = undefined;
    };
    const slot = (): Promise<void> => new Promise((resolve) => (wake = resolve));
    for (const e of order) {
      if (signal.aborted) break;
      while (running >= this.#o.maxOutstanding && !signal.aborted) await slot();
      if (signal.aborted || e.removed || e.busy) continue;
      running++;
      if (e.rotation) e.rotation.queue.remove(e);
      else {
        this.#scheduled(e);
        this.#outOfTurn(e, clock.now());
      }
      const ended = (): void => {
        this.#requeue(e);
        done();
      };
      this.#runs.run(e, signal).then(ended, ended);
    }
    while (running > 0) await slot();
    if (!signal.aborted) this.#housekeeping(clock.now(), 0);
  }

  #add(key: string, startTime: number, now: number, rotation: Rotation<Entry> | undefined): void {
    const e: Entry = {
      key,
      startTime,
      rides: this.#o.poll.rides(),
      polls: 0,
      phase: nodePhase(key, this.#intervalMs),
      due: now,
      heapIndex: -1,
      busy: false,
      sent: false,
      busySince: 0,
      detached: false,
      skipUntil: 0,
      slow: false,
      answered: false,
      lastSuccessMs: undefined,
      turn: -Infinity,
      readyIndex: -1,
      removed: false,
      round: 0,
      rotation,
    };
    this.#nodes.set(key, e);
    if (rotation) {
      rotation.size++;
      rotation.queue.push(e);
      return;
    }
    this.#runs.track();
    this.#heap.push(e);
    this.#cycle.join(e);
  }

  /** A rotating node whose poll ended goes back into its rotation's queue, at its turn (oldest first). */
  #requeue(e: Entry): void {
    if (e.rotation && !e.removed && !e.rotation.queue.has(e)) e.rotation.queue.push(e);
  }

  #remove(e: Entry): void {
    e.removed = true;
    this.#nodes.delete(e.key);
    this.#o.snapshot.deleteNode(e.key);
    if (e.rotation) {
      e.rotation.queue.remove(e);
      e.rotation.size--;
    } else {
      this.#heap.remove(e);
      this.#ready.remove(e);
      this.#cycle.leave(e, this.#o.clock.now());
    }
    this.#runs.forget(e, this.#nodes.size);
  }

  /**
   * A poll at `now` outside the node's slots (its first poll, or a pass): the next slot comes as usual, but one
   * within half an interval is skipped, so that a new fleet's first polls do not double the load of its first
   * interval.
   */
  #outOfTurn(e: Entry, now: number): void {
    e.due = this.#slotAfter(e, now);
    e.skipUntil = now + this.#intervalMs / 2;
    this.#heap.update(e);
  }

  /** The first slot of a node after `t`. */
  #slotAfter(e: Entry, t: number): number {
    const interval = this.#intervalMs;
    return e.phase + (Math.floor((t - e.phase) / interval) + 1) * interval;
  }

  /** A node back in the schedule's heap (not among the due nodes). */
  #scheduled(e: Entry): void {
    if (!this.#ready.has(e)) return;
    this.#ready.remove(e);
    this.#heap.push(e);
  }

  /**
   * Nodes whose slot came join the due nodes, unless their previous poll still runs or they were polled out of turn
   * less than half an interval ago: no request then, and the slot counts as refreshed when that poll was sent (a slow
   * node: late on its own account, not the fleet's) or was out of turn; a poll still waiting for the budget's rate
   * refreshes nothing yet.
   */
  #promoteDue(now: number): void {
    for (;;) {
      const e = this.#heap.peek();
      if (!e || e.due > now) return;
      if (e.busy || (e.polls > 0 && now < e.skipUntil)) {
        e.due = this.#slotAfter(e, now);
        this.#heap.update(e);
        if (e.busy ? e.sent : true) this.#cycle.cover(e, now);
        continue;
      }
      this.#heap.remove(e);
      this.#ready.push(e);
    }
  }

  /** When the leader's budget lets requests go again: 0 when it does now, Infinity while it is held. */
  #blockedUntil(now: number): number {
    const st = this.#o.budget?.state();
    return st?.paused === true && st.pauseUntil > now ? st.pauseUntil : 0;
  }

  /**
   * Starts polls of due nodes, oldest turn first, up to maxOutstanding and while the budget has room; each node's
   * next slot is set as it starts (a first poll's out of turn).
   */
  #dispatchDue(now: number, signal: AbortSignal): void {
    this.#promoteDue(now);
    if (this.#blockedUntil(now) > 0) return;
    for (;;) {
      if (signal.aborted) return;
      const e = this.#ready.peek();
      if (!e) return;
      if (this.#outstanding >= this.#o.maxOutstanding && !this.#detachSlow(now)) return;
      if (this.#budgetFull()) return;
      this.#ready.remove(e);
      this.#heap.push(e);
      if (e.polls === 0) this.#outOfTurn(e, now);
      else {
        e.due = this.#slotAfter(e, now);
        this.#heap.update(e);
      }
      this.#start(e, now, signal);
    }
  }

  /**
   * Starts the polls of rotating nodes whose rotation's pace allows one now, oldest turn first, after the full-level
   * nodes due and under the same bounds (maxOutstanding, the budget's room, its pauses).
   */
  #dispatchRotations(now: number, signal: AbortSignal): void {
    if (this.#rotations.size === 0 || this.#blockedUntil(now) > 0) return;
    for (const r of this.#rotations.values()) {
      for (;;) {
        if (signal.aborted || r.nextAt(now) > now) break;
        if (this.#outstanding >= this.#o.maxOutstanding && !this.#detachSlow(now)) return;
        if (this.#budgetFull()) return;
        const e = r.take(now);
        if (!e) break;
        this.#start(e, now, signal);
      }
    }
  }

  /** Starts a node's poll, counted as outstanding until it ends (or is detached as slow). */
  #start(e: Entry, now: number, signal: AbortSignal): void {
    this.#outstanding++;
    this.#runs.queued();
    e.busySince = now;
    this.#inProgress.add(e);
    const done = (): void => {
      this.#inProgress.delete(e);
      this.#requeue(e);
      if (e.detached) {
        e.detached = false;
        this.#detached--;
        return;
      }
      const full = this.#outstanding >= this.#o.maxOutstanding;
      this.#outstanding--;
      if (full) this.#nudge();
    };
    this.#runs.run(e, signal).then(done, done);
  }

  /**
   * Whether enough polls already wait for the budget: about a quarter interval's worth at the rate it can sustain.
   * Below the fleet's need the due nodes then wait in the schedule, oldest due first (round-robin), rather than in
   * the budget's queue, where a poll can be denied at its deadline and join the back of the queue again.
   */
  #budgetFull(): boolean {
    const capacity = this.#o.budget?.capacityPerSecond();
    if (capacity === undefined) return false;
    return this.#runs.unsent >= Math.max(2, Math.ceil((capacity * this.#intervalMs) / 4000));
  }

  /** Stops counting polls in progress for DETACH_AFTER_MS or more as outstanding; true when one was. */
  #detachSlow(now: number): boolean {
    let freed = false;
    for (const e of this.#inProgress) {
      if (this.#detached >= MAX_DETACHED) break;
      // Only a poll that left the budget can be a slow node; one still waiting for the rate stays counted, so that
      // below the fleet's need the due nodes wait in the schedule, oldest first, rather than pile up in the budget.
      if (e.detached || !e.sent || now - e.busySince < DETACH_AFTER_MS) continue;
      e.detached = true;
      this.#detached++;
      this.#outstanding--;
      freed = true;
    }
    return freed;
  }

  /** When the next poll in progress can be detached (Infinity when none can). */
  #nextDetach(now: number): number {
    if (this.#detached >= MAX_DETACHED) return Infinity;
    let next = Infinity;
    for (const e of this.#inProgress) if (!e.detached && e.sent) next = Math.min(next, e.busySince + DETACH_AFTER_MS);
    return Math.max(next, now + 1);
  }

  /** A poll's primary ended: an answer about the node is its turn; one its pause or hold kept from it waits again. */
  #primaryEnded(e: Entry, res: LeaderResult<unknown>, now: number): void {
    // A round counts a node when its poll is answered, not when it starts: denied or throttled polls end nothing.
    if (aboutNode(res)) {
      e.turn = now;
      if (!e.rotation) this.#cycle.cover(e, now);
    } else if (!e.rotation && this.#blockedUntil(now) > 0 && !this.#ready.has(e)) {
      // Kept from the node by the leader's pause or hold: back among the due nodes, at the head (its turn stays).
      this.#heap.remove(e);
      this.#ready.push(e);
    }
  }

  /** A poll left the budget (or ended without being sent). */
  #sent(): void {
    // Whenever due nodes wait and the budget has room again (its room follows its rate, which may have grown since
    // the loop last looked): a budget left without waiters saves its tokens up for a burst.
    if (this.#ready.size > 0 && !this.#budgetFull()) this.#nudge();
  }

  /**
   * Every second: the oldest refresh among answering nodes, and whether the current round is late. `lagMs`: how late
   * the loop ran it (0 from a hand-driven pass, which has no timer to be late for).
   */
  #housekeeping(now: number, lagMs: number): void {
    this.#lastHousekeeping = now;
    let oldest = now;
    for (const e of this.#nodes.values()) {
      if (e.answered && e.lastSuccessMs !== undefined && e.lastSuccessMs < oldest) oldest = e.lastSuccessMs;
    }
    this.#o.metrics?.pollAgeMax?.((now - oldest) / 1000);
    let waiting = 0;
    let unsent = 0;
    for (const e of this.#inProgress) {
      if (e.rotation || !this.#cycle.holds(e)) continue;
      if (e.sent && !e.slow) waiting++;
      else if (!e.sent && now - e.busySince >= HOUSEKEEPING_MS) unsent++;
    }
    this.#cycle.check(now, this.#runs.slowNodes + waiting, unsent, lagMs);
  }

  #nudge(): void {
    this.#wake?.();
    this.#wake = undefined;
  }
}
