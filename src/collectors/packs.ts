/**
 * The packs installed in each group, with the number of pipelines each brings (opt-in `--collector.packs`, every
 * `--packs.interval`). As a real leader answers: GET /m/{group}/packs lists a group's packs, GET
 * /m/{group}/p/{pack}/pipelines a pack's pipelines. (The spec's global `GET /pack/{id}` exists in no published
 * API; packs belong to a group: research note §16.)
 */
import * as z from 'zod';
import { ENDPOINTS, segment } from '../api/routes.js';
import { series, type Family } from '../format/family.js';
import type { LeaderRequest } from '../leader/types.js';
import type { RequestFailureReason } from './failure-reason.js';
import { finite, q } from './sample.js';
import type { GroupState } from './state.js';

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
export function packsRequest(group: string, deadline: number, signal?: AbortSignal): LeaderRequest<InstalledPack[]> {
  return {
    endpoint: ENDPOINTS.groupPacks,
    path: `/m/${segment(group)}/packs`,
    deadline,
    decode: decodePacks,
    ...(signal ? { signal } : {}),
  };
}

const pipelineList = z.object({ items: z.array(z.unknown()), totalCount: z.number().optional() });

/** The number of pipelines of a pipelines answer: `totalCount` of a paged answer, else the items. */
export function decodePipelineCount(json: unknown): number {
  const page = pipelineList.parse(json);
  return finite(page.totalCount) ?? page.items.length;
}

/** GET /m/{group}/p/{pack}/pipelines. */
export function pipelinesRequest(
  group: string,
  pack: string,
  deadline: number,
  signal?: AbortSignal,
): LeaderRequest<number> {
  return {
    endpoint: ENDPOINTS.packPipelines,
    path: `/m/${segment(group)}/p/${segment(pack)}/pipelines`,
    deadline,
    decode: decodePipelineCount,
    ...(signal ? { signal } : {}),
  };
}

/** What the exporter knows of a group's packs: the last list read (kept through a failed read). */
export interface PacksFacts {
  packs?: readonly InstalledPack[];
  lastSuccessMs?: number;
  failure?: RequestFailureReason;
}

/** Group families from the packs, in body order; absent without --collector.packs. */
export const PACKS_FAMILIES: readonly Family<GroupState>[] = [
  {
    name: 'cribl_group_pack_info',
    source: 'packs',
    what: 'A pack installed in the group (value 1), with its version; empty when unreported.',
    labels: ['pack', 'version'],
    sample: (g, base) => {
      let lines = '';
      for (const p of g.packs?.packs ?? []) {
        lines += `${series('cribl_group_pack_info', base, `pack=${q(p.id)},version=${q(p.version)}`)} 1\n`;
      }
      return lines;
    },
  },
  {
    name: 'cribl_group_pack_pipelines',
    source: 'packs',
    what: 'Pipelines a pack installed in the group brings; absent when they could not be read.',
    labels: ['pack'],
    sample: (g, base) => {
      let lines = '';
      for (const p of g.packs?.packs ?? []) {
        if (p.pipelines !== undefined) {
          lines += `${series('cribl_group_pack_pipelines', base, `pack=${q(p.id)}`)} ${p.pipelines}\n`;
        }
      }
      return lines;
    },
  },
];
