import { z } from 'zod';
import type { ConfigGroup, ListedWorker } from '../leader/shapes.js';

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

/** One decoded listing page: valid entries, and how many entries were malformed and skipped. */
export interface WorkerPage {
  items: ListedWorker[];
  /** Entries the page held (valid or not), for paging. */
  received: number;
  malformed: number;
  totalCount?: number;
}

/** Decodes a workers page; throws when the envelope itself is wrong (a decode failure). */
export function decodeWorkerPage(json: unknown): WorkerPage {
  const page = pageSchema.parse(json);
  const items: ListedWorker[] = [];
  let malformed = 0;
  for (const raw of page.items) {
    const r = workerSchema.safeParse(raw);
    if (r.success) items.push(r.data);
    else malformed++;
  }
  return { items, received: page.items.length, malformed, ...(page.totalCount === undefined ? {} : { totalCount: page.totalCount }) };
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
