import { parse, readJson } from '../../core/admin.js';
import type { AdminHandler } from '../../core/admin.js';
import { gitSchema } from './scenario.js';

/** GET and PUT /_sim/git: the leader's git settings (remote "" = no remote), as the scenario's `gitSettings`. */
export const getGit: AdminHandler = (deps) => [200, deps.config.git()];

export const putGit: AdminHandler = async (deps, req) => {
  deps.config.setGit(parse(gitSchema, await readJson(req)));
  return [200, deps.config.git()];
};
