/**
 * Management plane (Cribl.Cloud): GET {managementUrl}/v1/organizations/{organizationId}/workspaces, the
 * organization's workspaces and their states. Turning them into leaders to monitor lives in src/discovery/.
 */
import * as z from 'zod';
import { segment } from '../api/routes.js';
import { workspaceSchema } from '../api/shapes.js';
import { series, type Family } from '../format/family.js';
import { q, gaugeFamily } from './sample.js';
import type { ManagementState } from './state.js';

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

/** Management-plane families (Cribl.Cloud workspace discovery), in body order; nothing before the first listing. */
export const MANAGEMENT_FAMILIES: readonly Family<ManagementState>[] = [
  gaugeFamily(
    'cribl_management_up',
    'management',
    '1 if the last listing of the organization’s workspaces (Cribl.Cloud management plane) worked, else 0.',
    (m) => (m.up ? 1 : 0),
  ),
  {
    name: 'cribl_workspace_info',
    source: 'management',
    what:
      'A workspace of the organization (value 1) with its state (Active, Provisioning, Inactive, Failed, ' +
      'Deprovisioning, …), whatever the state: only Active workspaces are monitored as leaders.',
    labels: ['workspace', 'state'],
    sample: (m, base) => {
      let lines = '';
      for (const ws of m.workspaces) {
        lines += `${series('cribl_workspace_info', base, `workspace=${q(ws.workspaceId)},state=${q(ws.state)}`)} 1\n`;
      }
      return lines;
    },
  },
];
