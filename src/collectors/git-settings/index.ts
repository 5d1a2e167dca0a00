/**
 * GET /system/settings/git-settings (global context, once per discovery, `--[no-]collector.git-settings`): whether
 * the leader's config is backed up to a remote git repository. The remote's URL is never exported (it may carry
 * credentials); only whether there is one, and a few bounded settings.
 */
import * as z from 'zod';
import { ENDPOINTS } from '@cribl-exporter/api/routes';
import type { LeaderRequest } from '../../leader/types.js';
import { factsKey, type ScopeFamily } from '../collector.js';
import { get, leaderReader, type Read } from '../read.js';
import { bit, gaugeOf, line, q } from '../sample.js';

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
  const { remote, ...kept } = gitSettingsAnswer.parse(json);
  return { remoteConfigured: (remote ?? '').trim() !== '', ...kept };
}

/** The leader's git settings. */
export const gitSettingsRequest = (deadline: number, signal?: AbortSignal): LeaderRequest<GitSettings> =>
  get(ENDPOINTS.gitSettings, '/system/settings/git-settings', decodeGitSettings, deadline, signal);

/** What the exporter knows of the git settings: the last answer, kept through a failed read. */
export const gitFacts = factsKey<Read<GitSettings>>(NAME);

const FAMILIES: readonly ScopeFamily[] = [
  gaugeOf(
    'cribl_leader_git_remote_configured',
    '1 when the leader pushes its config to a remote git repository (git settings have a remote), else 0.',
    (l) => bit(gitFacts.of(l)?.value?.remoteConfigured),
  ),
  {
    name: 'cribl_leader_git_settings_info',
    what: "The leader's git settings (value 1): branch, git_ops (none, pull, push) and auto_action; empty if unset.",
    labels: ['branch', 'git_ops', 'auto_action'],
    sample: (l, base) => {
      const s = gitFacts.of(l)?.value;
      if (!s) return '';
      const extra = `branch=${q(s.branch)},git_ops=${q(s.gitOps)},auto_action=${q(s.autoAction)}`;
      return line('cribl_leader_git_settings_info', base, extra);
    },
  },
];

export const gitSettings = leaderReader({
  name: NAME,
  flag: 'collector.git-settings',
  help:
    'Read the git settings of each leader once per discovery (cribl_leader_git_remote_configured): one request per ' +
    'discovery. Never on Cribl.Cloud leaders: Cribl.Cloud keeps their config in git itself.',
  notOnCloud: true,
  permission: 'the global settings (Org Admin or Owner, or a policy allowing GET /system/settings/git-settings)',
  request: gitSettingsRequest,
  families: FAMILIES,
});
