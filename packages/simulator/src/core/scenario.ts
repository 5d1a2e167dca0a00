import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import type { Workspace } from '@cribl-exporter/api/shapes';
import type { GitSettings } from '@cribl-exporter/api/resources';
import type { Output } from './resources.js';
import { TOKEN_ACCESS } from './auth.js';
import type { TokenAccess } from './auth.js';
import type { PackSpec } from './config-store.js';
import { faultsPatchSchema, formatIssues } from './faults.js';
import type { ParsedFaultsPatch } from './faults.js';
import type { ConfigVersionStyle, GroupSizes, SimLeaderState } from './fleet-types.js';
import { routeName } from './route-names.js';
import { invalidOutput } from '../endpoints/outputs/shapes.js';
import { gitSchema } from '../endpoints/git-settings/scenario.js';
import { workspaceSchema } from '../endpoints/workspaces/scenario.js';
import type { HaOptions } from './ha.js';
import { duration } from './schema-util.js';

/** A scenario file that does not validate; the message is one line naming the file and the field. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
}

/** A number of nodes, or a share of the fleet (`"3%"`, of `nodes` once the flags have given it). */
export type NodeCount = number | `${number}%`;

/** The number of nodes a NodeCount names in a fleet of `nodes` (a share rounded to the nearest node). */
export function nodeCount(count: NodeCount | undefined, nodes: number): number {
  if (count === undefined) return 0;
  if (typeof count === 'number') return count;
  return Math.round((Number(count.slice(0, -1)) / 100) * nodes);
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
  disconnected?: NodeCount;
  /** How many nodes start silent: connected, their last heartbeat 10 minutes before the start (Fleet.setSilent). */
  silent?: NodeCount;
  /** How many nodes run their group's previous config version (config drift). */
  drift?: NodeCount;
  /** How many nodes restart when the simulator starts (startTime = start). */
  restarted?: number;
  /** How many Edge nodes start in each `nodeUpgradeStatus` state (the rest keep theirs). */
  upgrades?: { active?: NodeCount; current?: NodeCount; failed?: NodeCount; skipped?: NodeCount };
  /** Listing `status` values other than the health mode's, by how many nodes report them, e.g. {degraded: 2}. */
  statuses?: Record<string, number>;
  /** The leader's own state at start (/health and the whole control plane answer 420 unless healthy). */
  leaderState?: SimLeaderState;
  /** Worker groups: default, prod-east, prod-west, then group-4, … (default 3). */
  streamGroups?: number;
  /** Edge fleets: default_fleet, retail-stores, factories, then fleet-4, … (default 3). */
  edgeFleets?: number;
  /** Destinations over all groups, spread evenly, `devnull` included (default: 3–5 per group by seed). */
  destinations?: number;
  /** Sources over all groups, spread evenly (default: 2–4 per group by seed). */
  sources?: number;
  /** Config versions as short commit hashes (default) or `1.0.N`. */
  configVersions?: ConfigVersionStyle;
  /** Share of the nodes that are Edge nodes, 0 to 1 (default 0.35). */
  edgeShare?: number;
  /** `even` (default) or `varied`: beyond the three default groups of a product, the i-th weighs 1/i. */
  groupSizes?: GroupSizes;
  /** Cribl versions the nodes run, by weight (`{"4.19.0": 60, "4.18.2": 40}`), each node's drawn from the seed. */
  criblVersions?: Record<string, number>;
}

/** Per-group settings of a scenario (`groups.<id>`). */
export interface ScenarioGroup {
  /** Commits newer than the deployed configVersion. */
  undeployedCommits?: number;
  /** Nodes of this group on the previous config version. */
  drift?: number;
  incompatibleWorkerCount?: number;
  /** Replaces the default packs (with their pipelines). */
  packs?: PackSpec[];
  /** Replaces the default destinations. */
  outputs?: Output[];
  /** Destinations of its data-flow status (`devnull` included), overriding `fleet.destinations`. */
  destinations?: number;
  /** Sources of its data-flow status, overriding `fleet.sources`. */
  sources?: number;
  /** `git.localChanges`: uncommitted configuration changes. */
  localChanges?: number;
}

/** A parsed scenario: initial fleet, faults (durations in ms), and optional credentials and workspaces. */
export interface Scenario {
  fleet?: ScenarioFleet;
  faults: ParsedFaultsPatch;
  users?: { username: string; password: string; access?: TokenAccess; deny?: string[] }[];
  clients?: { clientId: string; clientSecret: string; access?: TokenAccess; deny?: string[] }[];
  /** Extra static bearer tokens and their rights (`deny`: route templates refused with 403). */
  tokens?: { token: string; access: TokenAccess; deny?: string[] }[];
  workspaces?: Workspace[];
  groups?: Record<string, ScenarioGroup>;
  /** The leader's git settings (absent: defaults, no remote). */
  git?: GitSettings;
  /** An HA pair (or more hosts) over the fleet, with scheduled failovers (durations in ms). */
  ha?: HaOptions;
}

const n = z.number().int().nonnegative();
/** A count of nodes, or a share of the fleet such as "2.5%". */
const count = z.union([
  n,
  z
    .string()
    .regex(/^\d+(\.\d+)?%$/, { message: 'expected a number of nodes or a share such as "3%"' })
    .refine((v) => Number(v.slice(0, -1)) <= 100, { message: 'a share is at most 100%' }) as z.ZodType<`${number}%`>,
]);

const access = z.enum(TOKEN_ACCESS as [TokenAccess, ...TokenAccess[]]);
const deny = z.array(routeName).optional();

const pipelineSchema = z.strictObject({
  id: z.string().min(1),
  conf: z.looseObject({
    functions: z.array(z.looseObject({ id: z.string().min(1), conf: z.record(z.string(), z.unknown()) })).optional(),
  }),
});

const packSchema = z.looseObject({
  id: z.string().min(1),
  source: z.string().default(''),
  version: z.string().optional(),
  displayName: z.string().optional(),
  pipelines: z.array(pipelineSchema).optional(),
});

const outputSchema = z.looseObject({ id: z.string(), type: z.string() }).superRefine((o, ctx) => {
  const invalid = invalidOutput(o);
  if (invalid) ctx.addIssue({ code: 'custom', message: invalid });
});

export const groupSchema = z.strictObject({
  undeployedCommits: n.max(1000).optional(),
  drift: n.optional(),
  incompatibleWorkerCount: n.optional(),
  packs: z.array(packSchema).optional(),
  outputs: z.array(outputSchema).optional(),
  destinations: z.number().int().min(1).max(10_000).optional(),
  sources: n.max(10_000).optional(),
  localChanges: n.optional(),
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
        .strictObject({
          unreachable: n.optional(),
          slow: n.optional(),
          standby: n.optional(),
          shuttingDown: n.optional(),
        })
        .optional(),
      disconnected: count.optional(),
      silent: count.optional(),
      drift: count.optional(),
      restarted: n.optional(),
      upgrades: z
        .strictObject({
          active: count.optional(),
          current: count.optional(),
          failed: count.optional(),
          skipped: count.optional(),
        })
        .optional(),
      statuses: z.record(z.string().min(1), n).optional(),
      leaderState: z.enum(['healthy', 'standby', 'shutting down']).optional(),
      streamGroups: z.number().int().min(1).max(1000).optional(),
      edgeFleets: z.number().int().min(1).max(1000).optional(),
      destinations: z.number().int().min(1).max(1_000_000).optional(),
      sources: n.max(1_000_000).optional(),
      configVersions: z.enum(['hash', 'semver']).optional(),
      edgeShare: z.number().min(0).max(1).optional(),
      groupSizes: z.enum(['even', 'varied']).optional(),
      criblVersions: z
        .record(z.string(), z.number().positive())
        .superRefine((r, ctx) => {
          if (Object.keys(r).length === 0) ctx.addIssue({ code: 'custom', message: 'at least one version' });
          for (const v of Object.keys(r)) {
            if (!/^\d+\.\d+\.\d+$/.test(v))
              ctx.addIssue({ code: 'custom', path: [v], message: `expected a version such as "4.19.0", got "${v}"` });
          }
        })
        .optional(),
    })
    .optional(),
  faults: faultsPatchSchema.default({}),
  users: z
    .array(z.strictObject({ username: z.string().min(1), password: z.string(), access: access.optional(), deny }))
    .optional(),
  clients: z
    .array(z.strictObject({ clientId: z.string().min(1), clientSecret: z.string(), access: access.optional(), deny }))
    .optional(),
  tokens: z
    .array(z.strictObject({ token: z.string().min(8).regex(/^\S+$/, { message: 'no spaces' }), access, deny }))
    .optional(),
  workspaces: z.array(workspaceSchema).optional(),
  /** Checked against the fleet's groups when the simulator starts (their number is a fleet setting). */
  groups: z.record(z.string().min(1), groupSchema).optional(),
  git: gitSchema.optional(),
  ha: z
    .strictObject({
      hosts: z.number().int().min(2).max(9).optional(),
      loadBalancer: z.boolean().optional(),
      failovers: z
        .array(
          z.strictObject({
            start: duration,
            gap: duration.default(0),
            to: n.max(8).optional(),
            down: z.boolean().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
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
    throw new ScenarioError(
      `${source}: expected a mapping at the top level ` +
        '(fleet, faults, users, clients, tokens, workspaces, groups, git, ha)',
    );
  }
  const parsed = scenarioSchema.safeParse(doc);
  if (!parsed.success) throw new ScenarioError(`${source}: ${formatIssues(parsed.error, '')}`);
  const out: Scenario = { faults: parsed.data.faults };
  if (parsed.data.fleet) out.fleet = parsed.data.fleet;
  if (parsed.data.users) out.users = parsed.data.users;
  if (parsed.data.clients) out.clients = parsed.data.clients;
  if (parsed.data.workspaces) out.workspaces = parsed.data.workspaces;
  if (parsed.data.tokens) out.tokens = parsed.data.tokens;
  if (parsed.data.groups) out.groups = parsed.data.groups;
  if (parsed.data.git) out.git = parsed.data.git;
  if (parsed.data.ha) out.ha = parsed.data.ha;
  return out;
}
