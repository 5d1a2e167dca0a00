/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/system/settings/git-settings',
    method: 'GET',
    path: () => api('/system/settings/git-settings'),
    status: 200,
    type: 'json',
    schema: 'GitSettingsResponse',
    shape: (b, { expect, counted }) => {
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
    shape: (b, { expect, counted }) => {
      counted(b);
      expect(b.items[0]).toEqual({
        branch: 'main',
        remote: 'git@github.com:acme/cribl-config.git',
        authType: 'ssh',
        gitOps: 'none',
      });
    },
  },
];
