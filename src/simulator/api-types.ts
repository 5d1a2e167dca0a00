/**
 * Response and request shapes of the real Cribl API (shared/research/api-shapes.md §5, §15–§22, spec 4.19 and the
 * 4.15.1 in-product spec) that the simulator serves beyond src/api/shapes.ts. They are the real API's shapes, not
 * the simulator's own: they belong in the shared API module and will move there (the lead's restructuring).
 * Only the fields served or read are typed; real leaders may send more.
 */

/** `{count, items}` envelope of single-item and unpaged answers (CountedX in spec 4.19). */
export interface Counted<T> {
  count: number;
  items: T[];
}

/** `overlay` of HealthServerStatus, required from spec 4.18.2 on (§20); `inactive` = the plain binary. */
export interface HealthOverlay {
  state: 'active' | 'inactive';
}

/** Edge `nodeUpgradeStatus` with its optional reason codes (§1.5). */
export interface NodeUpgradeStatusFull {
  /** 0 Active, 1 Current, 2 Failed, 3 Skipped. */
  state: 0 | 1 | 2 | 3;
  timestamp: number;
  /** 0 Pending, 1 Queued, 2 Upgrading (state 0). */
  active?: 0 | 1 | 2;
  /** 0 UpgradeErrorOnNode, 1 UpgradeInstallationRollback (state 2). */
  failed?: 0 | 1;
  /** 0 DownloadError, 1 InstallType, 2 MissingPackage, 3 TooOld (state 3). */
  skipped?: 0 | 1 | 2 | 3;
}

/** GET /system/settings/git-settings item (GitSettings, §15); nothing is required. */
export interface GitSettings {
  branch?: string;
  gitOps?: 'none' | 'pull' | 'push';
  /** Remote URL; "" (or absent) when no remote is configured. */
  remote?: string;
  authType?: string;
  user?: string;
  password?: string;
  sshKey?: string;
  strictHostKeyChecking?: boolean;
  autoAction?: string;
  autoActionSchedule?: string;
  autoActionMessage?: string;
  defaultCommitMessage?: string;
  commitDeploySingleAction?: boolean;
  copilotAutoGitCommitMessages?: boolean;
  timeout?: number;
}

/** GET /m/{group}/version/info item (§5). */
export interface VersionInfo {
  versioning: boolean;
  remote: string | false;
}

/** Pack (PackInfo, §16.4): `id` and `source` are required. */
export interface PackInfo {
  id: string;
  source: string;
  version?: string;
  displayName?: string;
  author?: string;
  description?: string;
  minLogStreamVersion?: string;
  spec?: string;
  exports?: string[];
  dependencies?: Record<string, string>;
  isDisabled?: boolean;
  settings?: Record<string, unknown>;
  tags?: { dataType?: string[]; domain?: string[]; streamtags?: string[]; technology?: string[] };
  /** Only with `?with=inputs,outputs,collectors`. */
  inputs?: number;
  outputs?: number;
  collectors?: number;
}

/** One Function of a Pipeline (§17); no other keys are allowed. */
export interface PipelineFunction {
  id: string;
  conf: Record<string, unknown>;
  filter?: string;
  description?: string;
  disabled?: boolean;
  final?: boolean;
  groupId?: string;
}

/** A Pipeline inside a Pack (§17); `conf` allows no other keys. */
export interface Pipeline {
  id: string;
  conf: {
    asyncFuncTimeout?: number;
    output?: string;
    description?: string;
    streamtags?: string[];
    functions?: PipelineFunction[];
    groups?: Record<string, { name: string; description?: string; disabled?: boolean }>;
  };
}

/** A Destination (Output, §18): a union discriminated by `type`; every other field depends on the type. */
export interface Output {
  id: string;
  type: string;
  [field: string]: unknown;
}

/** Search job status values (§19.5); completed, failed and canceled are terminal. */
export type SearchJobStatus = 'new' | 'queued' | 'running' | 'completed' | 'failed' | 'canceled';

/** POST /search/jobs body (CreateSearchJobSchema, §19.3; the spec's §4 names query, earliest, latest, sampleRate). */
export interface SearchJobRequest {
  query: string;
  earliest?: string | number;
  latest?: string | number;
  sampleRate?: number;
  isPrivate?: boolean;
}

/** A search job (SearchJob, §19.4). */
export interface SearchJob {
  id: string;
  query: string;
  status: SearchJobStatus;
  timeCreated: number;
  user: string;
  displayUsername: string;
  group: string;
  earliest?: string | number;
  latest?: string | number;
  sampleRate?: number;
  isPrivate?: boolean;
  type?: 'standard';
  timeStarted?: number;
  timeCompleted?: number;
  totalEventCount?: number;
}

/** GET /search/jobs/{id}/status: a bare StatusResponse (§19.6). */
export interface SearchJobStatusResponse {
  status: SearchJobStatus;
  timeCreated: number;
  timeStarted?: number;
  timeCompleted?: number;
  timeNow?: number;
  eventsFound?: number;
}

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
export interface WorkspaceCreateRequest {
  workspaceId: string;
  alias?: string;
  description?: string;
  tags?: string[];
}

/** Management plane: PATCH …/workspaces/{id} body (WorkspacePatchRequestDTO, §22): a partial update. */
export type WorkspacePatchRequest = Omit<WorkspaceCreateRequest, 'workspaceId'>;
