import * as z from 'zod';

/** The scenario's `workspaces:` key (and PUT /_sim/workspaces): one management-plane workspace each. */
export const workspaceSchema = z.strictObject({
  workspaceId: z.string().min(1),
  region: z.string().min(1),
  leaderFQDN: z.string().min(1),
  state: z.enum(['Provisioning', 'Active', 'Inactive', 'Failed', 'Deprovisioning']),
  alias: z.string().optional(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
});
