import type { Random } from '@cribl-exporter/api/clock';
import type { SearchJob, SearchJobRequest, SearchJobStatus } from '@cribl-exporter/api/resources';
import type { SearchJobResultsHeader, SearchJobStatusResponse } from '../../core/resources.js';
import type { SearchBehaviour, SearchOutcome } from './faults.js';

/** The search group of Cribl.Cloud: search routes live under /m/default_search only. */
export const SEARCH_GROUP = 'default_search';

/** "Search history job limit": the oldest jobs go beyond it. */
const JOB_LIMIT = 1000;

interface JobRec {
  request: SearchJobRequest;
  id: string;
  user: string;
  created: number;
  queueFor: number;
  runFor: number;
  events: number;
  outcome: SearchOutcome;
  /** Set by cancel (or a PATCH to completed): the job ends then with this status. */
  ended?: { at: number; status: 'canceled' | 'completed' };
}

/** A job's state at one instant. */
interface JobState {
  status: SearchJobStatus;
  started?: number;
  completed?: number;
  /** Events found so far. */
  events: number;
}

const TERMINAL: ReadonlySet<SearchJobStatus> = new Set(['completed', 'failed', 'canceled']);

/** True for completed, failed and canceled. */
export function isTerminal(status: SearchJobStatus): boolean {
  return TERMINAL.has(status);
}

/**
 * Search jobs of the simulated Cribl Search: each job's status is a function of the injected clock (new at
 * creation, queued for `queueFor`, running for `runFor`, then its outcome; `hang` runs until canceled), so
 * tests drive it with FakeClock.advance. Ids look like real ad-hoc ids: `<epoch-ms>.<6 letters>`.
 */
export class SearchJobs {
  readonly #random: Random;
  readonly #jobs = new Map<string, JobRec>();

  constructor(random: Random) {
    this.#random = random;
  }

  /** Creates a job following `behaviour` (its first matching rule, if any); returns its id. */
  create(request: SearchJobRequest, user: string, now: number, behaviour: SearchBehaviour): string {
    const rule = behaviour.rules.find((r) => request.query.includes(r.match));
    let suffix = '';
    for (let i = 0; i < 6; i++) suffix += String.fromCharCode(97 + Math.floor(this.#random() * 26));
    const id = `${now}.${suffix}`;
    this.#jobs.set(id, {
      request: { ...request },
      id,
      user,
      created: now,
      queueFor: behaviour.queueFor,
      runFor: rule?.runFor ?? behaviour.runFor,
      events: rule?.events ?? behaviour.events,
      outcome: rule?.outcome ?? behaviour.outcome,
    });
    if (this.#jobs.size > JOB_LIMIT) this.#jobs.delete(this.#jobs.keys().next().value as string);
    return id;
  }

  has(id: string): boolean {
    return this.#jobs.has(id);
  }

  /** Every job id, oldest first. */
  ids(): string[] {
    return [...this.#jobs.keys()];
  }

  /** Cancels a job that has not ended (no effect on an ended one); false for unknown ids. */
  cancel(id: string, now: number): boolean {
    const job = this.#jobs.get(id);
    if (!job) return false;
    if (!isTerminal(this.#state(job, now).status)) job.ended = { at: now, status: 'canceled' };
    return true;
  }

  /** Ends a running job as completed now (PATCH {status:"completed"}). */
  complete(id: string, now: number): boolean {
    const job = this.#jobs.get(id);
    if (!job) return false;
    if (!isTerminal(this.#state(job, now).status)) job.ended = { at: now, status: 'completed' };
    return true;
  }

  /** Sets isPrivate. */
  setPrivate(id: string, isPrivate: boolean): void {
    const job = this.#jobs.get(id);
    if (job) job.request.isPrivate = isPrivate;
  }

  delete(id: string): boolean {
    return this.#jobs.delete(id);
  }

  /** Forgets every job. */
  reset(): void {
    this.#jobs.clear();
  }

  /** The SearchJob object at `now`; `fresh` shows a just-created job as `new`. */
  job(id: string, now: number, fresh = false): SearchJob | undefined {
    const job = this.#jobs.get(id);
    if (!job) return undefined;
    const st: JobState = fresh ? { status: 'new', events: 0 } : this.#state(job, now);
    const out: SearchJob = {
      id: job.id,
      query: job.request.query,
      status: st.status,
      timeCreated: job.created,
      user: job.user,
      displayUsername: job.user,
      group: SEARCH_GROUP,
      type: 'standard',
      isPrivate: job.request.isPrivate ?? true,
      sampleRate: job.request.sampleRate ?? 1,
    };
    if (job.request.earliest !== undefined) out.earliest = job.request.earliest;
    if (job.request.latest !== undefined) out.latest = job.request.latest;
    if (st.started !== undefined) out.timeStarted = st.started;
    if (st.completed !== undefined) out.timeCompleted = st.completed;
    if (isTerminal(st.status)) out.totalEventCount = st.events;
    return out;
  }

  /** GET /search/jobs/{id}/status: the bare StatusResponse. */
  status(id: string, now: number): SearchJobStatusResponse | undefined {
    const job = this.#jobs.get(id);
    if (!job) return undefined;
    const st = this.#state(job, now);
    const out: SearchJobStatusResponse = {
      status: st.status,
      timeCreated: job.created,
      timeNow: now,
      eventsFound: st.events,
    };
    if (st.started !== undefined) out.timeStarted = st.started;
    if (st.completed !== undefined) out.timeCompleted = st.completed;
    return out;
  }

  /** GET /search/jobs/{id}/results: the NDJSON header line and the events of the requested page. */
  results(id: string, now: number, offset: number, limit: number | undefined): string | undefined {
    const job = this.#jobs.get(id);
    if (!job) return undefined;
    const st = this.#state(job, now);
    const end = limit === undefined ? st.events : Math.min(st.events, offset + limit);
    const header: SearchJobResultsHeader = {
      isFinished: isTerminal(st.status),
      job: { id: job.id, query: job.request.query, status: st.status, timeCreated: job.created },
      offset,
      persistedEventCount: st.events,
      totalEventCount: st.events,
    };
    if (job.request.earliest !== undefined) header.job.earliest = job.request.earliest;
    if (job.request.latest !== undefined) header.job.latest = job.request.latest;
    if (st.started !== undefined) header.job.timeStarted = st.started;
    if (st.completed !== undefined) header.job.timeCompleted = st.completed;
    if (limit !== undefined) header.limit = limit;
    const lines = [JSON.stringify(header)];
    const base = Math.floor(job.created / 1000) - 3600;
    for (let i = offset; i < end; i++) {
      // _time in epoch seconds, as Cribl Search sends it.
      const raw = `simulated event ${i + 1} for ${job.id}`;
      const event = { _time: base + i, _raw: raw, dataSource: 'cribl_search_sample' };
      lines.push(JSON.stringify(event));
    }
    return lines.join('\n') + '\n';
  }

  #state(job: JobRec, now: number): JobState {
    const started = job.created + job.queueFor;
    const finish = started + job.runFor;
    const progress = (t: number): number =>
      job.runFor <= 0
        ? job.events
        : Math.min(job.events, Math.floor((job.events * Math.max(0, t - started)) / job.runFor));
    if (job.ended && job.ended.at <= now) {
      const at = job.ended.at;
      const events = job.ended.status === 'completed' ? job.events : progress(at);
      const st: JobState = { status: job.ended.status, completed: at, events };
      if (at >= started) st.started = started;
      return st;
    }
    if (now < started) return { status: 'queued', events: 0 };
    if (job.outcome === 'hang' || now < finish) {
      return { status: 'running', started, events: job.outcome === 'hang' ? 0 : progress(now) };
    }
    if (job.outcome === 'failed') return { status: 'failed', started, completed: finish, events: 0 };
    return { status: 'completed', started, completed: finish, events: job.events };
  }
}
