import type { WorkerEntry } from '@cribl-exporter/api/shapes';

/** A worker entry shaped like the spec 4.19 example, with overrides. */
export function workerEntry(
  id: string,
  over: Partial<WorkerEntry> & { distMode?: WorkerEntry['info']['cribl']['distMode'] } = {},
): WorkerEntry {
  const { distMode = 'worker', ...rest } = over;
  const group = rest.group ?? 'default';
  return {
    id,
    group,
    firstMsgTime: 1717200000000,
    lastMsgTime: 1717200060000,
    workerProcesses: 4,
    status: 'healthy',
    disconnected: false,
    deployable: true,
    info: {
      hostname: `host-${id}`,
      platform: 'linux',
      architecture: 'x64',
      release: '6.8.0',
      cpus: 8,
      totalmem: 34359738368,
      node: 'v22.17.1',
      env: {},
      freeDiskSpace: 1000,
      totalDiskSpace: 2000,
      cribl: { version: '4.19.0', config: { version: 'abc1234' }, distMode, group, guid: id, startTime: 1717200000000 },
    },
    ...rest,
  };
}
