/**
 * The 420 hold: a leader that answers 420 outside host context is shutting down or on standby. Every request
 * to it waits (the budget is held) while GET /health is probed, anonymously, outside the budget, one probe at a
 * time, backing off from the probe interval to its maximum, until it answers 200. Each answer (200, or 420 with
 * the leader's state) goes to `onAnswer` when one is given: the leader's health families stay current meanwhile.
 */
import type { Logger } from 'pino';
import { ENDPOINTS } from '../api/routes.js';
import { exchange, type ExchangeContext } from './exchange.js';
import { sleepUntil } from '../util/timer.js';
import type { LeaderRequest } from './types.js';

const PROBE: LeaderRequest<null> = {
  endpoint: ENDPOINTS.leaderHealth,
  path: '/health',
  anonymous: true,
  accept: [200],
  decode: () => null,
};

// With an observer, a 420's body (standby or shutting down) is an answer too. It then loses the 420's Retry-After,
// which Cribl does not document for 420 (research note §3) and the simulated leader never sends.
const OBSERVED_PROBE: LeaderRequest<unknown> = { ...PROBE, accept: [200, 420], decode: (json) => json };

/** Called with each answer of the probe: its status (200 or 420) and its JSON. */
export type ProbeObserver = (status: number, json: unknown) => void;

/** Holds the budget and probes until the leader serves again; one hold at a time. */
export class UnavailableHold {
  readonly #ctx: ExchangeContext;
  readonly #log: Logger;
  readonly #closing: AbortSignal;
  #probing: Promise<void> | undefined;

  readonly #onAnswer: ProbeObserver | undefined;

  constructor(ctx: ExchangeContext, log: Logger, closing: AbortSignal, onAnswer?: ProbeObserver) {
    this.#ctx = ctx;
    this.#log = log;
    this.#closing = closing;
    this.#onAnswer = onAnswer;
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
      const probe = this.#onAnswer ? OBSERVED_PROBE : PROBE;
      const { attempt } = await exchange<unknown>(this.#ctx, probe, this.#closing, false);
      if (attempt.ok) this.#onAnswer?.(attempt.status, attempt.body);
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
