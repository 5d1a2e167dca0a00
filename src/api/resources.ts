/**
 * Shapes of the real Cribl API's configuration and search resources (shared/research/api-shapes.md §5, §15–§22,
 * spec 4.19 and the 4.15.1 in-product spec): git settings, commit history info, packs, pipelines, destinations,
 * search jobs and management-plane workspace requests, as zod schemas with their types. Served by the simulator,
 * read by the collectors. Only the fields served or read are described; real leaders may send more.
 */
import * as z from 'zod';

const finite = z.number().finite();

/** `{count, items}` envelope of single-item and unpaged answers (CountedX in spec 4.19). */
export interface Counted<T> {
  count: number;
  items: T[];
}

/** A `{count, items}` envelope around `item`. */
export const countedSchema = <T extends z.ZodType>(item: T) => z.object({ count: z.number(), items: z.array(item) });

/** GET /system/settings/git-settings item (GitSettings, §15); nothing is required. */
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

/** GET /m/{group}/version/info item (§5). */
export const versionInfoSchema = z.object({ versioning: z.boolean(), remote: z.union([z.string(), z.literal(false)]) });
export type VersionInfo = z.infer<typeof versionInfoSchema>;

/** Pack (PackInfo, §16.4): `id` and `source` are required. */
export const packInfoSchema = z.object({
  id: z.string().min(1),
  source: z.string(),
  version: z.string().optional(),
  displayName: z.string().optional(),
  author: z.string().optional(),
  description: z.string().optional(),
  minLogStreamVersion: z.string().optional(),
  spec: z.string().optional(),
  exports: z.array(z.string()).optional(),
  dependencies: z.record(z.string(), z.string()).optional(),
  isDisabled: z.boolean().optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  tags: z
    .object({
      dataType: z.array(z.string()).optional(),
      domain: z.array(z.string()).optional(),
      streamtags: z.array(z.string()).optional(),
      technology: z.array(z.string()).optional(),
    })
    .optional(),
  /** Only with `?with=inputs,outputs,collectors`. */
  inputs: finite.optional(),
  outputs: finite.optional(),
  collectors: finite.optional(),
});
export type PackInfo = z.infer<typeof packInfoSchema>;

/** One Function of a Pipeline (§17); no other keys are allowed. */
export const pipelineFunctionSchema = z.object({
  id: z.string(),
  conf: z.record(z.string(), z.unknown()),
  filter: z.string().optional(),
  description: z.string().optional(),
  disabled: z.boolean().optional(),
  final: z.boolean().optional(),
  groupId: z.string().optional(),
});
export type PipelineFunction = z.infer<typeof pipelineFunctionSchema>;

/** A Pipeline inside a Pack (§17); `conf` allows no other keys. */
export const pipelineSchema = z.object({
  id: z.string().min(1),
  conf: z.object({
    asyncFuncTimeout: finite.optional(),
    output: z.string().optional(),
    description: z.string().optional(),
    streamtags: z.array(z.string()).optional(),
    functions: z.array(pipelineFunctionSchema).optional(),
    groups: z
      .record(
        z.string(),
        z.object({ name: z.string(), description: z.string().optional(), disabled: z.boolean().optional() }),
      )
      .optional(),
  }),
});
export type Pipeline = z.infer<typeof pipelineSchema>;

/** A Destination (Output, §18): a union discriminated by `type`; every other field depends on the type. */
export const outputSchema = z.looseObject({ id: z.string().min(1), type: z.string().min(1) });
export type Output = z.infer<typeof outputSchema>;

/** Search job status values (§19.5); completed, failed and canceled are terminal. */
export const SEARCH_JOB_STATUSES = ['new', 'queued', 'running', 'completed', 'failed', 'canceled'] as const;
export type SearchJobStatus = (typeof SEARCH_JOB_STATUSES)[number];

const relativeTime = z.union([z.string(), finite]);

/** POST /search/jobs body (CreateSearchJobSchema, §19.3; the spec's §4 names query, earliest, latest, sampleRate). */
export const searchJobRequestSchema = z.object({
  query: z.string(),
  earliest: relativeTime.optional(),
  latest: relativeTime.optional(),
  sampleRate: finite.optional(),
  isPrivate: z.boolean().optional(),
});
export type SearchJobRequest = z.infer<typeof searchJobRequestSchema>;

/** A search job (SearchJob, §19.4). */
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

/** GET /search/jobs/{id}/status: a bare StatusResponse (§19.6). */
export const searchJobStatusResponseSchema = z.object({
  status: z.enum(SEARCH_JOB_STATUSES),
  timeCreated: finite,
  timeStarted: finite.optional(),
  timeCompleted: finite.optional(),
  timeNow: finite.optional(),
  eventsFound: finite.optional(),
});
export type SearchJobStatusResponse = z.infer<typeof searchJobStatusResponseSchema>;

/** First NDJSON line of GET /search/jobs/{id}/results (SearchJobResults, §19.7); every further line is one event. */
export interface SearchJobResultsHeader {
  isFinished: boolean;
  job: Pick<
    SearchJob,
    'id' | 'query' | 'status' | 'timeCreated' | 'earliest' | 'latest' | 'timeStarted' | 'timeCompleted'
  >;
  offset: number;
  limit?: number;
  persistedEventCount: number;
  totalEventCount: number;
}

/** Management plane: POST …/workspaces body (WorkspaceCreateRequestDTO, §22). */
export const workspaceCreateRequestSchema = z.object({
  workspaceId: z.string().min(1),
  alias: z.string().optional(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
});
export type WorkspaceCreateRequest = z.infer<typeof workspaceCreateRequestSchema>;

/** Management plane: PATCH …/workspaces/{id} body (WorkspacePatchRequestDTO, §22): a partial update. */
export type WorkspacePatchRequest = Omit<WorkspaceCreateRequest, 'workspaceId'>;
