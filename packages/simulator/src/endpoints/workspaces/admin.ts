import * as z from 'zod';
import { parse, readJson } from '../../core/admin.js';
import type { AdminHandler } from '../../core/admin.js';
import { workspaceSchema } from './scenario.js';

/** GET and PUT /_sim/workspaces: the management-plane listing (a list, or `{items}`), as the scenario's. */
export const getWorkspaces: AdminHandler = (deps) => [
  200,
  { items: deps.workspaceList, count: deps.workspaceList.length },
];

export const putWorkspaces: AdminHandler = async (deps, req) => {
  const body = await readJson(req);
  const items = Array.isArray(body) ? body : (body as { items?: unknown } | null)?.items;
  const list = parse(z.array(workspaceSchema), items);
  deps.workspaces.replace(list);
  return [200, { items: deps.workspaceList, count: deps.workspaceList.length }];
};
