import { z } from 'zod';
import type { ConfigGroup, ListedWorker } from '../../api/shapes.js';
import { timeSlicer } from '../../util/yield.js';

/**
 * Decoders for the listing endpoints. Objects are stripped to the fields we export (ListedWorker), which
 * also keeps 50,000 cached entries small: no `env`, `lastMetrics`, `release`, `node`, `guid`, `status` or
 * `nodeUpgradeStatus` (measured: about 5 objects and 7 strings less per node).
 */

const finite = z.number().finite();

const workerSchema = z.object({
  id: z.string().min(1),
  group: z.string(),
  firstMsgTime: finite,
  lastMsgTime: finite,
  workerProcesses: finite,
  disconnected: z.boolean().optional(),
  deployable: z.boolean().optional(),
  info: z.object({
    hostname: z.string(),
    cpus: finite,
    totalmem: finite,
    architecture: z.string(),
    platform: z.string(),
    freeDiskSpace: finite.optional(),
    totalDiskSpace: finite.optional(),
    cribl: z.object({
      version: z.string().optional(),
      config: z.object({ version: z.string().optional() }).optional().default({}),
      distMode: z.enum(['edge', 'managed-edge', 'master', 'outpost', 'search-supervisor', 'single', 'worker']),
      startTime: finite,
    }),
  }),
});

const pageSchema = z.object({
  items: z.array(z.unknown()),
  count: z.number().optional(),
  offset: z.number().optional(),
  limit: z.number().optional(),
  totalCount: z.number().optional(),
});

/** One listing page as the client hands it over: the envelope checked, the entries not yet. */
export interface WorkerEnvelope {
  raw: unknown[];
  /** Entries the page held (valid or not), for paging. */
  received: number;
  totalCount?: number;
}

/** Checks a workers page's envelope; throws when it is wrong (a decode failure). */
export function decodeWorkerEnvelope(json: unknown): WorkerEnvelope {
  const page = pageSchema.parse(json);
  return { raw: page.items, received: page.items.length, ...(page.totalCount === undefined ? {} : { totalCount: page.totalCount }) };
}

/** Longest stretch of entry validation between two yields to the event loop. */
const DECODE_SLICE_MS = 4;

/**
 * Validates a page's entries, yielding to the event loop every few milliseconds: zod takes 10–20 µs per
 * entry, so a page of 1,000 in one go blocked the loop (and every scrape waiting on it) for 10–30 ms.
 */
export async function decodeWorkers(raw: readonly unknown[]): Promise<{ items: ListedWorker[]; malformed: number }> {
  const items: ListedWorker[] = [];
  let malformed = 0;
  const slice = timeSlicer(DECODE_SLICE_MS);
  for (const entry of raw) {
    const pause = slice();
    if (pause) await pause;
    const r = workerSchema.safeParse(entry);
    if (r.success) items.push(r.data);
    else malformed++;
  }
  return { items, malformed };
}

const groupSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  type: z.enum(['edge', 'lake_access', 'local_search', 'outpost', 'search', 'stream']).optional().catch(undefined),
  configVersion: z.string().optional(),
  workerCount: finite.optional(),
  incompatibleWorkerCount: finite.optional(),
  deployingWorkerCount: finite.optional(),
  onPrem: z.boolean().optional(),
  isFleet: z.boolean().optional(),
});

/** One decoded groups page. */
export interface GroupPage {
  items: ConfigGroup[];
  received: number;
  totalCount?: number;
}

/** Decodes a groups page; malformed groups are skipped. */
export function decodeGroupPage(json: unknown): GroupPage {
  const page = pageSchema.parse(json);
  const items: ConfigGroup[] = [];
  for (const raw of page.items) {
    const r = groupSchema.safeParse(raw);
    if (r.success) items.push(r.data);
  }
  return { items, received: page.items.length, ...(page.totalCount === undefined ? {} : { totalCount: page.totalCount }) };
}
