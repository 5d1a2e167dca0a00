/**
 * GET /system/info in the global context: the leader's own vitals, once per discovery
 * (`--[no-]collector.leader-info`, on by default). One item describes the answering node, the leader.
 *
 * What the API does not promise is checked: the sizes are taken as bytes (the shape mirrors Node's os.freemem()),
 * and a leader whose figures cannot be bytes (a total under 1 MB, or more free than total) is said once; the
 * license limits are exported under the names the leader gives them, whatever they are, up to MAX_LIMITS.
 */
import * as z from 'zod';
import { ENDPOINTS } from '@cribl-exporter/api/routes';
import type { LeaderRequest } from '../../leader/types.js';
import { factsKey, type ScopeFamily, type ScopeItem } from '../collector.js';
import { get, leaderReader, type Read } from '../read.js';
import { asRecord, each, finite, gaugeOf, line, q } from '../sample.js';

export const NAME = 'leader_info';

/** License limits kept at most (24 keys in 4.15.1): a leader sending more is cut, not trusted. */
const MAX_LIMITS = 64;

/** The leader's vitals as kept; a figure the leader does not give is absent. */
export interface LeaderVitals {
  readonly version: string;
  /** distMode: `master` for a leader. */
  readonly distMode: string;
  /** BUILD.VERSION ('' when absent). */
  readonly build: string;
  readonly diskAvailableBytes?: number;
  readonly diskTotalBytes?: number;
  readonly memoryFreeBytes?: number;
  readonly memoryTotalBytes?: number;
  readonly uptimeSeconds?: number;
  /** license.limits, by resource as the leader names it. */
  readonly limits: readonly (readonly [string, number])[];
  /** The sizes do not look like bytes. */
  readonly implausible: boolean;
}

export const leaderInfoFacts = factsKey<Read<LeaderVitals>>(NAME);

const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');
const MB = 1e6;

/** Decodes GET /system/info: its first item, read field by field (a missing field leaves its family out). */
export function decodeSystemInfo(json: unknown): LeaderVitals {
  const { items } = z.object({ items: z.array(z.unknown()).min(1) }).parse(json);
  const info = asRecord(items[0]);
  if (!info) throw new Error('items[0] is not an object');
  const disk = asRecord(info.diskUsage);
  const memory = asRecord(info.memory);
  const limits: [string, number][] = [];
  for (const [resource, value] of Object.entries(asRecord(asRecord(info.license)?.limits) ?? {})) {
    const n = finite(value);
    if (n !== undefined && limits.length < MAX_LIMITS) limits.push([resource.slice(0, 64), n]);
  }
  const vitals = {
    version: text(info.version, 64),
    distMode: text(info.distMode, 32),
    build: text(asRecord(info.BUILD)?.VERSION, 64),
    diskAvailableBytes: finite(disk?.bytesAvailable),
    diskTotalBytes: finite(disk?.totalDiskSize),
    memoryFreeBytes: finite(memory?.free),
    memoryTotalBytes: finite(memory?.total),
    uptimeSeconds: finite(info.uptime),
  };
  const implausible = [
    [vitals.diskAvailableBytes, vitals.diskTotalBytes],
    [vitals.memoryFreeBytes, vitals.memoryTotalBytes],
  ].some(([free, total]) => total !== undefined && (total < MB || (free !== undefined && free > total)));
  return {
    ...(Object.fromEntries(Object.entries(vitals).filter(([, v]) => v !== undefined)) as typeof vitals),
    limits,
    implausible,
  };
}

export const systemInfoRequest = (deadline: number, signal?: AbortSignal): LeaderRequest<LeaderVitals> =>
  get(ENDPOINTS.systemInfo, '/system/info', decodeSystemInfo, deadline, signal);

const V = (l: ScopeItem): LeaderVitals | undefined => leaderInfoFacts.of(l)?.value;

const FAMILIES: readonly ScopeFamily[] = [
  {
    name: 'cribl_leader_info',
    what:
      'The leader as its /system/info describes it (value 1): version, dist_mode (master for a leader) and build ' +
      '(BUILD.VERSION).',
    labels: ['version', 'dist_mode', 'build'],
    sample: (l, base) => {
      const v = V(l);
      if (!v) return '';
      const labels = `version=${q(v.version)},dist_mode=${q(v.distMode)},build=${q(v.build)}`;
      return line('cribl_leader_info', base, labels);
    },
  },
  ...(
    [
      [
        'disk_available_bytes',
        "Free space on the leader's Cribl volume (config, git history, state).",
        'diskAvailableBytes',
      ],
      ['disk_total_bytes', "Size of the leader's Cribl volume (diskUsage.totalDiskSize).", 'diskTotalBytes'],
      ['memory_free_bytes', "Free memory of the leader's host.", 'memoryFreeBytes'],
      ['memory_total_bytes', "Memory of the leader's host.", 'memoryTotalBytes'],
      [
        'uptime_seconds',
        'Uptime the leader reports (of the process or the host: the API does not say).',
        'uptimeSeconds',
      ],
    ] as const
  ).map(([name, what, field]) => gaugeOf<ScopeItem>(`cribl_leader_${name}`, what, (l) => V(l)?.[field])),
  {
    name: 'cribl_license_limit',
    what:
      "A limit of the leader's license (license.limits of /system/info), by resource as the leader names it " +
      '(worker_procs, worker_groups, edge_procs, …), as given (how it encodes unlimited is not documented).',
    labels: ['resource'],
    sample: (l, base) =>
      each(V(l)?.limits, ([resource, n]) => line('cribl_license_limit', base, `resource=${q(resource)}`, n)),
  },
];

export const leaderInfo = leaderReader({
  name: NAME,
  flag: 'collector.leader-info',
  help:
    'Read the leader’s own vitals once per discovery (GET /system/info: cribl_leader_info, its disk and memory, the ' +
    'license limits): one request.',
  permission: 'read access to the leader’s system settings (an Admin or Read Only role)',
  request: systemInfoRequest,
  oddities: (v) =>
    v.implausible
      ? [
          {
            key: 'units',
            message:
              "the leader's /system/info disk or memory figures do not look like bytes (a total under 1 MB, or " +
              'more free than total): exported as given',
          },
        ]
      : [],
  families: FAMILIES,
});
