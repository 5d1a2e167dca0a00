/**
 * GET /products/{product}/groups (4.17+) and GET /master/groups?product= (earlier leaders), read by every discovery:
 * the worker groups and Edge fleets, with the config version the leader deploys to each and its node counts.
 */
import * as z from 'zod';
import type { Product } from '@cribl-exporter/api/products';
import { ENDPOINTS, segment } from '@cribl-exporter/api/routes';
import { configGroupSchema, GROUP_TYPES, pageSchema } from '@cribl-exporter/api/shapes';
import type { LeaderRequest } from '../../leader/types.js';
import { collector, discoveryFreshness, factsKey, type GroupFamily, type GroupItem } from '../collector.js';
import { keptPage, type Page } from '../read.js';
import { gaugeOf, line, q } from '../sample.js';

export const NAME = 'groups';

const listedGroupSchema = configGroupSchema
  .pick({
    id: true,
    name: true,
    configVersion: true,
    workerCount: true,
    incompatibleWorkerCount: true,
    deployingWorkerCount: true,
    onPrem: true,
    isFleet: true,
  })
  // A type this exporter does not know is treated like an unreported one; so is a git state that is not a count.
  .extend({
    type: z.enum(GROUP_TYPES).optional().catch(undefined),
    git: z
      .object({ localChanges: z.number().finite().nonnegative().optional().catch(undefined) })
      .optional()
      .catch(undefined),
  });

/** The part of a group the exporter keeps (this collector's facts of a group). */
export type ListedGroup = z.infer<typeof listedGroupSchema>;

export const groupsFacts = factsKey<ListedGroup>(NAME);

/** One decoded groups page. */
export type GroupPage = Page<ListedGroup>;

/** Decodes a groups page; malformed groups are skipped. */
export const decodeGroupPage = (json: unknown): GroupPage =>
  keptPage(pageSchema.parse(json), (raw) => listedGroupSchema.safeParse(raw).data);

/** One page of the groups of a product, on a current leader or (legacy) one before 4.17. */
export function groupsPage(
  product: Product,
  limit: number,
  offset: number,
  legacy: boolean,
): Omit<LeaderRequest<GroupPage>, 'decode'> {
  // `git.localChanges`: the number of local config changes not committed, only when asked for.
  const fields = 'git.localChanges';
  return legacy
    ? { endpoint: ENDPOINTS.masterGroups, path: '/master/groups', query: { product, fields, limit, offset } }
    : { endpoint: ENDPOINTS.groups, path: `/products/${segment(product)}/groups`, query: { fields, limit, offset } };
}

/** Groups of other kinds (search, lake, outpost) are not ours. */
export function groupBelongs(g: ListedGroup, product: Product): boolean {
  return g.type === undefined || g.type === product;
}

const G = (g: GroupItem): ListedGroup | undefined => groupsFacts.of(g);

const FAMILIES: readonly GroupFamily[] = [
  {
    name: 'cribl_group_info',
    what: 'Config group or fleet (value 1) with the config version the leader deploys to it; empty when unreported.',
    labels: ['config_version'],
    sample: (g, base) => {
      const l = G(g);
      return l ? line('cribl_group_info', base, `config_version=${q(l.configVersion)}`) : '';
    },
  },
  gaugeOf('cribl_group_workers', 'Nodes in the group, as the leader counts them.', (g) => G(g)?.workerCount),
  gaugeOf(
    'cribl_group_deploying_workers',
    'Nodes of the group receiving a config deployment, as the leader counts them.',
    (g) => G(g)?.deployingWorkerCount,
  ),
  gaugeOf(
    'cribl_group_incompatible_workers',
    'Nodes of the group whose version is incompatible with the leader (incompatibleWorkerCount).',
    (g) => G(g)?.incompatibleWorkerCount,
  ),
  gaugeOf(
    'cribl_group_uncommitted_changes',
    'Local config changes of the group not yet committed (git.localChanges); absent when the leader does not say.',
    (g) => G(g)?.git?.localChanges,
  ),
];

export const groups = collector({
  name: NAME,
  freshness: (_s, intervals) => discoveryFreshness(intervals),
  families: { group: FAMILIES },
  schedule: { kind: 'listing' },
});
