/**
 * Shapes of the real Cribl API's resources the collectors read (the published API spec): git
 * settings and search jobs, as zod schemas with their types; the simulator serves them. Only the fields served or
 * read are described; real leaders may send more. The resources only the simulator serves (packs, pipelines,
 * destinations, …) are in packages/simulator/src/core/resources.ts.
 */
import * as z from 'zod';

const finite = z.number().finite();

/** GET /system/settings/git-settings item (GitSettings); nothing is required. */
export const gitSettingsSchema = z.object({
  branch: z.string().optional(),
  gitOps: z.enum(['none', 'pull', 'push']).optional(),
  /** Remote URL; "" (or absent) when no remote is configured. */
  remote: z.string().optional(),
  authType: z.string().optional(),
  user: z.string().optional(),
  password: z.string().optional(),
  sshKey: z.string().optional(),
  strictHostKeyChecking: z.boolean().optional(),
  autoAction: z.string().optional(),
  autoActionSchedule: z.string().optional(),
  autoActionMessage: z.string().optional(),
  defaultCommitMessage: z.string().optional(),
  commitDeploySingleAction: z.boolean().optional(),
  copilotAutoGitCommitMessages: z.boolean().optional(),
  timeout: finite.optional(),
});
export type GitSettings = z.infer<typeof gitSettingsSchema>;

/** Search job status values; completed, failed and canceled are terminal. */
export const SEARCH_JOB_STATUSES = ['new', 'queued', 'running', 'completed', 'failed', 'canceled'] as const;
export type SearchJobStatus = (typeof SEARCH_JOB_STATUSES)[number];

const relativeTime = z.union([z.string(), finite]);

/** POST /search/jobs body (CreateSearchJobSchema; the spec names query, earliest, latest, sampleRate). */
export const searchJobRequestSchema = z.object({
  query: z.string(),
  earliest: relativeTime.optional(),
  latest: relativeTime.optional(),
  sampleRate: finite.optional(),
  isPrivate: z.boolean().optional(),
});
export type SearchJobRequest = z.infer<typeof searchJobRequestSchema>;

/** A search job (SearchJob). */
export const searchJobSchema = z.object({
  id: z.string().min(1),
  query: z.string(),
  status: z.enum(SEARCH_JOB_STATUSES),
  timeCreated: finite,
  user: z.string(),
  displayUsername: z.string(),
  group: z.string(),
  earliest: relativeTime.optional(),
  latest: relativeTime.optional(),
  sampleRate: finite.optional(),
  isPrivate: z.boolean().optional(),
  type: z.literal('standard').optional(),
  timeStarted: finite.optional(),
  timeCompleted: finite.optional(),
  totalEventCount: finite.optional(),
});
export type SearchJob = z.infer<typeof searchJobSchema>;
