/**
 * The simulated leader as an HA pair (or more hosts) over one fleet, optionally behind a load balancer: each host is
 * primary, standby (every control-plane request, /health included, answers 420 standby) or down (its connections are
 * reset). A failover makes the primary standby at once and another host primary after a gap with no primary. States
 * are worked out from the clock when asked (no timers), so a fake clock drives them exactly.
 */
import type { Clock } from '@cribl-exporter/api/clock';

export type HaHostState = 'primary' | 'standby' | 'down';

export const HA_HOST_STATES: readonly HaHostState[] = ['primary', 'standby', 'down'];

/** A failover of a scenario: at `start` (ms since the simulator started), with `gap` ms of no primary. */
export interface HaFailover {
  start: number;
  gap: number;
  /** The host that becomes primary; default the next host that is up after the primary. */
  to?: number | undefined;
  /** The old primary goes down (a crash) rather than standby. */
  down?: boolean | undefined;
}

/** The HA settings of a scenario or of startSimulator. */
export interface HaOptions {
  /** Leader hosts (at least 2). @default 2 */
  hosts?: number;
  /** A load-balancer address in front of them (it sends each request to the primary). @default false */
  loadBalancer?: boolean;
  /** Failovers on the clock. */
  failovers?: HaFailover[];
}

/** What one host served (control-plane requests other than /health, while it was primary). */
export interface HostServed {
  requests: number;
  /** Simulator clock time of the first and the last. */
  firstMs?: number;
  lastMs?: number;
}

export class HaModel {
  readonly size: number;
  readonly loadBalancer: boolean;
  readonly #clock: Clock;
  readonly #startedAt: number;
  readonly #states: HaHostState[];
  readonly #scheduled: HaFailover[];
  #promote: { host: number; at: number } | undefined;
  #served: HostServed[];

  constructor(opts: HaOptions, clock: Clock, startedAt: number) {
    this.size = opts.hosts ?? 2;
    if (!Number.isInteger(this.size) || this.size < 2 || this.size > 9) {
      throw new Error(`ha.hosts must be an integer from 2 to 9 (got ${this.size})`);
    }
    this.loadBalancer = opts.loadBalancer === true;
    this.#clock = clock;
    this.#startedAt = startedAt;
    this.#states = Array.from({ length: this.size }, (_, i) => (i === 0 ? 'primary' : 'standby'));
    this.#scheduled = [...(opts.failovers ?? [])].sort((a, b) => a.start - b.start);
    for (const f of this.#scheduled) this.#checkHost(f.to);
    this.#served = this.#states.map(() => ({ requests: 0 }));
  }

  /** Each host's state now. */
  states(): HaHostState[] {
    this.#settle();
    return [...this.#states];
  }

  state(host: number): HaHostState {
    this.#settle();
    return this.#states[host] ?? 'down';
  }

  /** When the pending promotion happens (a failover's gap), or undefined. */
  pending(): { host: number; at: number } | undefined {
    this.#settle();
    return this.#promote && { ...this.#promote };
  }

  /**
   * Fails over now: the primary becomes standby (or, `down`, goes down), `to` (default the next host up) primary after
   * `gapMs`.
   */
  failover(gapMs = 0, to?: number, down = false): void {
    this.#settle();
    this.#checkHost(to);
    this.#failover(this.#clock.now(), gapMs, to, down);
    this.#settle();
  }

  /** Sets one host's state (cancels a promotion pending for it). */
  set(host: number, state: HaHostState): void {
    this.#settle();
    this.#checkHost(host);
    this.#states[host] = state;
    if (this.#promote?.host === host) this.#promote = undefined;
  }

  /** The host a load balancer sends to: the first primary, else the first host up; undefined when all are down. */
  route(): number | undefined {
    const states = this.states();
    const primary = states.indexOf('primary');
    if (primary >= 0) return primary;
    const up = states.indexOf('standby');
    return up >= 0 ? up : undefined;
  }

  /** Counts a request a host served. */
  noteServed(host: number): void {
    const s = this.#served[host];
    if (!s) return;
    const now = this.#clock.now();
    s.requests++;
    s.firstMs ??= now;
    s.lastMs = now;
  }

  served(): HostServed[] {
    return this.#served.map((s) => ({ ...s }));
  }

  resetServed(): void {
    this.#served = this.#states.map(() => ({ requests: 0 }));
  }

  #checkHost(host: number | undefined): void {
    if (host !== undefined && (!Number.isInteger(host) || host < 0 || host >= this.size)) {
      throw new Error(`ha: no host ${host} (hosts are 0 to ${this.size - 1})`);
    }
  }

  #failover(atMs: number, gapMs: number, to: number | undefined, down: boolean): void {
    const from = this.#states.indexOf('primary');
    for (let i = 0; i < this.size; i++) if (this.#states[i] === 'primary') this.#states[i] = down ? 'down' : 'standby';
    let target = to;
    if (target === undefined) {
      for (let k = 1; k <= this.size; k++) {
        const i = (Math.max(from, 0) + k) % this.size;
        if (this.#states[i] !== 'down' && i !== from) {
          target = i;
          break;
        }
      }
    }
    this.#promote = target === undefined ? undefined : { host: target, at: atMs + gapMs };
  }

  /** Applies the scheduled failovers and the promotion whose time has come, in time order. */
  #settle(): void {
    const now = this.#clock.now();
    for (;;) {
      const next = this.#scheduled[0];
      const nextAt = next === undefined ? Infinity : this.#startedAt + next.start;
      const promote = this.#promote;
      if (promote && promote.at <= now && promote.at <= nextAt) {
        this.#promote = undefined;
        if (this.#states[promote.host] !== 'down') this.#states[promote.host] = 'primary';
        continue;
      }
      if (next && nextAt <= now) {
        this.#scheduled.shift();
        this.#failover(nextAt, next.gap, next.to, next.down === true);
        continue;
      }
      return;
    }
  }
}
