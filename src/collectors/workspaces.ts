/**
 * Management plane (Cribl.Cloud): GET {managementUrl}/v1/organizations/{organizationId}/workspaces, the
 * organization's workspaces and their states. Turning them into leaders to monitor lives in src/discovery/.
 */
import { z } from 'zod';
import { segment } from '../api/routes.js';
import { workspaceSchema } from '../api/shapes.js';

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

/** The workspaces of a list answer, or undefined when the answer is not a workspace list. */
export function decodeWorkspaces(json: unknown): ListedWorkspace[] | undefined {
  const r = listSchema.safeParse(json);
  return r.success ? r.data.items : undefined;
}
