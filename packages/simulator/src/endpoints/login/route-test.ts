/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/auth/login',
    method: 'POST',
    path: () => api('/auth/login'),
    token: null,
    body: () => ({ username: 'admin', password: 'admin' }),
    status: 200,
    type: 'json',
    schema: 'AuthToken',
    shape: (b, { expect, keys }) => expect(keys(b)).toEqual(['forcePasswordChange', 'token']),
  },
];
