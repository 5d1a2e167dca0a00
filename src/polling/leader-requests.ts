/**
 * The requests a discovery sends besides the listing, through the leader's client (so its budget), bounded by
 * the discovery's deadline: the leader's own GET /health, one GET /m/{group}/version per listed group, and
 * GET /system/settings/git-settings (`--[no-]collector.git-settings`). Never in /metrics' path.
 */
import { gitSettingsRequest, nextGit, type GitFacts } from '../collectors/git-settings.js';
import { nextVersions, versionRequest, type VersionFacts } from '../collectors/group-version.js';
import { leaderHealthRequest, nextLeaderHealth, type LeaderHealthFacts } from '../collectors/leader-health.js';
import type { GroupState } from '../collectors/state.js';
import type { LeaderClient } from '../leader/types.js';
import type { Clock } from '../util/clock.js';

/** Version requests of one discovery in flight at once: the budget paces them, this keeps the burst small. */
const VERSION_CONCURRENCY = 4;

/** The leader's /health (anonymous): its facts after this discovery's answer. */
export async function pollLeaderHealth(
  client: LeaderClient,
  prev: LeaderHealthFacts | undefined,
  clock: Clock,
  deadline: number,
  signal: AbortSignal,
): Promise<LeaderHealthFacts> {
  const res = await client.request(leaderHealthRequest(deadline, signal));
  return nextLeaderHealth(prev, res, clock.now());
}

/** The git settings: their facts after this discovery's answer. */
export async function pollGitSettings(
  client: LeaderClient,
  prev: GitFacts | undefined,
  deadline: number,
  signal: AbortSignal,
): Promise<GitFacts> {
  return nextGit(prev, await client.request(gitSettingsRequest(deadline, signal)));
}

/**
 * The groups' version facts before this discovery's requests: kept while a group's deployed version is the one
 * they were counted against, dropped otherwise (a deploy makes the count wrong).
 */
export function carriedVersions(
  groups: readonly GroupState[],
  prev: (g: GroupState) => VersionFacts | undefined,
): GroupState[] {
  return groups.map((g) => {
    const { versions: _none, ...rest } = g;
    const v = prev(g);
    return v && v.deployed === g.group.configVersion ? { ...rest, versions: v } : rest;
  });
}

/** One GET /m/{group}/version per group (a few at a time); returns the groups with their version facts. */
export async function pollVersions(
  client: LeaderClient,
  groups: readonly GroupState[],
  deadline: number,
  signal: AbortSignal,
): Promise<GroupState[]> {
  const out = [...groups];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < out.length && !signal.aborted) {
      const i = next++;
      const g = out[i]!;
      const res = await client.request(versionRequest(g.group.id, deadline, signal));
      out[i] = { ...g, versions: nextVersions(g.versions, g.group, res) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(VERSION_CONCURRENCY, out.length) }, worker));
  return out;
}
