/**
 * The leader's licenses and its daily ingest: GET /system/licenses and GET /system/licenses/usage (the in-product
 * API of on-prem and hybrid leaders), every --license.interval (`--[no-]collector.license`).
 * Cribl.Cloud leaders answer 403 or 404: the collector is then off for that leader, said once in an info line.
 *
 * What the API does not promise is checked: `exp` is Unix seconds in every observation (a value only milliseconds
 * can be is read as such, and said), `quota` is GB per day (taken as 10^9 bytes), usage days come in any order (the
 * last complete day is the one with the latest end not after now).
 */
import * as z from 'zod';
import { ENDPOINTS } from '@cribl-exporter/api/routes';
import type { LeaderRequest } from '../../leader/types.js';
import { boolRow, intervalRow } from '../../settings/table.js';
import { formatDuration } from '@cribl-exporter/api/duration';
import { collector, factsKey, type RunContext, type ScopeFamily, type ScopeItem } from '../collector.js';
import { get, nextRead, type Read } from '../read.js';
import { each, finite, gaugeOf, line, q } from '../sample.js';

export const NAME = 'license';

/** Bytes in the GB of a quota: decimal, as Cribl states sizes per day (TB/day); the API does not say. */
export const GB = 1e9;

/** Epoch seconds beyond this (year 5138) can only be milliseconds. */
const SECONDS_MAX = 1e11;

/** A license as kept. */
export interface LicenseFacts {
  readonly id: string;
  /** `cls`: prod, trial or free (whatever the leader says, cut to 32 characters). */
  readonly type: string;
  readonly title: string;
  readonly expiresMs?: number;
  readonly quotaBytesPerDay?: number;
}

/** The last complete day's ingest. */
export interface UsageFacts {
  /** Billed: `inBytes` less `exemptedLicenseInBytes` (Datagen, Cribl internal sources). */
  readonly billedBytes: number;
  /** Epoch ms the day ended. */
  readonly endMs: number;
}

/** GET /system/licenses as kept. */
export interface LicenseList {
  readonly licenses: readonly LicenseFacts[];
  /** `exp` came in milliseconds (not the seconds of every observation). */
  readonly expInMs: boolean;
}

/** The last reads of the two routes, each kept through a failed read of its own. */
export interface LicensesFacts {
  readonly licenses?: Read<LicenseList>;
  readonly usage?: Read<UsageFacts | undefined>;
}

export const licenseFacts = factsKey<LicensesFacts>(NAME);

const num = z.number().finite().optional().catch(undefined);
const licenseList = z.object({
  items: z.array(
    z
      .object({ id: z.string().min(1), cls: z.string().catch(''), title: z.string().catch(''), exp: num, quota: num })
      .or(z.unknown()),
  ),
});

/** Decodes GET /system/licenses: each license once, by id; what is not a license is left out. */
export function decodeLicenses(json: unknown): LicenseList {
  const seen = new Set<string>();
  const licenses: LicenseFacts[] = [];
  let expInMs = false;
  for (const item of licenseList.parse(json).items) {
    if (typeof item !== 'object' || item === null || !('id' in item) || typeof item.id !== 'string') continue;
    const l = item as { id: string; cls: string; title: string; exp?: number; quota?: number };
    if (seen.has(l.id)) continue;
    seen.add(l.id);
    const ms = l.exp === undefined ? undefined : l.exp > SECONDS_MAX ? l.exp : l.exp * 1000;
    if (l.exp !== undefined && l.exp > SECONDS_MAX) expInMs = true;
    licenses.push({
      id: l.id,
      type: l.cls.slice(0, 32),
      title: l.title.slice(0, 128),
      ...(ms === undefined ? {} : { expiresMs: ms }),
      ...(l.quota === undefined || l.quota < 0 ? {} : { quotaBytesPerDay: l.quota * GB }),
    });
  }
  return { licenses, expInMs };
}

const usageList = z.object({
  items: z.array(z.object({ startTime: num, endTime: num, inBytes: num, exemptedLicenseInBytes: num }).or(z.unknown())),
});

/** The last complete day of GET /system/licenses/usage at `nowMs` (its end not after now), whatever the order. */
export function decodeUsage(json: unknown, nowMs: number): UsageFacts | undefined {
  let last: UsageFacts | undefined;
  for (const item of usageList.parse(json).items) {
    const d = item as { endTime?: number; inBytes?: number; exemptedLicenseInBytes?: number };
    const end = finite(d.endTime);
    const bytes = finite(d.inBytes);
    if (end === undefined || bytes === undefined || end > nowMs) continue;
    if (last && last.endMs >= end) continue;
    last = { endMs: end, billedBytes: Math.max(0, bytes - (finite(d.exemptedLicenseInBytes) ?? 0)) };
  }
  return last;
}

export const licensesRequest = (deadline: number, signal?: AbortSignal): LeaderRequest<LicenseList> =>
  get(ENDPOINTS.licenses, '/system/licenses', decodeLicenses, deadline, signal);

export const usageRequest = (
  nowMs: number,
  deadline: number,
  signal?: AbortSignal,
): LeaderRequest<UsageFacts | undefined> =>
  get(ENDPOINTS.licenseUsage, '/system/licenses/usage', (json) => decodeUsage(json, nowMs), deadline, signal);

async function run(ctx: RunContext<unknown>): Promise<void> {
  const prev = ctx.leaderFacts() as LicensesFacts | undefined;
  const licenses = await ctx.client.request(licensesRequest(ctx.deadline, ctx.signal));
  const usage = await ctx.client.request(usageRequest(ctx.clock.now(), ctx.deadline, ctx.signal));
  if (ctx.signal.aborted) return;
  if (licenses.ok && licenses.body.expInMs) {
    ctx.warnOnce('exp-ms', {}, 'the leader gives license expiry (exp) in milliseconds, not seconds: read as such');
  }
  const now = ctx.clock.now();
  ctx.setLeaderFacts({
    licenses: nextRead(prev?.licenses, licenses, now),
    usage: nextRead(prev?.usage, usage, now),
  } satisfies LicensesFacts);
}

const licensesOf = (item: ScopeItem): readonly LicenseFacts[] => licenseFacts.of(item)?.licenses?.value?.licenses ?? [];
const usageOf = (item: ScopeItem): UsageFacts | undefined => licenseFacts.of(item)?.usage?.value;

/** A line per license: `name{…,license_id="…"} value`, for the licenses with a value. */
const perLicense = (name: string, what: string, read: (l: LicenseFacts) => number | undefined): ScopeFamily => ({
  name,
  what,
  labels: ['license_id'],
  sample: (item, base) =>
    each(licensesOf(item), (l) => {
      const v = read(l);
      return v === undefined ? '' : line(name, base, `license_id=${q(l.id)}`, v);
    }),
});

const FAMILIES: readonly ScopeFamily[] = [
  {
    name: 'cribl_license_info',
    what: 'A license installed on the leader (value 1): its id, type (prod, trial, free) and title.',
    labels: ['license_id', 'type', 'title'],
    sample: (item, base) =>
      each(licensesOf(item), (l) =>
        line('cribl_license_info', base, `license_id=${q(l.id)},type=${q(l.type)},title=${q(l.title)}`),
      ),
  },
  perLicense('cribl_license_expiry_timestamp_seconds', 'When the license expires (exp).', (l) =>
    l.expiresMs === undefined ? undefined : l.expiresMs / 1000,
  ),
  perLicense(
    'cribl_license_quota_bytes_per_day',
    'Daily ingest the license allows: its quota in GB per day, taken as 10^9 bytes (decimal, as Cribl states ' +
      'volumes per day; the API does not say; 2^30 would be 7.4 % more).',
    (l) => l.quotaBytesPerDay,
  ),
  gaugeOf(
    'cribl_license_usage_in_bytes',
    'Billed ingest of the last complete day: inBytes less exemptedLicenseInBytes (Datagen, Cribl internal sources).',
    (l) => usageOf(l)?.billedBytes,
  ),
  gaugeOf('cribl_license_usage_timestamp_seconds', 'End of that last complete day.', (l) => usageOf(l)?.endMs, 1000),
];

export const license = collector({
  name: NAME,
  settings: {
    enabled: boolRow(
      'collector.license',
      true,
      'Read the leader’s licenses and its last day’s ingest every --license.interval (cribl_license_info): two ' +
        'requests. Cribl.Cloud leaders refuse them: the collector turns itself off there.',
    ),
    intervalMs: intervalRow('license.interval', '1h', 'Collectors', 'How often the licenses and their usage are read.'),
  },
  enabled: (s) => s.enabled,
  optional: true,
  refusalExpected: (target) => target.cloud,
  permission: 'an Admin role (the license settings)',
  freshness: (s) =>
    `Read every ${formatDuration(s.intervalMs)} through the leader (--collector.license); cached in between.`,
  families: { leader: FAMILIES },
  schedule: { kind: 'interval', cost: { perRun: 2 }, intervalMs: (s) => s.intervalMs, run },
  probe: (_s, _g, deadline) => licensesRequest(deadline),
});
