import { ofGroup } from '../../core/admin-hooks.js';
import { statusItems } from './index.js';

/** GET /_sim/groups/{id}/dataflow: the group's destinations and sources, and their status as answered now. */
export const getDataflow = ofGroup((deps, _req, id) => {
  const flow = deps.flow(id);
  return [
    200,
    {
      group: id,
      processes: deps.fleet.processes(id),
      destinations: flow?.outputs ?? [],
      sources: flow?.inputs ?? [],
      status: { destinations: statusItems(deps, id, 'output'), sources: statusItems(deps, id, 'input') },
    },
  ];
});
