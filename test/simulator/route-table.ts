import { expect } from 'vitest';
import { startSimulator } from '@cribl-exporter/simulator';
import type { Route, Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { call } from './helpers.js';
import type { Item } from './helpers.js';

/** One request of the route table and what its answer must be. */
export interface Row {
  /** The route template it exercises. */
  route: Route;
  method: string;
  /** Path under the origin (control-plane paths start with /api/v1). */
  path: (f: Fixture) => string;
  body?: (f: Fixture) => unknown;
  /** Form body (OAuth). */
  form?: string;
  /** Default: the simulator's full static token; null: no Authorization header. */
  token?: null;
  status: number;
  /** json, ndjson, or none (202/204 without a body). */
  type: 'json' | 'ndjson' | 'none';
  /** Schema of the JSON body (or of the first NDJSON line) in openapi-schemas.json. */
  schema?: string;
  /** Field-level assertions on the parsed body (first NDJSON line for ndjson; the rest in `lines`). */
  shape?: (body: Item, f: Fixture, lines: Item[]) => void;
}

/** Ids the rows use, found once per simulator. */
export interface Fixture {
  s: Simulator;
  stream: string;
  edge: string;
  /** A search job created before the table runs. */
  job: string;
  org: string;
}

const api = (p: string): string => `/api/v1${p}`;
const enc = encodeURIComponent;
const HEX7 = /^[0-9a-f]{7}$/;
const HEX40 = /^[0-9a-f]{40}$/;

const keys = (v: Item): string[] => Object.keys(v).sort();
const counted = (b: Item, n = 1): void => {
  expect(keys(b)).toEqual(['count', 'items']);
  expect(b.count).toBe(n);
  expect(b.items).toHaveLength(n);
};
const listed = (b: Item): void => {
  expect(keys(b)).toEqual(['count', 'items']);
  expect(b.items).toHaveLength(b.count);
};

const health = (b: Item): void => {
  expect(keys(b)).toEqual(['overlay', 'role', 'startTime', 'status']);
  expect(b).toMatchObject({ status: 'healthy', role: 'primary', overlay: { state: 'inactive' } });
};

const pack = (b: Item, id: string): void => {
  counted(b);
  expect(b.items[0]).toMatchObject({ id, source: expect.any(String) });
};

/**
 * Every route the simulator serves, in the context it belongs to, with its happy-path answer. The rows run in
 * order against one simulator: writes create what later rows read, update and delete.
 */
export const ROWS: Row[] = [
  // ---- global context ----
  {
    route: '/health',
    method: 'GET',
    path: () => api('/health'),
    token: null,
    status: 200,
    type: 'json',
    schema: 'HealthServerStatusStrict',
    shape: health,
  },
  {
    route: '/auth/login',
    method: 'POST',
    path: () => api('/auth/login'),
    token: null,
    body: () => ({ username: 'admin', password: 'admin' }),
    status: 200,
    type: 'json',
    schema: 'AuthToken',
    shape: (b) => expect(keys(b)).toEqual(['forcePasswordChange', 'token']),
  },
  {
    route: '/products/{product}/workers',
    method: 'GET',
    path: () => api('/products/stream/workers?limit=5'),
    status: 200,
    type: 'json',
    schema: 'PaginatedMasterWorkerEntry',
    shape: (b) => expect(keys(b)).toEqual(['count', 'items', 'limit', 'offset', 'totalCount']),
  },
  {
    route: '/products/{product}/workers/{id}',
    method: 'GET',
    path: (f) => api(`/products/edge/workers/${f.edge}`),
    status: 200,
    type: 'json',
    schema: 'CountedMasterWorkerEntry',
    shape: (b, f) => {
      counted(b);
      expect(b.items[0]).toMatchObject({ id: f.edge, nodeUpgradeStatus: { state: expect.any(Number) } });
    },
  },
  {
    route: '/master/workers',
    method: 'GET',
    path: () => api('/master/workers'),
    status: 200,
    type: 'json',
    schema: 'PaginatedMasterWorkerEntry',
    shape: listed,
  },
  {
    route: '/master/workers/{id}',
    method: 'GET',
    path: (f) => api(`/master/workers/${f.stream}`),
    status: 200,
    type: 'json',
    schema: 'CountedMasterWorkerEntry',
    shape: (b, f) => {
      counted(b);
      expect(b.items[0].id).toBe(f.stream);
    },
  },
  {
    route: '/products/{product}/groups',
    method: 'GET',
    path: () => api('/products/edge/groups'),
    status: 200,
    type: 'json',
    schema: 'PaginatedConfigGroup',
    shape: (b) => {
      listed(b);
      expect((b.items as Item[]).map((g) => String(g.id))).toEqual(['default_fleet', 'retail-stores', 'factories']);
    },
  },
  {
    route: '/products/{product}/groups/{id}',
    method: 'GET',
    path: () => api('/products/stream/groups/prod-east?fields=git.log'),
    status: 200,
    type: 'json',
    schema: 'CountedConfigGroup',
    shape: (b) => {
      counted(b);
      expect(b.items[0]).toMatchObject({
        id: 'prod-east',
        configVersion: expect.stringMatching(HEX7),
        git: { log: expect.any(Array) },
      });
    },
  },
  {
    route: '/products/{product}/groups/{id}/configVersion',
    method: 'GET',
    path: () => api('/products/stream/groups/default/configVersion'),
    status: 200,
    type: 'json',
    schema: 'CountedString',
    shape: (b) => {
      counted(b);
      expect(b.items[0]).toMatch(HEX7);
    },
  },
  {
    route: '/master/groups',
    method: 'GET',
    path: () => api('/master/groups?product=stream'),
    status: 200,
    type: 'json',
    schema: 'PaginatedConfigGroup',
    shape: listed,
  },
  {
    route: '/system/settings/git-settings',
    method: 'GET',
    path: () => api('/system/settings/git-settings'),
    status: 200,
    type: 'json',
    schema: 'GitSettingsResponse',
    shape: (b) => {
      counted(b);
      expect(b.items[0]).toMatchObject({ branch: 'master', gitOps: 'none', remote: '' });
    },
  },
  {
    route: '/system/settings/git-settings',
    method: 'PATCH',
    path: () => api('/system/settings/git-settings'),
    body: () => ({ branch: 'main', remote: 'git@github.com:acme/cribl-config.git', authType: 'ssh', gitOps: 'none' }),
    status: 200,
    type: 'json',
    schema: 'GitSettingsResponse',
    shape: (b) => {
      counted(b);
      expect(b.items[0]).toEqual({
        branch: 'main',
        remote: 'git@github.com:acme/cribl-config.git',
        authType: 'ssh',
        gitOps: 'none',
      });
    },
  },
  {
    route: '/pack/{id}',
    method: 'GET',
    path: () => api('/pack/cribl-palo-alto-networks'),
    status: 200,
    type: 'json',
    schema: 'CountedPackInfo',
    shape: (b) => pack(b, 'cribl-palo-alto-networks'),
  },
  {
    route: '/packs',
    method: 'GET',
    path: () => api('/packs?with=inputs,outputs'),
    status: 200,
    type: 'json',
    schema: 'PaginatedPackInfo',
    shape: (b) => {
      listed(b);
      expect(b.items[0]).toMatchObject({ id: 'cribl-palo-alto-networks', inputs: 1, outputs: 0 });
    },
  },
  {
    route: '/packs',
    method: 'POST',
    path: () => api('/packs'),
    body: () => ({ source: 'https://example.com/packs/acme-global-1.0.0.crbl' }),
    status: 200,
    type: 'json',
    schema: 'CountedPackInstallInfo',
    shape: (b) => {
      pack(b, 'acme-global');
      expect(b.items[0].warnings).toEqual([]);
    },
  },
  {
    route: '/packs/{id}',
    method: 'GET',
    path: () => api('/packs/acme-global'),
    status: 200,
    type: 'json',
    schema: 'CountedPackInfo',
    shape: (b) => pack(b, 'acme-global'),
  },
  {
    route: '/packs/{id}',
    method: 'PATCH',
    path: () => api('/packs/acme-global'),
    body: () => ({ source: 'https://example.com/packs/acme-global-1.1.0.crbl' }),
    status: 200,
    type: 'json',
    schema: 'CountedPackInfo',
    shape: (b) => expect(b.items[0]).toMatchObject({ id: 'acme-global', version: '1.1.0' }),
  },
  {
    route: '/packs/{id}',
    method: 'DELETE',
    path: () => api('/packs/acme-global'),
    status: 200,
    type: 'json',
    schema: 'CountedPackUninstallInfo',
    shape: (b) =>
      expect(b).toEqual({
        count: 1,
        items: [{ id: 'acme-global', source: 'https://example.com/packs/acme-global-1.1.0.crbl' }],
      }),
  },
  {
    route: '/system/licenses',
    method: 'GET',
    path: () => api('/system/licenses'),
    status: 200,
    type: 'json',
    shape: (b) => {
      counted(b);
      expect(b.items[0]).toMatchObject({ cls: 'prod', quota: 1000, f_ph: 0, f_phg: 0 });
    },
  },
  {
    route: '/system/licenses/usage',
    method: 'GET',
    path: () => api('/system/licenses/usage'),
    status: 200,
    type: 'json',
    shape: (b) => {
      counted(b, 30);
      expect(keys(b.items[0])).toEqual([
        'droppedBytes',
        'endTime',
        'exemptedLicenseInBytes',
        'inBytes',
        'inEvents',
        'outBytes',
        'outEvents',
        'startTime',
      ]);
    },
  },
  {
    route: '/system/info',
    method: 'GET',
    path: () => api('/system/info'),
    status: 200,
    type: 'json',
    shape: (b) => {
      counted(b);
      expect(b.items[0]).toMatchObject({ distMode: 'master', version: '4.19.0', BUILD: { VERSION: '4.19.0' } });
    },
  },
  {
    route: '/system/messages',
    method: 'GET',
    path: () => api('/system/messages'),
    status: 200,
    type: 'json',
    shape: (b) => expect(b).toEqual({ count: 0, items: [] }),
  },
  {
    route: '/system/metrics/query',
    method: 'POST',
    path: () => api('/system/metrics/query'),
    body: () => {
      // The fixture's clock (FakeClock's default start, plus 10 s): the minute before it.
      const latest = Date.UTC(2026, 10, 22, 12) / 1000;
      return {
        where: '__worker_group!=undefined && has_no_dimensions',
        earliest: latest - 60,
        latest,
        aggs: { aggregations: ['sum("total.in_events").as("in")'], splitBys: ['__worker_group'], cumulative: true },
      };
    },
    status: 200,
    type: 'json',
    shape: (b) => {
      expect(keys(b)).toEqual(['results']);
      const rows = b.results as Item[];
      // One row per group, and the roll-up without the split key, as real leaders answer.
      expect(rows.filter((r) => r.__worker_group === undefined)).toHaveLength(1);
      expect(rows.length).toBeGreaterThan(1);
      for (const r of rows) expect(r).toMatchObject({ _raw: '', _time: expect.any(Number) });
    },
  },
  {
    route: '/system/metrics/enum',
    method: 'POST',
    path: () => api('/system/metrics/enum'),
    body: () => ({}),
    status: 200,
    type: 'json',
    shape: (b) => {
      listed(b);
      expect(b.items).toContainEqual({ name: 'pq.queue_size', type: 'gauge' });
    },
  },
  // ---- host context ----
  {
    route: '/w/{nodeId}/health',
    method: 'GET',
    path: (f) => api(`/w/${enc(f.stream)}/health`),
    status: 200,
    type: 'json',
    schema: 'HealthServerStatusStrict',
    shape: (b) => expect(keys(b)).toEqual(['overlay', 'startTime', 'status']),
  },
  {
    route: '/w/{nodeId}/edge/metadata',
    method: 'GET',
    path: (f) => api(`/w/${enc(f.edge)}/edge/metadata`),
    status: 200,
    type: 'json',
    schema: 'EdgeMetadataResponse',
    shape: (b) => {
      counted(b);
      expect(b.items[0].cribl.mode).toBe('managed-edge');
    },
  },
  // ---- group context ----
  {
    route: '/m/{group}/version',
    method: 'GET',
    path: () => api('/m/default/version'),
    status: 200,
    type: 'json',
    schema: 'PaginatedGitLogResult',
    shape: (b) => {
      listed(b);
      expect(b.items[0].hash).toMatch(HEX40);
    },
  },
  {
    route: '/m/{group}/version/info',
    method: 'GET',
    path: () => api('/m/default/version/info'),
    status: 200,
    type: 'json',
    shape: (b) =>
      expect(b).toEqual({
        count: 1,
        items: [{ versioning: true, remote: 'git@github.com:acme/cribl-config.git' }],
      }),
  },
  {
    route: '/m/{group}/pack/{id}',
    method: 'GET',
    path: () => api('/m/prod-east/pack/cribl-syslog-input'),
    status: 200,
    type: 'json',
    schema: 'CountedPackInfo',
    shape: (b) => pack(b, 'cribl-syslog-input'),
  },
  {
    route: '/m/{group}/packs',
    method: 'GET',
    path: () => api('/m/factories/packs?limit=10'),
    status: 200,
    type: 'json',
    schema: 'PaginatedPackInfo',
    shape: (b) =>
      expect(b).toMatchObject({
        count: 1,
        offset: 0,
        limit: 10,
        totalCount: 1,
        items: [{ id: 'cribl-edge-linux' }],
      }),
  },
  {
    route: '/m/{group}/packs',
    method: 'POST',
    path: () => api('/m/prod-west/packs'),
    body: () => ({ id: 'acme-pack', source: '' }),
    status: 200,
    type: 'json',
    schema: 'CountedPackInstallInfo',
    shape: (b) => pack(b, 'acme-pack'),
  },
  {
    route: '/m/{group}/packs/{id}',
    method: 'GET',
    path: () => api('/m/prod-west/packs/acme-pack'),
    status: 200,
    type: 'json',
    schema: 'CountedPackInfo',
    shape: (b) => pack(b, 'acme-pack'),
  },
  {
    route: '/m/{group}/packs/{id}',
    method: 'PATCH',
    path: () => api('/m/prod-west/packs/acme-pack'),
    body: () => ({ source: 'file:///opt/acme-pack-2.0.0.crbl' }),
    status: 200,
    type: 'json',
    schema: 'CountedPackInfo',
    shape: (b) => expect(b.items[0]).toMatchObject({ version: '2.0.0' }),
  },
  {
    route: '/m/{group}/packs/{id}',
    method: 'DELETE',
    path: () => api('/m/prod-west/packs/acme-pack'),
    status: 200,
    type: 'json',
    schema: 'CountedPackUninstallInfo',
    shape: (b) => counted(b),
  },
  {
    route: '/m/{group}/p/{pack}/pipelines',
    method: 'GET',
    path: () => api('/m/default/p/cribl-palo-alto-networks/pipelines'),
    status: 200,
    type: 'json',
    schema: 'PaginatedPipeline',
    shape: (b) => {
      listed(b);
      expect((b.items as Item[]).map((p) => String(p.id))).toEqual(['pan_traffic', 'pan_threat']);
      expect(keys(b.items[0])).toEqual(['conf', 'id']);
    },
  },
  {
    route: '/m/{group}/p/{pack}/pipelines/{id}',
    method: 'GET',
    path: () => api('/m/default/p/cribl-palo-alto-networks/pipelines/pan_threat'),
    status: 200,
    type: 'json',
    schema: 'CountedPipeline',
    shape: (b) => expect(b.items[0].conf.functions[0].id).toBe('eval'),
  },
  {
    route: '/m/{group}/system/outputs',
    method: 'GET',
    path: () => api('/m/default/system/outputs'),
    status: 200,
    type: 'json',
    schema: 'PaginatedOutputResponse',
    shape: (b) =>
      expect(b.items).toEqual([
        { id: 'devnull', type: 'devnull' },
        { id: 'default', type: 'default', defaultId: 'devnull' },
      ]),
  },
  {
    route: '/m/{group}/system/outputs',
    method: 'POST',
    path: () => api('/m/default/system/outputs'),
    body: () => ({ id: 'webhook-output', type: 'webhook', url: 'https://example.com/webhook', method: 'POST' }),
    status: 200,
    type: 'json',
    schema: 'CountedOutputResponse',
    shape: (b) =>
      expect(b.items[0]).toEqual({
        id: 'webhook-output',
        type: 'webhook',
        url: 'https://example.com/webhook',
        method: 'POST',
      }),
  },
  {
    route: '/m/{group}/system/outputs/{id}',
    method: 'GET',
    path: () => api('/m/default/system/outputs/webhook-output'),
    status: 200,
    type: 'json',
    schema: 'CountedOutputResponse',
    shape: (b) => counted(b),
  },
  {
    route: '/m/{group}/system/outputs/{id}',
    method: 'PATCH',
    path: () => api('/m/default/system/outputs/webhook-output'),
    body: () => ({ id: 'webhook-output', type: 'webhook', url: 'https://example.com/other' }),
    status: 200,
    type: 'json',
    schema: 'CountedOutputResponse',
    shape: (b) =>
      expect(b.items[0]).toEqual({
        id: 'webhook-output',
        type: 'webhook',
        url: 'https://example.com/other',
      }),
  },
  {
    route: '/m/{group}/system/outputs/{id}',
    method: 'DELETE',
    path: () => api('/m/default/system/outputs/webhook-output'),
    status: 200,
    type: 'json',
    schema: 'CountedOutputResponse',
    shape: (b) => expect(b.items[0]).toMatchObject({ id: 'webhook-output', url: 'https://example.com/other' }),
  },
  {
    route: '/m/{group}/system/status/outputs',
    method: 'GET',
    path: () => api('/m/default/system/status/outputs'),
    status: 200,
    type: 'json',
    shape: (b) => {
      listed(b);
      expect(b.items[0]).toMatchObject({ id: 'devnull', type: 'devnull', status: { health: 'Green' } });
      expect(keys(b.items[0].status.healthCounts)).toEqual(['Green', 'Red', 'Unknown', 'Yellow']);
    },
  },
  {
    route: '/m/{group}/system/status/inputs',
    method: 'GET',
    path: () => api('/m/retail-stores/system/status/inputs?limit=1'),
    status: 200,
    type: 'json',
    shape: (b) => {
      expect(keys(b)).toEqual(['count', 'items', 'limit', 'offset', 'totalCount']);
      expect(b.items[0]).toMatchObject({ id: 'file_monitor', type: 'file' });
    },
  },
  // ---- search context ----
  {
    route: '/m/default_search/search/jobs',
    method: 'POST',
    path: () => api('/m/default_search/search/jobs'),
    body: () => ({
      query: 'cribl dataset="cribl_search_sample" | limit 5',
      earliest: '-1h',
      latest: 'now',
      sampleRate: 1,
    }),
    status: 200,
    type: 'json',
    schema: 'SearchJobListResponse',
    shape: (b) => {
      counted(b);
      expect(b.items[0]).toMatchObject({
        status: 'new',
        id: expect.stringMatching(/^\d{13}\.[a-z]{6}$/),
        user: 'api',
        group: 'default_search',
      });
    },
  },
  {
    route: '/m/default_search/search/jobs',
    method: 'GET',
    path: () => api('/m/default_search/search/jobs'),
    status: 200,
    type: 'json',
    schema: 'SearchJobListResponse',
    shape: listed,
  },
  {
    route: '/m/default_search/search/jobs/{id}',
    method: 'GET',
    path: (f) => api(`/m/default_search/search/jobs/${f.job}`),
    status: 200,
    type: 'json',
    schema: 'SearchJobListResponse',
    shape: (b, f) => expect(b.items[0]).toMatchObject({ id: f.job, status: 'completed', totalEventCount: 10 }),
  },
  {
    route: '/m/default_search/search/jobs/{id}/status',
    method: 'GET',
    path: (f) => api(`/m/default_search/search/jobs/${f.job}/status`),
    status: 200,
    type: 'json',
    schema: 'SearchJobStatusResponse',
    shape: (b) => expect(b).toMatchObject({ status: 'completed', eventsFound: 10 }),
  },
  {
    route: '/m/default_search/search/jobs/{id}/results',
    method: 'GET',
    path: (f) => api(`/m/default_search/search/jobs/${f.job}/results?limit=4`),
    status: 200,
    type: 'ndjson',
    schema: 'SearchJobResultsHeader',
    shape: (b, f, lines) => {
      expect(b).toMatchObject({
        isFinished: true,
        job: { id: f.job, status: 'completed' },
        offset: 0,
        limit: 4,
        totalEventCount: 10,
      });
      expect(lines).toHaveLength(4);
      expect(lines[0]).toMatchObject({ _time: expect.any(Number), _raw: expect.any(String) });
    },
  },
  {
    route: '/m/default_search/search/jobs/{id}',
    method: 'PATCH',
    path: (f) => api(`/m/default_search/search/jobs/${f.job}`),
    body: () => ({ isPrivate: false }),
    status: 200,
    type: 'json',
    schema: 'SearchJobListResponse',
    shape: (b) => expect(b.items[0].isPrivate).toBe(false),
  },
  {
    route: '/m/default_search/search/jobs/{id}/cancel',
    method: 'POST',
    path: (f) => api(`/m/default_search/search/jobs/${f.job}/cancel`),
    body: () => ({}),
    status: 200,
    type: 'json',
    schema: 'SearchJobListResponse',
    shape: (b) => expect(b.items[0].status).toBe('completed'),
  },
  {
    route: '/m/default_search/search/jobs/{id}',
    method: 'DELETE',
    path: (f) => api(`/m/default_search/search/jobs/${f.job}`),
    status: 200,
    type: 'json',
    schema: 'SearchJobListResponse',
    shape: (b, f) => expect(b.items[0].id).toBe(f.job),
  },
  // ---- outside /api/v1 ----
  {
    route: '/oauth/token',
    method: 'POST',
    path: () => '/oauth/token',
    token: null,
    form:
      'grant_type=client_credentials&client_id=sim-client&client_secret=sim-secret' +
      '&audience=https%3A%2F%2Fapi.cribl.cloud',
    status: 200,
    type: 'json',
    shape: (b) => expect(keys(b)).toEqual(['access_token', 'expires_in', 'token_type']),
  },
  {
    route: '/v1/organizations/{organizationId}/workspaces',
    method: 'GET',
    path: (f) => `/v1/organizations/${f.org}/workspaces`,
    status: 200,
    type: 'json',
    schema: 'WorkspacesListResponseDTO',
    shape: (b) => expect(b).toMatchObject({ count: 1, items: [{ workspaceId: 'main', state: 'Active' }] }),
  },
  {
    route: '/v1/organizations/{organizationId}/workspaces',
    method: 'POST',
    path: (f) => `/v1/organizations/${f.org}/workspaces`,
    body: () => ({ workspaceId: 'staging', alias: 'Staging' }),
    status: 201,
    type: 'json',
    schema: 'WorkspaceSchema',
    shape: (b) =>
      expect(b).toMatchObject({
        workspaceId: 'staging',
        state: 'Provisioning',
        region: 'us-west-2',
        alias: 'Staging',
      }),
  },
  {
    route: '/v1/organizations/{organizationId}/workspaces/{workspaceId}',
    method: 'GET',
    path: (f) => `/v1/organizations/${f.org}/workspaces/main`,
    status: 200,
    type: 'json',
    schema: 'WorkspaceSchema',
    shape: (b) => expect(b.workspaceId).toBe('main'),
  },
  {
    route: '/v1/organizations/{organizationId}/workspaces/{workspaceId}',
    method: 'PATCH',
    path: (f) => `/v1/organizations/${f.org}/workspaces/main`,
    body: () => ({ description: 'patched' }),
    status: 204,
    type: 'none',
  },
  {
    route: '/v1/organizations/{organizationId}/workspaces/{workspaceId}',
    method: 'DELETE',
    path: (f) => `/v1/organizations/${f.org}/workspaces/staging`,
    status: 202,
    type: 'none',
  },
];

/** The answer to one row: status, headers, and the parsed body (the first NDJSON line, the others in `lines`). */
export interface RowResult {
  status: number;
  type: string | undefined;
  text: string;
  body: Item | undefined;
  lines: Item[];
}

/** Sends the row's request. */
export async function send(
  f: Fixture,
  row: Pick<Row, 'method' | 'path' | 'body' | 'form' | 'token'>,
): Promise<RowResult> {
  const headers: Record<string, string> = {};
  let body: string | undefined;
  if (row.body) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(row.body(f));
  } else if (row.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = row.form;
  }
  const r = await call(f.s.origin, row.path(f), {
    method: row.method,
    headers,
    ...(row.token === null ? {} : { token: f.s.token }),
    ...(body === undefined ? {} : { body }),
  });
  const type = r.headers['content-type'];
  if (type === 'application/x-ndjson') {
    const [first, ...rest] = r.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Item);
    return { status: r.status, type, text: r.text, body: first, lines: rest };
  }
  return { status: r.status, type, text: r.text, body: r.json as Item | undefined, lines: [] };
}

/** Starts the simulator the table runs against, with a search job that has completed by the time rows run. */
export async function startFixture(): Promise<Fixture> {
  const clock = new FakeClock();
  const s = await startSimulator({
    nodes: 20,
    clock,
    organizationId: 'acme',
    workspaces: [{ workspaceId: 'main', region: 'us-west-2', leaderFQDN: 'main-acme.cribl.cloud', state: 'Active' }],
  });
  const stream = s.fleet.nodes().find((n) => n.product === 'stream')!.id;
  const edge = s.fleet.nodes().find((n) => n.product === 'edge')!.id;
  const f: Fixture = { s, stream, edge, job: '', org: 'acme' };
  const created = await send(f, {
    method: 'POST',
    path: () => api('/m/default_search/search/jobs'),
    body: () => ({ query: 'cribl dataset="x"' }),
  });
  f.job = String(created.body?.items[0].id);
  await clock.advance(10_000);
  return f;
}
