/**
 * The 420 hold: a leader that answers 420 outside host context is shutting down or on standby. Every request
 * to it waits (the budget is held) while GET /health is probed, anonymously, outside the budget, one probe at a
 * time, backing off from the probe interval to its maximum (15 s, or the interval when longer), until it answers
 * 200; a 420's Retry-After is honoured (up to `maxPauseMs`). Each answer (200, or 420 with the leader's state) goes
 * to `onAnswer` when one is given: the leader's health families stay current meanwhile.
 *
 * With HA hosts (src/leader/hosts.ts), every probe reads all of them, at the probe interval without backoff (a
 * failover is a matter of seconds). Without a load balancer (the API address is one of the hosts) the hosts' round is
 * the probe, without Retry-After (a standby's says nothing of the other hosts): the hold ends as soon as the host in
 * use serves, or another host serves as the primary and requests follow it.
 */
import type { Logger } from 'pino';
import { ENDPOINTS } from '@cribl-exporter/api/routes';
import { exchange, type ExchangeContext } from './exchange.js';
import type { HostWatch } from './hosts.js';
import { parseRetryAfter } from '../http/retry-after.js';
import { sleepUntil } from '../util/timer.js';
import type { LeaderRequest } from './types.js';

const PROBE: LeaderRequest<null> = {
  endpoint: ENDPOINTS.leaderHealth,
  path: '/health',
  anonymous: true,
  accept: [200],
  decode: () => null,
};

/** A probe's answer: the JSON and a 420's Retry-After (Cribl does not document one for 420). */
interface Observed {
  json: unknown;
  retryAfterMs: number | undefined;
}

// With an observer, a 420's body (standby or shutting down) is an answer too, with its Retry-After.
const observedProbe = (nowMs: () => number): LeaderRequest<Observed> => ({
  endpoint: PROBE.endpoint,
  path: PROBE.path,
  anonymous: true,
  accept: [200, 420],
  decode: (json, status, headers) => ({
    json,
    retryAfterMs: status === 420 ? parseRetryAfter(headers, nowMs()) : undefined,
  }),
});

/** Called with each answer of the probe: its status (200 or 420) and its JSON. */
export type ProbeObserver = (status: number, json: unknown) => void;

/** Holds the budget and probes until the leader serves again; one hold at a time. */
export class UnavailableHold {
  readonly #ctx: ExchangeContext;
  readonly #log: Logger;
  readonly #closing: AbortSignal;
  #probing: Promise<void> | undefined;

  readonly #onAnswer: ProbeObserver | undefined;
  readonly #hosts: HostWatch | undefined;

  constructor(ctx: ExchangeContext, log: Logger, closing: AbortSignal, onAnswer?: ProbeObserver, hosts?: HostWatch) {
    this.#ctx = ctx;
    this.#log = log;
    this.#closing = closing;
    this.#onAnswer = onAnswer;
    this.#hosts = hosts;
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
    const hosts = this.#hosts;
    const follow = hosts?.direct === true;
    const capped = (ms: number | undefined): number =>
      ms === undefined || follow ? 0 : Math.min(ms, limits.maxPauseMs);
    let serverDelayMs = firstServerDelayMs;
    for (let n = 1; !this.#closing.aborted; n++) {
      // With HA hosts the probe looks for a new primary: it stays at the interval.
      const backoff = hosts ? 1 : 2 ** (n - 1);
      const interval = Math.min(limits.healthProbeMaxMs, limits.healthProbeIntervalMs * backoff);
      await sleepUntil(clock, clock.now() + Math.max(interval, capped(serverDelayMs)), this.#closing);
      if (hosts) await hosts.read();
      let status: number | undefined;
      if (follow) {
        // The round was the probe: the host in use (maybe a new one) said how it is.
        const answer = hosts.inUseAnswer();
        if (answer) this.#onAnswer?.(answer.status, answer.json);
        status = answer?.status;
      } else {
        const probe = this.#onAnswer ? observedProbe(() => clock.now()) : PROBE;
        const { attempt } = await exchange<Observed | null>(this.#ctx, probe, this.#closing, false);
        if (attempt.ok && attempt.body) this.#onAnswer?.(attempt.status, attempt.body.json);
        status = attempt.ok ? attempt.status : undefined;
        serverDelayMs = attempt.ok ? (attempt.body?.retryAfterMs ?? undefined) : attempt.serverDelayMs;
      }
      // A 200 is enough, whatever its body: the leader is serving again.
      if (status === 200) {
        budget.resume();
        this.#log.info({ probes: n, host: hosts?.inUse }, 'leader is serving again: resuming requests');
        return;
      }
      this.#log.debug({ probes: n, status }, 'leader still not serving');
    }
  }
}
