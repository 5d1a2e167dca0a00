/**
 * The Cribl Search probe (opt-in `--search.probe-interval`; Cribl.Cloud): POST /m/default_search/search/jobs
 * starts a small search, GET /m/default_search/search/jobs/{id} follows it until it completes, fails or the probe
 * times out, and PATCH {status: "canceled"} (spec 4.15.1) stops a job that outlived the probe. The requests here;
 * the probe's run is src/polling/search-probe.ts.
 */
import * as z from 'zod';
import { ENDPOINTS, segment } from '../api/routes.js';
import { SEARCH_JOB_STATUSES, type SearchJobRequest, type SearchJobStatus } from '../api/resources.js';
import { series, type Family } from '../format/family.js';
import type { LeaderRequest } from '../leader/types.js';
import { REQUEST_FAILURE_REASONS, type RequestFailureReason } from './failure-reason.js';
import { gauge, q, gaugeFamily } from './sample.js';
import type { LeaderState } from './state.js';

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
export function createJobRequest(query: string, deadline: number, signal?: AbortSignal): LeaderRequest<JobState> {
  const body: SearchJobRequest = { query, earliest: '-1h', latest: 'now', sampleRate: 1 };
  return {
    method: 'POST',
    endpoint: ENDPOINTS.searchJobs,
    path: JOBS,
    body: { contentType: 'application/json', payload: JSON.stringify(body) },
    deadline,
    decode: decodeJob,
    ...(signal ? { signal } : {}),
  };
}

/** GET /m/default_search/search/jobs/{id}. */
export function jobRequest(id: string, deadline: number, signal?: AbortSignal): LeaderRequest<JobState> {
  return {
    endpoint: ENDPOINTS.searchJob,
    path: `${JOBS}/${segment(id)}`,
    deadline,
    decode: decodeJob,
    ...(signal ? { signal } : {}),
  };
}

/** PATCH /m/default_search/search/jobs/{id} {status: "canceled"}: the spec's way to stop a job. */
export function cancelJobRequest(id: string, deadline: number): LeaderRequest<JobState> {
  return {
    method: 'PATCH',
    endpoint: ENDPOINTS.searchJob,
    path: `${JOBS}/${segment(id)}`,
    body: { contentType: 'application/json', payload: JSON.stringify({ status: 'canceled' }) },
    deadline,
    decode: decodeJob,
  };
}

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

/** Leader families of the search probe, in body order; absent while the probe is off or has not run. */
export const SEARCH_FAMILIES: readonly Family<LeaderState>[] = [
  {
    name: 'cribl_search_probe_success',
    source: 'search',
    what: '1 if the last search probe job completed, 0 if it failed, was canceled, timed out or could not start.',
    labels: [],
    sample: (l, base) => (l.search ? gauge('cribl_search_probe_success', base, l.search.success ? 1 : 0) : ''),
  },
  gaugeFamily(
    'cribl_search_probe_duration_seconds',
    'search',
    'Duration of the last search probe, from creating the job to its end (or to the probe giving up).',
    (l) => l.search?.durationMs,
    1000,
  ),
  gaugeFamily(
    'cribl_search_probe_last_success_timestamp_seconds',
    'search',
    'Time of the last search probe whose job completed.',
    (l) => l.search?.lastSuccessMs,
    1000,
  ),
  {
    name: 'cribl_search_probe_failure_info',
    source: 'search',
    what: `1 while the last search probe failed, with the reason (${SEARCH_FAILURE_REASONS.join(', ')}).`,
    labels: ['reason'],
    sample: (l, base) => {
      const f = l.search?.failure;
      return l.search && !l.search.success && f !== undefined
        ? `${series('cribl_search_probe_failure_info', base, `reason=${q(f)}`)} 1\n`
        : '';
    },
  },
];
