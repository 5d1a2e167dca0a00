/**
 * The packs installed in each group, with the number of pipelines each brings (opt-in `--collector.packs`, every
 * `--packs.interval`). As a real leader answers: GET /m/{group}/packs lists a group's packs, GET
 * /m/{group}/p/{pack}/pipelines a pack's pipelines. (The spec's global `GET /pack/{id}` exists in no published
 * API; packs belong to a group.) One request at a time, the last list kept through a failure.
 */
import * as z from 'zod';
import { ENDPOINTS, segment } from '@cribl-exporter/api/routes';
import type { LeaderRequest } from '../../leader/types.js';
import { boolRow, intervalRow } from '../../settings/table.js';
import { collector, factsKey, groupKey, type GroupFamily, type GroupItem, type RunContext } from '../collector.js';
import { requestFailureReason } from '../failure-reason.js';
import { get, type Read } from '../read.js';
import { each, finite, line, q } from '../sample.js';
import { formatDuration } from '@cribl-exporter/api/duration';

export const NAME = 'packs';

const packList = z.object({
  items: z.array(z.object({ id: z.string().min(1), version: z.string().optional().catch(undefined) })),
});

/** A pack as kept. */
export interface InstalledPack {
  id: string;
  version?: string;
  /** Pipelines of the pack; absent when they could not be read. */
  pipelines?: number;
}

/** Decodes a group's pack list. */
export function decodePacks(json: unknown): InstalledPack[] {
  const seen = new Set<string>();
  const packs: InstalledPack[] = [];
  for (const p of packList.parse(json).items) {
    if (seen.has(p.id)) continue; // one series per pack, whatever the answer repeats
    seen.add(p.id);
    packs.push({ id: p.id, ...(p.version ? { version: p.version } : {}) });
  }
  return packs;
}

/** GET /m/{group}/packs. */
const packsRequest = (group: string, deadline: number, signal?: AbortSignal): LeaderRequest<InstalledPack[]> =>
  get(ENDPOINTS.groupPacks, `/m/${segment(group)}/packs`, decodePacks, deadline, signal);

const pipelineList = z.object({ items: z.array(z.unknown()), totalCount: z.number().optional() });

/** The number of pipelines of a pipelines answer: `totalCount` of a paged answer, else the items. */
export function decodePipelineCount(json: unknown): number {
  const page = pipelineList.parse(json);
  return finite(page.totalCount) ?? page.items.length;
}

/** GET /m/{group}/p/{pack}/pipelines. */
function pipelinesRequest(group: string, pack: string, deadline: number, signal?: AbortSignal): LeaderRequest<number> {
  const path = `/m/${segment(group)}/p/${segment(pack)}/pipelines`;
  return get(ENDPOINTS.packPipelines, path, decodePipelineCount, deadline, signal);
}

/** What the exporter knows of a group's packs: the last list read (kept through a failed read). */
export type PacksFacts = Read<readonly InstalledPack[]>;

export const packsFacts = factsKey<PacksFacts>(NAME);

/** One group's packs and their pipeline counts, or why the list could not be read (the last list is kept). */
async function groupPacks(ctx: RunContext<unknown>, g: GroupItem): Promise<PacksFacts> {
  const { client, deadline, signal } = ctx;
  const res = await client.request(packsRequest(g.id, deadline, signal));
  if (!res.ok) {
    ctx.logger.debug({ group: g.id, reason: res.reason, status: res.status }, 'listing packs failed');
    return { ...packsFacts.of(g), failure: requestFailureReason(res) };
  }
  const packs: InstalledPack[] = [];
  for (const p of res.body) {
    if (signal.aborted) break;
    const count = await client.request(pipelinesRequest(g.id, p.id, deadline, signal));
    packs.push(count.ok ? { ...p, pipelines: count.body } : p);
  }
  return { value: packs, lastSuccessMs: ctx.clock.now() };
}

/** Reads the packs of every group once. */
async function run(ctx: RunContext<unknown>): Promise<void> {
  const facts = new Map<string, PacksFacts>();
  for (const g of ctx.groups()) {
    if (ctx.signal.aborted) return;
    facts.set(groupKey(g.product, g.id), await groupPacks(ctx, g));
  }
  if (!ctx.signal.aborted) ctx.setGroupFacts(facts);
}

const FAMILIES: readonly GroupFamily[] = [
  {
    name: 'cribl_group_pack_info',
    what: 'A pack installed in the group (value 1), with its version; empty when unreported.',
    labels: ['pack', 'version'],
    sample: (g, base) =>
      each(packsFacts.of(g)?.value, (p) =>
        line('cribl_group_pack_info', base, `pack=${q(p.id)},version=${q(p.version)}`),
      ),
  },
  {
    name: 'cribl_group_pack_pipelines',
    what: 'Pipelines a pack installed in the group brings; absent when they could not be read.',
    labels: ['pack'],
    sample: (g, base) =>
      each(packsFacts.of(g)?.value, (p) =>
        p.pipelines === undefined ? '' : line('cribl_group_pack_pipelines', base, `pack=${q(p.id)}`, p.pipelines),
      ),
  },
];

export const packs = collector({
  name: NAME,
  settings: {
    enabled: boolRow(
      'collector.packs',
      false,
      'Read the packs of every group and the pipelines of each pack every --packs.interval ' +
        '(cribl_group_pack_info): one request per group plus one per pack.',
    ),
    intervalMs: intervalRow(
      'packs.interval',
      '10m',
      'Collectors',
      'How often the packs are read (with --collector.packs).',
    ),
  },
  enabled: (s) => s.enabled,
  optional: true,
  freshness: (s) =>
    `Read every ${formatDuration(s.intervalMs)} through the leader (--collector.packs); cached in between.`,
  families: { group: FAMILIES },
  schedule: { kind: 'interval', perGroup: true, intervalMs: (s) => s.intervalMs, run },
  probe: (_s, group, deadline) => packsRequest(group ?? 'default', deadline),
});
