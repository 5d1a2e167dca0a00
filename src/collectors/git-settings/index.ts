/**
 * GET /system/settings/git-settings (global context, once per discovery, `--[no-]collector.git-settings`): whether
 * the leader's config is backed up to a remote git repository. The remote's URL is never exported (it may carry
 * credentials); only whether there is one, and a few bounded settings.
 */
import * as z from 'zod';
import { ENDPOINTS } from '../../api/routes.js';
import { series } from '../../format/family.js';
import type { LeaderRequest, LeaderResult } from '../../leader/types.js';
import { boolRow } from '../../settings/table.js';
import { collector, discoveryFreshness, factsKey, type RunContext, type ScopeFamily } from '../collector.js';
import { requestFailureReason, type RequestFailureReason } from '../failure-reason.js';
import { bit, q, scopeGauge } from '../sample.js';

export const NAME = 'git_settings';

const str = z.string().optional().catch(undefined);
// `{count, items:[GitSettings]}`; nothing in the settings is required.
const gitSettingsAnswer = z
  .object({ items: z.array(z.object({ branch: str, gitOps: str, remote: str, autoAction: str })).min(1) })
  .transform((c) => c.items[0] ?? {});

/** The settings kept: whether a remote is set, never the remote itself. */
export interface GitSettings {
  remoteConfigured: boolean;
  branch?: string;
  gitOps?: string;
  autoAction?: string;
}

/** Decodes the git settings answer, keeping no secret and no URL. */
export function decodeGitSettings(json: unknown): GitSettings {
  const s = gitSettingsAnswer.parse(json);
  return {
    remoteConfigured: (s.remote ?? '').trim() !== '',
    ...(s.branch === undefined ? {} : { branch: s.branch }),
    ...(s.gitOps === undefined ? {} : { gitOps: s.gitOps }),
    ...(s.autoAction === undefined ? {} : { autoAction: s.autoAction }),
  };
}

/** The leader's git settings. */
export function gitSettingsRequest(deadline: number, signal?: AbortSignal): LeaderRequest<GitSettings> {
  return {
    endpoint: ENDPOINTS.gitSettings,
    path: '/system/settings/git-settings',
    deadline,
    decode: decodeGitSettings,
    ...(signal ? { signal } : {}),
  };
}

/** What the exporter knows of the git settings: the last answer, kept through a failed read. */
export interface GitFacts {
  settings?: GitSettings;
  failure?: RequestFailureReason;
}

export const gitFacts = factsKey<GitFacts>(NAME);

/** The facts after a result. */
export function nextGit(prev: GitFacts | undefined, res: LeaderResult<GitSettings>): GitFacts {
  if (res.ok) return { settings: res.body };
  return { ...(prev?.settings ? { settings: prev.settings } : {}), failure: requestFailureReason(res) };
}

async function run(ctx: RunContext<unknown>): Promise<void> {
  const res = await ctx.client.request(gitSettingsRequest(ctx.deadline, ctx.signal));
  if (!ctx.signal.aborted) ctx.setLeaderFacts(nextGit(ctx.leaderFacts() as GitFacts | undefined, res));
}

const FAMILIES: readonly ScopeFamily[] = [
  scopeGauge(
    'cribl_leader_git_remote_configured',
    '1 when the leader pushes its config to a remote git repository (git settings have a remote), else 0.',
    (l) => bit(gitFacts.of(l)?.settings?.remoteConfigured),
  ),
  {
    name: 'cribl_leader_git_settings_info',
    what: "The leader's git settings (value 1): branch, git_ops (none, pull, push) and auto_action; empty if unset.",
    labels: ['branch', 'git_ops', 'auto_action'],
    sample: (l, base) => {
      const s = gitFacts.of(l)?.settings;
      if (!s) return '';
      const extra = `branch=${q(s.branch)},git_ops=${q(s.gitOps)},auto_action=${q(s.autoAction)}`;
      return `${series('cribl_leader_git_settings_info', base, extra)} 1\n`;
    },
  },
];

export const gitSettings = collector({
  name: NAME,
  settings: {
    enabled: boolRow(
      'collector.git-settings',
      true,
      'Read the git settings of each leader once per discovery (cribl_leader_git_remote_configured): one request ' +
        'per discovery.',
    ),
  },
  enabled: (s) => s.enabled,
  optional: true,
  freshness: (_s, intervals) => discoveryFreshness(intervals),
  families: { leader: FAMILIES },
  schedule: { kind: 'discovery', run },
  probe: (_s, _g, deadline) => gitSettingsRequest(deadline),
});
