/**
 * GET /system/settings/git-settings (global context, once per discovery, `--[no-]collector.git-settings`):
 * whether the leader's config is backed up to a remote git repository. The remote's URL is never exported (it may
 * carry credentials); only whether there is one, and a few bounded settings.
 */
import * as z from 'zod';
import { ENDPOINTS } from '../api/routes.js';
import { series, type Family } from '../format/family.js';
import type { LeaderRequest, LeaderResult } from '../leader/types.js';
import { requestFailureReason, type RequestFailureReason } from './failure-reason.js';
import { gauge, q } from './sample.js';
import type { LeaderState } from './state.js';

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

/** The facts after a result. */
export function nextGit(prev: GitFacts | undefined, res: LeaderResult<GitSettings>): GitFacts {
  if (res.ok) return { settings: res.body };
  return { ...(prev?.settings ? { settings: prev.settings } : {}), failure: requestFailureReason(res) };
}

/** Leader families from the git settings, in body order; absent while never read. */
export const GIT_FAMILIES: readonly Family<LeaderState>[] = [
  {
    name: 'cribl_leader_git_remote_configured',
    source: 'discovery',
    what: '1 when the leader pushes its config to a remote git repository (git settings have a remote), else 0.',
    labels: [],
    sample: (l, base) => {
      const s = l.git?.settings;
      return s ? gauge('cribl_leader_git_remote_configured', base, s.remoteConfigured ? 1 : 0) : '';
    },
  },
  {
    name: 'cribl_leader_git_settings_info',
    source: 'discovery',
    what: "The leader's git settings (value 1): branch, git_ops (none, pull, push) and auto_action; empty if unset.",
    labels: ['branch', 'git_ops', 'auto_action'],
    sample: (l, base) => {
      const s = l.git?.settings;
      if (!s) return '';
      const extra = `branch=${q(s.branch)},git_ops=${q(s.gitOps)},auto_action=${q(s.autoAction)}`;
      return `${series('cribl_leader_git_settings_info', base, extra)} 1\n`;
    },
  },
];
