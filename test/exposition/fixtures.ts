import type { NodeState } from '../../src/collectors/state.js';
import type { WorkerEntry } from '../../src/api/shapes.js';

/** A realistic stream worker entry as the leader lists it (no disk, no deployable). */
export function worker(id = 'w1', overrides: Partial<WorkerEntry> = {}): WorkerEntry {
  return {
    id,
    group: 'default',
    firstMsgTime: 1717200000000,
    lastMsgTime: 1717200060500,
    workerProcesses: 4,
    info: {
      hostname: `host-${id}`,
      cpus: 8,
      totalmem: 16777216000,
      architecture: 'x64',
      platform: 'linux',
      release: '6.8.0',
      node: 'v22.17.1',
      env: {},
      cribl: {
        version: '4.15.1-1b453caa',
        config: { version: 'abc1234' },
        distMode: 'worker',
        group: 'default',
        guid: id,
        startTime: 1717199000000,
      },
    },
    ...overrides,
  };
}

/** A node that was listed and never polled. */
export function node(id = 'w1', overrides: Partial<NodeState> = {}): NodeState {
  return { product: 'stream', group: 'default', nodeId: id, worker: worker(id), ...overrides };
}
