/**
 * GET /m/{group}/version (group context, once per discovery and group): the group's commit history, newest first.
 * Commits above the one the group has deployed (`configVersion`) are committed but not deployed. Also the owner of
 * how a short commit hash (a group's `configVersion`, a node's config version: 7 characters) and a full one (this
 * history: 40) are compared.
 */
import * as z from 'zod';
import { ENDPOINTS, segment } from '@cribl-exporter/api/routes';
import type { LeaderRequest, LeaderResult } from '../../leader/types.js';
import {
  collector,
  discoveryFreshness,
  factsKey,
  groupKey,
  type GroupFamily,
  type GroupItem,
  type RunContext,
} from '../collector.js';
import { requestFailureReason, type RequestFailureReason } from '../failure-reason.js';
import { get } from '../read.js';
import { groupsFacts } from '../groups/index.js';
import { gaugeOf } from '../sample.js';

export const NAME = 'group_version';

/** Commits read per group and discovery: the first page only. */
export const VERSION_PAGE = 50;

/** Shortest abbreviation git itself prints; shorter strings are never taken for a prefix of a hash. */
const MIN_ABBREV = 7;

/** A git commit hash, full or abbreviated (hex, 7–40 characters): what config versions are on every leader seen. */
const COMMIT_HASH = /^[0-9a-f]{7,40}$/i;

/** Whether a config version looks like a git commit hash (the API does not promise it: the spec's example is 1.0.0). */
export function isCommitHash(v: string | undefined): boolean {
  return v !== undefined && COMMIT_HASH.test(v.trim());
}

/**
 * Whether two config versions name the same commit: equal, or (case aside) one an abbreviation of the other, as a
 * 7-character short hash is of its 40-character hash. Never "different" because of length alone.
 */
export function sameCommit(a: string, b: string): boolean {
  if (a === b) return a !== '';
  const x = a.trim().toLowerCase();
  const y = b.trim().toLowerCase();
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  return short.length >= MIN_ABBREV && long.startsWith(short);
}

const str = z.string().optional().catch(undefined);
const versionPage = z.object({ items: z.array(z.object({ hash: str, date: str })) });

/** A commit as kept: its hash and time. */
export interface Commit {
  hash?: string;
  /** Epoch ms, when the date could be read. */
  timeMs?: number;
}

// `2026-11-21 12:00:00 +0000` (git's default; not ISO 8601 although the spec says so), or ISO 8601.
const GIT_DATE = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?$/;

/** Epoch ms of a commit date, or undefined when it is not a date. */
export function parseCommitDate(date: string | undefined): number | undefined {
  if (!date) return undefined;
  const m = GIT_DATE.exec(date.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, zone = 'Z'] = m;
  const offset = zone === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Decodes a /version page: the commits, newest first. */
export function decodeVersionPage(json: unknown): Commit[] {
  return versionPage.parse(json).items.map((c) => {
    const timeMs = parseCommitDate(c.date);
    return { ...(c.hash ? { hash: c.hash } : {}), ...(timeMs === undefined ? {} : { timeMs }) };
  });
}

/**
 * The first page of a group's commit history: `count` bounds the commits the leader reads (its git log), `limit` the
 * page.
 */
const versionRequest = (group: string, deadline: number, signal?: AbortSignal): LeaderRequest<Commit[]> =>
  get(ENDPOINTS.groupVersion, `/m/${segment(group)}/version`, decodeVersionPage, deadline, signal, {
    count: VERSION_PAGE,
    limit: VERSION_PAGE,
  });

/** What the exporter knows of a group's commits. */
export interface VersionFacts {
  /** The deployed version these were counted against. */
  deployed?: string;
  /** Commits above the deployed one; the page size when the deployed commit is not on the page. */
  undeployed?: number;
  /** Time of the newest commit. */
  lastCommitMs?: number;
  failure?: RequestFailureReason;
}

export const versionFacts = factsKey<VersionFacts>(NAME);

/** Counts the commits newer than `deployed` on a page (newest first). */
export function countUndeployed(commits: readonly Commit[], deployed: string | undefined): number | undefined {
  // A deployed version that is not a commit hash cannot be found among the commits: nothing to count.
  if (deployed === undefined || !isCommitHash(deployed)) return undefined;
  const i = commits.findIndex((c) => c.hash !== undefined && sameCommit(c.hash, deployed));
  return i >= 0 ? i : commits.length;
}

/**
 * The facts after a result. A failed read keeps the previous counts while the group's deployed version is the one
 * they were counted against (a deploy in between makes them wrong, so they go).
 */
export function nextVersions(
  prev: VersionFacts | undefined,
  deployed: string | undefined,
  res: LeaderResult<Commit[]>,
): VersionFacts {
  if (res.ok) {
    const undeployed = countUndeployed(res.body, deployed);
    const lastCommitMs = res.body[0]?.timeMs;
    return {
      ...(deployed === undefined ? {} : { deployed }),
      ...(undeployed === undefined ? {} : { undeployed }),
      ...(lastCommitMs === undefined ? {} : { lastCommitMs }),
    };
  }
  const failure = requestFailureReason(res);
  return prev && prev.deployed === deployed ? { ...prev, failure } : { failure };
}

/** The facts of a group while they were counted against its deployed version (a deploy makes them wrong). */
function current(g: GroupItem): VersionFacts | undefined {
  const v = versionFacts.of(g);
  return v && v.deployed === groupsFacts.of(g)?.configVersion ? v : undefined;
}

/** Version requests of one discovery in flight at once: the budget paces them, this keeps the burst small. */
const VERSION_CONCURRENCY = 4;

/** One GET /m/{group}/version per group, a few at a time. */
async function run(ctx: RunContext<unknown>): Promise<void> {
  const groups = ctx.groups();
  const facts = new Map<string, VersionFacts>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < groups.length && !ctx.signal.aborted) {
      const g = groups[next++]!;
      const res = await ctx.client.request(versionRequest(g.id, ctx.deadline, ctx.signal));
      facts.set(groupKey(g.product, g.id), nextVersions(current(g), groupsFacts.of(g)?.configVersion, res));
    }
  };
  await Promise.all(Array.from({ length: Math.min(VERSION_CONCURRENCY, groups.length) }, worker));
  if (!ctx.signal.aborted) ctx.setGroupFacts(facts);
}

const FAMILIES: readonly GroupFamily[] = [
  gaugeOf(
    'cribl_group_undeployed_commits',
    `Commits newer than the group's deployed configVersion (committed, not deployed), from the first ` +
      `${VERSION_PAGE} of GET /m/{group}/version; ${VERSION_PAGE} means at least ${VERSION_PAGE} (the deployed ` +
      `commit is not among them).`,
    (g) => current(g)?.undeployed,
  ),
  gaugeOf(
    'cribl_group_last_commit_timestamp_seconds',
    "Time of the newest commit of the group's config (deployed or not).",
    (g) => current(g)?.lastCommitMs,
    1000,
  ),
];

export const groupVersion = collector({
  name: NAME,
  freshness: (_s, intervals) => discoveryFreshness(intervals),
  families: { group: FAMILIES },
  schedule: { kind: 'discovery', cost: { perRun: 0, perGroup: 1 }, run },
  optional: true,
  probe: (_s, group, deadline) => versionRequest(group ?? 'default', deadline),
});
