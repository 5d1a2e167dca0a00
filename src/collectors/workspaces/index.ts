/**
 * Management plane (Cribl.Cloud): GET {managementUrl}/v1/organizations/{organizationId}/workspaces, the
 * organization's workspaces and their states, every discovery interval. Turning them into leaders to monitor lives
 * in src/discovery/workspaces.ts; the app runs it (`--cloud.discover-workspaces`).
 */
import * as z from 'zod';
import { segment } from '@cribl-exporter/api/routes';
import { workspaceSchema } from '@cribl-exporter/api/shapes';
import { formatDuration } from '@cribl-exporter/api/duration';
import { collector, factsKey, type ScopeFamily } from '../collector.js';
import { bit, each, gaugeOf, line, q } from '../sample.js';

export const NAME = 'workspaces';

const listedWorkspaceSchema = workspaceSchema.pick({ workspaceId: true }).extend({
  // Any state is kept (a state this exporter does not know yet is still a state to report).
  state: z.string(),
  leaderFQDN: z.string().catch(''),
  region: z.string().catch(''),
});

/** The part of a workspace the exporter keeps. */
export type ListedWorkspace = z.infer<typeof listedWorkspaceSchema>;

const listSchema = z.object({ items: z.array(listedWorkspaceSchema) });

/** Absolute URL of an organization's workspace list. */
export function workspacesUrl(managementUrl: string, organization: string): string {
  return `${managementUrl.replace(/\/+$/, '')}/v1/organizations/${segment(organization)}/workspaces`;
}

/** The workspaces of a list answer (each id once), or undefined when the answer is not a workspace list. */
export function decodeWorkspaces(json: unknown): ListedWorkspace[] | undefined {
  const r = listSchema.safeParse(json);
  if (!r.success) return undefined;
  const seen = new Set<string>();
  return r.data.items.filter((ws) => !seen.has(ws.workspaceId) && seen.add(ws.workspaceId));
}

/** The management plane: whether the last listing worked, and every workspace of the last one that did. */
export interface ManagementFacts {
  up: boolean;
  workspaces: readonly ListedWorkspace[];
}

export const managementFacts = factsKey<ManagementFacts>(NAME);

const FAMILIES: readonly ScopeFamily[] = [
  gaugeOf(
    'cribl_management_up',
    '1 if the last listing of the organization’s workspaces (Cribl.Cloud management plane) worked, else 0.',
    (m) => bit(managementFacts.of(m)?.up),
  ),
  {
    name: 'cribl_workspace_info',
    what:
      'A workspace of the organization (value 1) with its state (Active, Provisioning, Inactive, Failed, ' +
      'Deprovisioning, …), whatever the state: only Active workspaces are monitored as leaders.',
    labels: ['workspace', 'state'],
    sample: (m, base) =>
      each(managementFacts.of(m)?.workspaces, (ws) =>
        line('cribl_workspace_info', base, `workspace=${q(ws.workspaceId)},state=${q(ws.state)}`),
      ),
  },
];

export const workspaces = collector({
  name: NAME,
  freshness: (_s, intervals) =>
    `From the Cribl.Cloud management plane, refreshed every ${formatDuration(intervals.discoveryMs)}; cached in ` +
    `between.`,
  families: { management: FAMILIES },
  schedule: { kind: 'management' },
});
