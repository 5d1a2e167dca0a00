import * as z from 'zod';
import type { Workspace } from '@cribl-exporter/api/shapes';
import type { Env, Request } from '../../core/env.js';
import { formatIssues } from '../../core/faults.js';
import { ok, readJsonBody } from '../../core/http.js';
import type { Reply } from '../../core/http.js';

interface WorkspaceRec {
  ws: Workspace;
  /** A POSTed workspace becomes Active, a DELETEd one disappears, this long after `since`. */
  pending?: 'provision' | 'deprovision';
  since: number;
}

/** Region of workspaces created through the API (the create request has no region). */
const CREATED_REGION = 'us-west-2';

const tags = z.array(z.string().max(30)).max(3);
const createSchema = z.strictObject({
  workspaceId: z
    .string()
    .min(4)
    .max(41)
    .regex(/^[a-z0-9]*$/, { message: 'lowercase letters and digits only' }),
  alias: z.string().max(30).optional(),
  description: z.string().max(255).optional(),
  tags: tags.optional(),
});
const patchSchema = z.strictObject({
  alias: z.string().max(30).optional(),
  description: z.string().max(255).optional(),
  tags: tags.optional(),
});

/**
 * Management-plane workspaces. Listed ones keep the state they are given (tests pin Provisioning, Failed, …);
 * workspaces created with POST are Provisioning and become Active after `workspaceTransition`; DELETE makes a
 * workspace Deprovisioning, and it disappears after the same time (both inferred).
 */
export class Workspaces {
  #list: WorkspaceRec[] = [];

  constructor(initial: readonly Workspace[]) {
    this.replace(initial);
  }

  /** Replaces every workspace (no transitions pending). */
  replace(list: readonly Workspace[]): void {
    this.#list = list.map((ws) => ({ ws: structuredClone(ws), since: 0 }));
  }

  /** The workspaces at `now`, after due transitions. */
  list(now: number, transition: number): Workspace[] {
    this.#settle(now, transition);
    return this.#list.map((r) => structuredClone(r.ws));
  }

  #settle(now: number, transition: number): void {
    this.#list = this.#list.filter((r) => {
      if (!r.pending || now - r.since < transition) return true;
      if (r.pending === 'deprovision') return false;
      r.ws.state = 'Active';
      delete r.pending;
      return true;
    });
  }

  #find(id: string, now: number, transition: number): WorkspaceRec | undefined {
    this.#settle(now, transition);
    return this.#list.find((r) => r.ws.workspaceId === id);
  }

  /** Serves /v1/organizations/{org}/workspaces[/{id}]. */
  async handle(env: Env, r: Request, route: 'list' | 'item'): Promise<Reply> {
    const org = r.params[0] ?? '';
    if (env.organizationId !== undefined && org !== env.organizationId) return env.fail('mgmt', 403, 'Forbidden');
    const now = env.clock.now();
    const transition = env.faults.workspaceTransition;
    if (route === 'list') {
      if (r.method !== 'POST') {
        const items = this.list(now, transition);
        return ok({ items, count: items.length });
      }
      const body = await readJsonBody(r.req);
      if (!body.ok) return env.fail('mgmt', body.status, body.message);
      const parsed = createSchema.safeParse(body.value);
      if (!parsed.success) return env.fail('mgmt', 400, formatIssues(parsed.error, ''));
      if (this.#find(parsed.data.workspaceId, now, transition)) {
        return env.fail('mgmt', 409, `Workspace "${parsed.data.workspaceId}" already exists`);
      }
      const { workspaceId, ...rest } = parsed.data;
      const ws: Workspace = {
        workspaceId,
        region: CREATED_REGION,
        leaderFQDN: `${workspaceId}-${org}.cribl.cloud`,
        state: transition > 0 ? 'Provisioning' : 'Active',
        ...rest,
      };
      this.#list.push({ ws, since: now, ...(transition > 0 ? { pending: 'provision' as const } : {}) });
      return { status: 201, body: JSON.stringify(ws) };
    }
    const id = r.params[1] ?? '';
    const rec = this.#find(id, now, transition);
    if (!rec) return env.fail('mgmt', 404, `Workspace "${id}" not found`);
    switch (r.method) {
      case 'PATCH': {
        const body = await readJsonBody(r.req);
        if (!body.ok) return env.fail('mgmt', body.status, body.message);
        const parsed = patchSchema.safeParse(body.value);
        if (!parsed.success) return env.fail('mgmt', 400, formatIssues(parsed.error, ''));
        // Partial update (rule 6): only the fields sent change.
        const target = rec.ws as unknown as Record<string, unknown>;
        for (const [k, v] of Object.entries(parsed.data)) if (v !== undefined) target[k] = v;
        return { status: 204, body: '' };
      }
      case 'DELETE':
        if (rec.pending !== 'deprovision') {
          rec.ws.state = 'Deprovisioning';
          rec.pending = 'deprovision';
          rec.since = now;
        }
        if (transition <= 0) this.#settle(now, transition);
        return { status: 202, body: '' };
      default:
        return ok(rec.ws);
    }
  }
}
