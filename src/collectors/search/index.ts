/**
 * The Cribl Search probe (opt-in `--search.probe-interval`; Cribl.Cloud): POST /m/default_search/search/jobs starts a
 * small search, GET /m/default_search/search/jobs/{id} follows it until it completes, fails or `--search.probe-timeout`
 * passes, and PATCH {status: "canceled"} (spec 4.15.1) stops a job that outlived the probe. One job at a time (the
 * interval runner never overlaps runs); the outcome is the leader's facts of this collector.
 */
import * as z from 'zod';
import { ENDPOINTS, segment } from '@cribl-exporter/api/routes';
import { SEARCH_JOB_STATUSES, type SearchJobRequest, type SearchJobStatus } from '@cribl-exporter/api/resources';
import type { LeaderRequest } from '../../leader/types.js';
import { durationRow, row } from '../../settings/table.js';
import { asIntervalOrOff, asString } from '../../settings/values.js';
import { formatDuration } from '@cribl-exporter/api/duration';
import { collector, factsKey, type RunContext, type ScopeFamily } from '../collector.js';
import { REQUEST_FAILURE_REASONS, requestFailureReason, type RequestFailureReason } from '../failure-reason.js';
import { get } from '../read.js';
import { bit, failureInfo, gaugeOf } from '../sample.js';

export const NAME = 'search';

/** The search context of the spec. */
const JOBS = '/m/default_search/search/jobs';

const jobAnswer = z
  .object({ items: z.array(z.object({ id: z.string().min(1), status: z.enum(SEARCH_JOB_STATUSES) })).min(1) })
  .transform((a) => a.items[0]!);

/** A job as kept: its id and status. */
export type JobState = z.infer<typeof jobAnswer>;

/** Decodes `{count, items:[SearchJob]}`. */
export function decodeJob(json: unknown): JobState {
  return jobAnswer.parse(json);
}

/** Statuses after which a job changes no more. */
export function jobEnded(status: SearchJobStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'canceled';
}

/** POST /m/default_search/search/jobs with the probe's query over the last hour. */
function createJobRequest(query: string, deadline: number, signal?: AbortSignal): LeaderRequest<JobState> {
  const body: SearchJobRequest = { query, earliest: '-1h', latest: 'now', sampleRate: 1 };
  return { ...get(ENDPOINTS.searchJobs, JOBS, decodeJob, deadline, signal), method: 'POST', body: jsonBody(body) };
}

const jsonBody = (payload: unknown) => ({ contentType: 'application/json', payload: JSON.stringify(payload) });

/** GET /m/default_search/search/jobs?limit=1: whether the credentials may read search jobs (`check`; creates none). */
const listJobsRequest = (deadline: number): LeaderRequest<unknown> =>
  get(ENDPOINTS.searchJobs, JOBS, (json) => jobList.parse(json), deadline, undefined, { limit: 1 });
const jobList = z.object({ items: z.array(z.unknown()) });

/** GET /m/default_search/search/jobs/{id}. */
const jobRequest = (id: string, deadline: number, signal?: AbortSignal): LeaderRequest<JobState> =>
  get(ENDPOINTS.searchJob, `${JOBS}/${segment(id)}`, decodeJob, deadline, signal);

/** PATCH /m/default_search/search/jobs/{id} {status: "canceled"}: the spec's way to stop a job. */
const cancelJobRequest = (id: string, deadline: number): LeaderRequest<JobState> => ({
  ...jobRequest(id, deadline),
  method: 'PATCH',
  body: jsonBody({ status: 'canceled' }),
});

/** Why a probe failed: the job failed or was canceled, it outlived the probe (`timeout`), or a request failed. */
export const SEARCH_FAILURE_REASONS: readonly SearchFailureReason[] = [
  ...new Set<SearchFailureReason>(['failed', 'canceled', ...REQUEST_FAILURE_REASONS]),
];
export type SearchFailureReason = 'failed' | 'canceled' | RequestFailureReason;

/** The outcome of the last probe. */
export interface SearchFacts {
  success: boolean;
  /** From the create request to the job's end (or the probe's end). */
  durationMs: number;
  lastSuccessMs?: number;
  failure?: SearchFailureReason;
}

export const searchFacts = factsKey<SearchFacts>(NAME);

/** First wait between two looks at the job; doubled up to POLL_MAX_MS. */
const POLL_FIRST_MS = 500;
const POLL_MAX_MS = 5000;
/** Longest a cancel may take (it is sent once the probe has given up). */
const CANCEL_TIMEOUT_MS = 10_000;

interface Settings {
  readonly intervalMs: number;
  readonly query: string;
  readonly timeoutMs: number;
}

/** One probe: its outcome, or undefined when it was stopped. */
async function probe(ctx: RunContext<Settings>): Promise<SearchFacts | undefined> {
  const { client, clock, logger, signal } = ctx;
  const start = clock.now();
  const deadline = start + ctx.settings.timeoutMs;
  const prev = (ctx.leaderFacts() as SearchFacts | undefined)?.lastSuccessMs;
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
  const created = await client.request(createJobRequest(ctx.settings.query, deadline, signal));
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

const FAMILIES: readonly ScopeFamily[] = [
  gaugeOf(
    'cribl_search_probe_success',
    '1 if the last search probe job completed, 0 if it failed, was canceled, timed out or could not start.',
    (l) => bit(searchFacts.of(l)?.success),
  ),
  gaugeOf(
    'cribl_search_probe_duration_seconds',
    'Duration of the last search probe, from creating the job to its end (or to the probe giving up).',
    (l) => searchFacts.of(l)?.durationMs,
    1000,
  ),
  gaugeOf(
    'cribl_search_probe_last_success_timestamp_seconds',
    'Time of the last search probe whose job completed.',
    (l) => searchFacts.of(l)?.lastSuccessMs,
    1000,
  ),
  failureInfo(
    'cribl_search_probe_failure_info',
    `1 while the last search probe failed, with the reason (${SEARCH_FAILURE_REASONS.join(', ')}).`,
    (l) => (searchFacts.of(l)?.success === false ? searchFacts.of(l)?.failure : undefined),
  ),
];

export const search = collector({
  name: NAME,
  settings: {
    intervalMs: row({
      name: 'search.probe-interval',
      parse: asIntervalOrOff,
      group: 'Collectors',
      kind: 'duration',
      default: '0s',
      help:
        'How often a Cribl Search job is run as a probe (cribl_search_probe_success; Cribl.Cloud); 0s, the default, ' +
        'is off. One job at a time, followed until it ends or --search.probe-timeout.',
    }),
    query: row({
      name: 'search.probe-query',
      parse: asString,
      group: 'Collectors',
      kind: 'string',
      default: 'cribl dataset="cribl_search_sample" | limit 1',
      help: 'Query of the search probe, over the last hour.',
    }),
    timeoutMs: durationRow(
      'search.probe-timeout',
      '30s',
      'Collectors',
      'Longest a search probe waits for its job; a job still running then is canceled and counts as a failure.',
    ),
  },
  check: (s, where) =>
    s.intervalMs > 0 && s.timeoutMs >= s.intervalMs
      ? `${where('search.probe-timeout')} (${formatDuration(s.timeoutMs)}) must be shorter than ` +
        `${where('search.probe-interval')} (${formatDuration(s.intervalMs)}): one probe at a time`
      : undefined,
  enabled: (s) => s.intervalMs > 0,
  optional: true,
  freshness: (s) =>
    `Probed every ${s.intervalMs > 0 ? formatDuration(s.intervalMs) : 'interval (off by default)'} through the ` +
    'leader; cached between probes.',
  families: { leader: FAMILIES },
  schedule: {
    kind: 'interval',
    intervalMs: (s) => s.intervalMs,
    run: async (ctx) => {
      const facts = await probe(ctx);
      if (facts && !ctx.signal.aborted) ctx.setLeaderFacts(facts);
    },
  },
  probe: (_s, _g, deadline) => listJobsRequest(deadline),
});
