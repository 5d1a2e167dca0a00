import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { Workspace } from '../api/shapes.js';
import { faultsPatchSchema, formatIssues } from './faults.js';
import type { ParsedFaultsPatch } from './faults.js';

/** A scenario file that does not validate; the message is one line naming the file and the field. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
}

/** Initial fleet settings of a scenario; command-line flags and options win over them. */
export interface ScenarioFleet {
  nodes?: number;
  seed?: number;
  leaderVersion?: string;
  /** Add one node per hostile id (see HOSTILE_IDS). */
  hostileIds?: boolean;
  /** How many nodes start in each non-healthy mode (picked deterministically). */
  health?: { unreachable?: number; slow?: number; standby?: number; shuttingDown?: number };
  /** How many nodes start disconnected. */
  disconnected?: number;
}

/** A parsed scenario: initial fleet, faults (durations in ms), and optional credentials and workspaces. */
export interface Scenario {
  fleet?: ScenarioFleet;
  faults: ParsedFaultsPatch;
  users?: { username: string; password: string }[];
  clients?: { clientId: string; clientSecret: string }[];
  workspaces?: Workspace[];
}

const n = z.number().int().nonnegative();

/** Schema of one management-plane workspace (also used by the admin endpoint). */
export const workspaceSchema = z.strictObject({
  workspaceId: z.string().min(1),
  region: z.string().min(1),
  leaderFQDN: z.string().min(1),
  state: z.enum(['Provisioning', 'Active', 'Inactive', 'Failed', 'Deprovisioning']),
  alias: z.string().optional(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
});

const scenarioSchema = z.strictObject({
  fleet: z
    .strictObject({
      nodes: z.number().int().positive().max(1_000_000).optional(),
      seed: z.number().int().optional(),
      leaderVersion: z
        .string()
        .regex(/^\d+\.\d+(\.\d+)?$/, { message: 'expected a version such as "4.16" or "4.19.0"' })
        .optional(),
      hostileIds: z.boolean().optional(),
      health: z
        .strictObject({ unreachable: n.optional(), slow: n.optional(), standby: n.optional(), shuttingDown: n.optional() })
        .optional(),
      disconnected: n.optional(),
    })
    .optional(),
  faults: faultsPatchSchema.default({}),
  users: z.array(z.strictObject({ username: z.string().min(1), password: z.string() })).optional(),
  clients: z.array(z.strictObject({ clientId: z.string().min(1), clientSecret: z.string() })).optional(),
  workspaces: z.array(workspaceSchema).optional(),
});

/**
 * Parses a scenario file (YAML or JSON; JSON is YAML). Throws ScenarioError with a one-line message
 * such as `chaos.yaml: faults.rateLimit.rate: Too small: expected number to be >0`.
 */
export function parseScenario(text: string, source: string): Scenario {
  let doc: unknown;
  try {
    doc = parseYaml(text, { prettyErrors: false });
  } catch (e) {
    const first = (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
    const pos = (e as { pos?: number[] }).pos?.[0];
    const line = pos === undefined ? undefined : text.slice(0, pos).split('\n').length;
    throw new ScenarioError(`${source}: not valid YAML or JSON${line ? ` (line ${line})` : ''}: ${first}`);
  }
  if (doc === null || doc === undefined) doc = {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ScenarioError(`${source}: expected a mapping at the top level (fleet, faults, users, clients, workspaces)`);
  }
  const parsed = scenarioSchema.safeParse(doc);
  if (!parsed.success) throw new ScenarioError(`${source}: ${formatIssues(parsed.error, '')}`);
  const out: Scenario = { faults: parsed.data.faults };
  if (parsed.data.fleet) out.fleet = parsed.data.fleet;
  if (parsed.data.users) out.users = parsed.data.users;
  if (parsed.data.clients) out.clients = parsed.data.clients;
  if (parsed.data.workspaces) out.workspaces = parsed.data.workspaces;
  return out;
}
