import type { Clock, Random } from '@cribl-exporter/api/clock';
import { inWindow } from './faults.js';
import type { Faults, RateLimitFault, ShareFault, UnavailableFault } from './faults.js';
import type { SimLeaderState } from './fleet.js';
import { isControlPlane } from './route-names.js';
import { parseRate } from './units.js';
import type { RateSpec } from './units.js';

/** Evaluates the current faults for one request: windows, buckets and random shares. */
export class FaultEngine {
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #startedAt: number;
  #faults: Faults;
  #loginSpec: RateSpec | undefined;
  #buckets = new Map<string, { tokens: number; at: number }>();
  #loginWindows = new Map<string, { window: number; count: number }>();

  constructor(clock: Clock, random: Random, startedAt: number, faults: Faults) {
    this.#clock = clock;
    this.#random = random;
    this.#startedAt = startedAt;
    this.#faults = faults;
    this.#loginSpec = faults.loginRateLimit === null ? undefined : parseRate(faults.loginRateLimit);
  }

  /** The faults in force. */
  get faults(): Readonly<Faults> {
    return this.#faults;
  }

  /** Replaces the faults; buckets restart full when the rate limit changes. */
  set(next: Faults): void {
    if (next.rateLimit !== this.#faults.rateLimit) this.#buckets = new Map();
    if (next.loginRateLimit !== this.#faults.loginRateLimit) {
      this.#loginWindows = new Map();
      this.#loginSpec = next.loginRateLimit === null ? undefined : parseRate(next.loginRateLimit);
    }
    this.#faults = next;
  }

  /** The leader's effective state: the manual state, else the first active leader window. */
  leaderState(manual: SimLeaderState): SimLeaderState {
    return this.leaderWindow(manual).state;
  }

  /**
   * The leader's effective state and whether its 420 bodies carry `role`: the manual state (with `manualRole`),
   * else the first active leader window.
   */
  leaderWindow(manual: SimLeaderState, manualRole = true): { state: SimLeaderState; role: boolean } {
    if (manual !== 'healthy') return { state: manual, role: manualRole };
    const windows = this.#faults.leaderWindows;
    if (windows.length > 0) {
      const t = this.#clock.now() - this.#startedAt;
      for (const w of windows) if (inWindow(w, t)) return { state: w.state, role: w.role ?? true };
    }
    return { state: 'healthy', role: true };
  }

  /** Milliseconds until the token bucket has a token for this request, or undefined when it may pass. */
  rateLimit(route: string, client: () => string): number | undefined {
    const rl = this.#faults.rateLimit;
    if (!rl || !appliesDefaultControl(rl, route)) return undefined;
    const key = rl.per === 'client' ? client() : '';
    const now = this.#clock.now();
    let b = this.#buckets.get(key);
    if (!b) this.#buckets.set(key, (b = { tokens: rl.burst, at: now }));
    b.tokens = Math.min(rl.burst, b.tokens + ((now - b.at) * rl.rate) / 1000);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return undefined;
    }
    return Math.ceil(((1 - b.tokens) * 1000) / rl.rate);
  }

  /** Milliseconds until the login window of this client reopens, or undefined when the attempt may pass. */
  loginLimit(client: string): number | undefined {
    const spec = this.#loginSpec;
    if (!spec) return undefined;
    const now = this.#clock.now();
    const window = Math.floor(now / spec.windowMs);
    let w = this.#loginWindows.get(client);
    if (!w || w.window !== window) this.#loginWindows.set(client, (w = { window, count: 0 }));
    if (++w.count <= spec.count) return undefined;
    return (window + 1) * spec.windowMs - now;
  }

  /** The 503 fault when this request should get one. */
  unavailable(route: string): UnavailableFault | undefined {
    const u = this.#faults.unavailable;
    if (!u || !appliesDefaultControl(u, route)) return undefined;
    if (u.windows.length > 0) {
      const t = this.#clock.now() - this.#startedAt;
      for (const w of u.windows) if (inWindow(w, t)) return u;
    }
    return u.share > 0 && this.#random() < u.share ? u : undefined;
  }

  /** Rolls a share fault for this route. */
  roll(fault: ShareFault | null, route: string): boolean {
    if (!fault || fault.share <= 0) return false;
    if (fault.routes && !fault.routes.includes(route)) return false;
    return this.#random() < fault.share;
  }

  /** Latency to add to this request (ms): the route's entry plus the '*' entry. */
  latency(route: string): number {
    const lat = this.#faults.latency;
    let ms = 0;
    const all = lat['*'];
    if (all) ms += all.fixed + this.#random() * all.jitter;
    const own = lat[route];
    if (own) ms += own.fixed + this.#random() * own.jitter;
    return ms;
  }
}

function appliesDefaultControl(f: Pick<RateLimitFault, 'routes'>, route: string): boolean {
  if (f.routes) return f.routes.includes(route);
  return isControlPlane(route) && route !== '/auth/login';
}
