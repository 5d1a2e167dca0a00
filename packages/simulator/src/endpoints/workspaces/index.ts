import type { Handler } from '../../core/env.js';

/**
 * The management plane's workspaces (outside /api/v1, DefaultErrorDTO errors): list and create, read, update and
 * delete one (workspaces.ts), Provisioning and Deprovisioning for `workspaceTransition`.
 */
export const workspaceList: Handler = (app, r) => app.workspaces.handle(app, r, 'list');
export const workspace: Handler = (app, r) => app.workspaces.handle(app, r, 'item');
