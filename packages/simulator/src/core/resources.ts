/**
 * Shapes of the real Cribl API's configuration and search resources that only the simulated leader serves
 * (the published API spec; test/simulator/schemas.test.ts): commit history, packs, pipelines, destinations, search job
 * status and results, and management-plane workspace requests, as zod schemas with their types.
 */
import * as z from 'zod';
import { SEARCH_JOB_STATUSES, type SearchJob } from '@cribl-exporter/api/resources';

const finite = z.number().finite();

/** `{count, items}` envelope of single-item and unpaged answers (CountedX in spec 4.19). */
export interface Counted<T> {
  count: number;
  items: T[];
}

/** A `{count, items}` envelope around `item`. */
export const countedSchema = <T extends z.ZodType>(item: T) => z.object({ count: z.number(), items: z.array(item) });

/** GET /m/{group}/version/info item. */
export const versionInfoSchema = z.object({ versioning: z.boolean(), remote: z.union([z.string(), z.literal(false)]) });
export type VersionInfo = z.infer<typeof versionInfoSchema>;

/** Pack (PackInfo): `id` and `source` are required. */
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

/** One Function of a Pipeline; no other keys are allowed. */
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

/** A Pipeline inside a Pack; `conf` allows no other keys. */
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

/** A Destination (Output): a union discriminated by `type`; every other field depends on the type. */
export const outputSchema = z.looseObject({ id: z.string().min(1), type: z.string().min(1) });
export type Output = z.infer<typeof outputSchema>;

/** GET /search/jobs/{id}/status: a bare StatusResponse. */
export const searchJobStatusResponseSchema = z.object({
  status: z.enum(SEARCH_JOB_STATUSES),
  timeCreated: finite,
  timeStarted: finite.optional(),
  timeCompleted: finite.optional(),
  timeNow: finite.optional(),
  eventsFound: finite.optional(),
});
export type SearchJobStatusResponse = z.infer<typeof searchJobStatusResponseSchema>;

/** First NDJSON line of GET /search/jobs/{id}/results (SearchJobResults); every further line is one event. */
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

/** Management plane: POST …/workspaces body (WorkspaceCreateRequestDTO). */
export const workspaceCreateRequestSchema = z.object({
  workspaceId: z.string().min(1),
  alias: z.string().optional(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
});
export type WorkspaceCreateRequest = z.infer<typeof workspaceCreateRequestSchema>;

/** Management plane: PATCH …/workspaces/{id} body (WorkspacePatchRequestDTO): a partial update. */
export type WorkspacePatchRequest = Omit<WorkspaceCreateRequest, 'workspaceId'>;
