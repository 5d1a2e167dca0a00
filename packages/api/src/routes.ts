/**
 * Route templates of every upstream endpoint the exporter calls: the `endpoint` label of our self-metrics
 * (never a raw URL), and how a dynamic value becomes one path segment. To add one: a line here; a test adds one of
 * its own with `registerRouteTemplate`.
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
/** A template added at run time (`registerRouteTemplate`), not one of ENDPOINTS. */
export type RegisteredEndpoint = string & { readonly registered: unique symbol };

/** The `endpoint` label of a request: a route template, never a raw URL. */
export type Endpoint = (typeof ENDPOINTS)[keyof typeof ENDPOINTS] | RegisteredEndpoint;

const REGISTERED: RegisteredEndpoint[] = [];

/**
 * Adds a route template to the `endpoint` label's values (an endpoint that exists only in a test, whose collector's
 * requests are labelled with it) and returns it as an Endpoint; one ENDPOINTS has is returned as it is.
 */
export function registerRouteTemplate(template: string): Endpoint {
  if (!template.startsWith('/')) throw new Error(`a route template starts with "/": ${template}`);
  const known: readonly string[] = [...Object.values(ENDPOINTS), ...REGISTERED];
  if (!known.includes(template)) REGISTERED.push(template as RegisteredEndpoint);
  return template as Endpoint;
}

/** Every route template the `endpoint` label takes: ENDPOINTS', then those registered since. */
export function endpointTemplates(): readonly Endpoint[] {
  return [...new Set<Endpoint>(Object.values(ENDPOINTS)), ...REGISTERED];
}

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
