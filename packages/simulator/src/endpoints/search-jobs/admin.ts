import type { AdminHandler } from '../../core/admin.js';

/** GET /_sim/search (and /_sim/search/jobs): every search job as GET …/search/jobs/{id} shows it now. */
export const getSearchJobs: AdminHandler = (deps) => {
  const now = deps.clock.now();
  return [200, { items: deps.search.ids().map((id) => deps.search.job(id, now)) }];
};
