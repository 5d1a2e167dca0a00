/**
 * Route templates of every upstream endpoint the exporter calls: the `endpoint` label of our self-metrics
 * (never a raw URL), and how a dynamic value becomes one path segment.
 */
export const ENDPOINTS = {
  workers: '/products/{product}/workers',
  masterWorkers: '/master/workers',
  masterGroups: '/master/groups',
  groups: '/products/{product}/groups',
  nodeHealth: '/w/{nodeId}/health',
  nodeMetadata: '/w/{nodeId}/edge/metadata',
  leaderHealth: '/health',
  groupVersion: '/m/{group}/version',
  gitSettings: '/system/settings/git-settings',
  groupPacks: '/m/{group}/packs',
  packPipelines: '/m/{group}/p/{pack}/pipelines',
  searchJobs: '/m/default_search/search/jobs',
  searchJob: '/m/default_search/search/jobs/{id}',
  login: '/auth/login',
  oauthToken: '/oauth/token',
  workspaces: '/v1/organizations/{organizationId}/workspaces',
  outputStatus: '/m/{group}/system/status/outputs',
  inputStatus: '/m/{group}/system/status/inputs',
  licenses: '/system/licenses',
  licenseUsage: '/system/licenses/usage',
  systemInfo: '/system/info',
  systemMessages: '/system/messages',
  metricsQuery: '/system/metrics/query',
} as const;
export type Endpoint = (typeof ENDPOINTS)[keyof typeof ENDPOINTS];

/**
 * A dynamic value (node id, product, group) as exactly one encoded path segment: percent-encoded as
 * encodeURIComponent does, and the dot segments `.` and `..` (which encodeURIComponent leaves alone and URL
 * resolution would drop or climb) as `%2E` and `%2E%2E`.
 */
export function segment(value: string): string {
  if (value === '.') return '%2E';
  if (value === '..') return '%2E%2E';
  return encodeURIComponent(value);
}
