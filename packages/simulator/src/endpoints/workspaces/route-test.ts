/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/v1/organizations/{organizationId}/workspaces',
    method: 'GET',
    path: (f) => `/v1/organizations/${f.org}/workspaces`,
    status: 200,
    type: 'json',
    schema: 'WorkspacesListResponseDTO',
    shape: (b, { expect }) => expect(b).toMatchObject({ count: 1, items: [{ workspaceId: 'main', state: 'Active' }] }),
  },
  {
    route: '/v1/organizations/{organizationId}/workspaces',
    method: 'POST',
    path: (f) => `/v1/organizations/${f.org}/workspaces`,
    body: () => ({ workspaceId: 'staging', alias: 'Staging' }),
    status: 201,
    type: 'json',
    schema: 'WorkspaceSchema',
    shape: (b, { expect }) =>
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
    shape: (b, { expect }) => expect(b.workspaceId).toBe('main'),
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
