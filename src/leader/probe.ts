/**
 * The 420 hold: a leader that answers 420 outside host context is shutting down or on standby. Every request
 * to it waits (the budget is held) while GET /health is probed, anonymously, outside the budget, one probe at a
 * time, backing off from the probe interval to its maximum, until it answers 200.
 */
import type { Logger } from 'pino';
import { ENDPOINTS } from '../api/routes.js';
import { exchange, type ExchangeContext } from './exchange.js';
import { sleepUntil } from './sleep-until.js';
import type { LeaderRequest } from './types.js';

const PROBE: LeaderRequest<null> = {
  endpoint: ENDPOINTS.leaderHealth,
  path: '/health',
  anonymous: true,
  accept: [200],
  decode: () => null,
};

/** Holds the budget and probes until the leader serves again; one hold at a time. */
export class UnavailableHold {
  readonly #ctx: ExchangeContext;
  readonly #log: Logger;
  readonly #closing: AbortSignal;
  #probing: Promise<void> | undefined;

  constructor(ctx: ExchangeContext, log: Logger, closing: AbortSignal) {
    this.#ctx = ctx;
    this.#log = log;
    this.#closing = closing;
  }

  /** Resolves when no probe runs (for close). */
  idle(): Promise<void> {
    return this.#probing ?? Promise.resolve();
  }

  /** Starts holding and probing, unless already doing so. `serverDelayMs` is the 420's Retry-After. */
  start(serverDelayMs: number | undefined, endpoint: string): void {
    if (this.#probing || this.#closing.aborted) return;
    this.#ctx.budget.hold();
    this.#log.warn(
      { endpoint },
      'leader is not serving (420: shutting down or standby): pausing all requests and probing /health',
    );
    this.#probing = this.#probe(serverDelayMs)
      .catch(() => undefined)
      .finally(() => {
        this.#probing = undefined;
      });
  }

  async #probe(firstServerDelayMs: number | undefined): Promise<void> {
    const { clock, budget, limits } = this.#ctx;
    let serverDelayMs = firstServerDelayMs;
    for (let n = 1; !this.#closing.aborted; n++) {
      const interval = Math.min(limits.healthProbeMaxMs, limits.healthProbeIntervalMs * 2 ** (n - 1));
      await sleepUntil(clock, clock.now() + Math.max(interval, serverDelayMs ?? 0), this.#closing);
      const { attempt } = await exchange(this.#ctx, PROBE, this.#closing, false);
      // A 200 is enough, whatever its body: the leader is serving again.
      if (attempt.status === 200) {
        budget.resume();
        this.#log.info({ probes: n }, 'leader is serving again: resuming requests');
        return;
      }
      serverDelayMs = attempt.ok ? undefined : attempt.serverDelayMs;
      this.#log.debug(
        { probes: n, status: attempt.status, reason: attempt.ok ? undefined : attempt.reason },
        'leader still not serving',
      );
    }
  }
}
