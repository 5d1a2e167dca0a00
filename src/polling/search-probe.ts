/**
 * The Cribl Search probe (`--search.probe-interval`): one job at a time, created, followed until it completes,
 * fails or `--search.probe-timeout` passes (then canceled), through the leader's client and budget. The outcome
 * goes to the store's leader state.
 */
import type { Logger } from 'pino';
import { requestFailureReason } from '../collectors/failure-reason.js';
import {
  cancelJobRequest,
  createJobRequest,
  jobEnded,
  jobRequest,
  type JobState,
  type SearchFacts,
  type SearchFailureReason,
} from '../collectors/search.js';
import type { LeaderClient } from '../leader/types.js';
import type { LeaderSnapshot } from '../store/snapshot.js';
import type { Clock } from '../util/clock.js';

export interface SearchProbeOptions {
  client: LeaderClient;
  snapshot: Pick<LeaderSnapshot, 'setLeader' | 'leader'>;
  clock: Clock;
  logger: Logger;
  query: string;
  timeoutMs: number;
}

/** First wait between two looks at the job; doubled up to POLL_MAX_MS. */
const POLL_FIRST_MS = 500;
const POLL_MAX_MS = 5000;
/** Longest a cancel may take (it is sent once the probe has given up). */
const CANCEL_TIMEOUT_MS = 10_000;

/** Runs probes; a run that starts while one is in progress does nothing (never two jobs in flight). */
export class SearchProbe {
  readonly #o: SearchProbeOptions;
  #running = false;

  constructor(opts: SearchProbeOptions) {
    this.#o = opts;
  }

  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      const facts = await this.#probe(signal);
      if (facts && !signal.aborted) this.#o.snapshot.setLeader({ search: facts });
    } finally {
      this.#running = false;
    }
  }

  async #probe(signal: AbortSignal): Promise<SearchFacts | undefined> {
    const { client, clock, query, timeoutMs, logger } = this.#o;
    const start = clock.now();
    const deadline = start + timeoutMs;
    const prev = this.#o.snapshot.leader()?.search?.lastSuccessMs;
    const outcome = (failure?: SearchFailureReason): SearchFacts => {
      const end = clock.now();
      const lastSuccessMs = failure ? prev : end;
      if (failure) logger.debug({ reason: failure }, 'search probe failed');
      return {
        success: !failure,
        durationMs: end - start,
        ...(lastSuccessMs === undefined ? {} : { lastSuccessMs }),
        ...(failure ? { failure } : {}),
      };
    };
    const created = await client.request(createJobRequest(query, deadline, signal));
    if (signal.aborted) return undefined;
    if (!created.ok) return outcome(requestFailureReason(created));
    let job: JobState = created.body;
    let wait = POLL_FIRST_MS;
    let failure: SearchFailureReason | undefined;
    while (!jobEnded(job.status)) {
      if (clock.now() + wait >= deadline) {
        failure = 'timeout';
        break;
      }
      await clock.sleep(wait, signal).catch(() => undefined);
      if (signal.aborted) break;
      wait = Math.min(POLL_MAX_MS, wait * 2);
      const res = await client.request(jobRequest(job.id, deadline, signal));
      if (!res.ok) {
        failure = requestFailureReason(res);
        break;
      }
      job = res.body;
    }
    if (!jobEnded(job.status)) {
      // Given up (or stopping): the job must not run on unwatched, so the next probe is the only one in flight.
      await client.request(cancelJobRequest(job.id, clock.now() + CANCEL_TIMEOUT_MS));
      if (signal.aborted) return undefined;
      return outcome(failure ?? 'timeout');
    }
    if (job.status === 'completed') return outcome();
    return outcome(job.status === 'failed' ? 'failed' : 'canceled');
  }
}
