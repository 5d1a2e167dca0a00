import * as z from 'zod';
import { duration } from '../../core/schema-util.js';

/**
 * The search jobs' fault keys (`faults.search`, in scenarios and PATCH /_sim/faults): how long a job is queued and
 * running, its events and outcome, with rules by query. core/faults.ts adds them to the faults.
 */

/** How a search job ends: `hang` keeps it running until it is canceled. */
export type SearchOutcome = 'completed' | 'failed' | 'hang';

/** Overrides for jobs whose query contains `match` (first matching rule wins). */
export interface SearchRule {
  match: string;
  outcome: SearchOutcome;
  runFor?: number | undefined;
  events?: number | undefined;
}

/** How search jobs in /m/default_search behave: queued for `queueFor`, running for `runFor`, then `outcome`. */
export interface SearchBehaviour {
  queueFor: number;
  runFor: number;
  /** Events a completed job has. */
  events: number;
  outcome: SearchOutcome;
  rules: SearchRule[];
}

/** The `search` key of the faults. */
export interface SearchFaults {
  /** Search jobs: timing and outcome. */
  search: SearchBehaviour;
}

const DEFAULT_SEARCH_QUEUE = 500;
const DEFAULT_SEARCH_RUN = 3_000;

export const DEFAULT_SEARCH_FAULTS: Readonly<SearchFaults> = Object.freeze({
  search: Object.freeze({
    queueFor: DEFAULT_SEARCH_QUEUE,
    runFor: DEFAULT_SEARCH_RUN,
    events: 10,
    outcome: 'completed',
    rules: [],
  }),
});

/** Its schema (every key of a patch is optional; a given `search` replaces the whole key). */
export const searchFaultsShape = {
  search: z.strictObject({
    queueFor: duration.default(DEFAULT_SEARCH_QUEUE),
    runFor: duration.default(DEFAULT_SEARCH_RUN),
    events: z.number().int().nonnegative().max(100_000).default(10),
    outcome: z.enum(['completed', 'failed', 'hang']).default('completed'),
    rules: z
      .array(
        z.strictObject({
          match: z.string().min(1),
          outcome: z.enum(['completed', 'failed', 'hang']),
          runFor: duration.optional(),
          events: z.number().int().nonnegative().max(100_000).optional(),
        }),
      )
      .default([]),
  }),
};
