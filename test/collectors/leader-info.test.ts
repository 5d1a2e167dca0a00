import { describe, expect, it } from 'vitest';
import { decodeSystemInfo } from '../../src/collectors/leader-info/index.js';
import { decodeMessages } from '../../src/collectors/leader-messages/index.js';
import { LEADER_FAMILIES, renderLeader } from '../helpers/render.js';

/** The research note's example of GET /system/info (§25.5), trimmed as there. */
const INFO = {
  version: '4.15.1',
  BUILD: { VERSION: '4.15.1', BRANCH: 'release/4.15', TIMESTAMP: '2025-12-10T00:00:00Z' },
  distMode: 'master',
  guid: '9c1d',
  hostname: 'leader-1',
  apiPort: 9000,
  uptime: 864000,
  loadavg: [0.42, 0.38, 0.35],
  memory: { free: 4294967296, total: 17179869184 },
  diskUsage: {
    diskPath: '/opt/cribl',
    bytesUsed: 21474836480,
    bytesAvailable: 85899345920,
    totalDiskSize: 107374182400,
  },
  conf: { confVersion: '6d2b0d1', inputs: 12, outputs: 8, pipelines: 20, routes: 15, rules: 0 },
  license: {
    type: 'prod',
    isRegistered: true,
    limits: { worker_groups: 50, worker_procs: 2000, rbac: 1, remote_auth: 1, remote_git: 1 },
  },
  messages: [],
  workerProcesses: 0,
};

const FULL = {
  version: '4.15.1',
  distMode: 'master',
  build: '4.15.1',
  diskAvailableBytes: 85899345920,
  diskTotalBytes: 107374182400,
  memoryFreeBytes: 4294967296,
  memoryTotalBytes: 17179869184,
  uptimeSeconds: 864000,
  limits: [
    ['worker_groups', 50],
    ['worker_procs', 2000],
    ['rbac', 1],
    ['remote_auth', 1],
    ['remote_git', 1],
  ],
  implausible: false,
};

describe('decodeSystemInfo', () => {
  it.each([
    ['the research note’s example', { count: 1, items: [INFO] }, FULL],
    ['unknown fields and a newer startTime are ignored', { items: [{ ...INFO, startTime: 1, future: {} }] }, FULL],
    [
      'absent parts leave their figures out',
      { items: [{ version: '4.20.0', distMode: 'master' }] },
      { version: '4.20.0', distMode: 'master', build: '', limits: [], implausible: false },
    ],
    [
      'figures that are not numbers are left out; limits that are not numbers too',
      {
        items: [
          {
            ...INFO,
            uptime: '10d',
            memory: { free: null, total: 'x' },
            license: { limits: { worker_procs: 'unlimited', edge_procs: -1 } },
          },
        ],
      },
      {
        ...FULL,
        uptimeSeconds: undefined,
        memoryFreeBytes: undefined,
        memoryTotalBytes: undefined,
        limits: [['edge_procs', -1]],
      },
    ],
    [
      'sizes that cannot be bytes are kept and flagged',
      { items: [{ ...INFO, memory: { free: 4096, total: 16384 } }] },
      { ...FULL, memoryFreeBytes: 4096, memoryTotalBytes: 16384, implausible: true },
    ],
    [
      'more free than total is flagged',
      { items: [{ ...INFO, diskUsage: { bytesAvailable: 2e12, totalDiskSize: 1e12 } }] },
      { ...FULL, diskAvailableBytes: 2e12, diskTotalBytes: 1e12, implausible: true },
    ],
  ])('%s', (_what, body, expected) => {
    const out = decodeSystemInfo(body);
    expect(out).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  it.each([
    ['no items', { count: 0, items: [] }],
    ['an item that is not an object', { items: ['x'] }],
    ['a list', []],
  ])('fails on %s', (_what, body) => {
    expect(() => decodeSystemInfo(body)).toThrow();
  });
});

describe('decodeMessages', () => {
  const T = 1786037379142;
  it.each([
    [
      'the research note’s example',
      {
        count: 1,
        items: [
          {
            id: '1786037379142-ab12',
            severity: 'warn',
            title: 'Destination splunk_lb',
            text: 'Destination splunk_lb is experiencing backpressure',
            time: T,
            group: 'default',
            metadata: [{ id: 'splunk_lb' }],
          },
        ],
      },
      { counts: [0, 1, 0, 0, 0], lastMs: [undefined, T, undefined, undefined, undefined], strange: [] },
    ],
    [
      'each severity counted, the newest time kept, in any order',
      {
        items: [
          { id: 'a', text: 'x', severity: 'error', time: T - 5 },
          { id: 'b', text: 'x', severity: 'error', time: T },
          { id: 'c', text: 'x', severity: 'fatal' },
          { id: 'd', text: 'x', severity: 'info', time: T - 9 },
        ],
      },
      { counts: [1, 0, 2, 1, 0], lastMs: [T - 9, undefined, T, undefined, undefined], strange: [] },
    ],
    [
      'no severity, or one the API does not name, is unknown (and said); a repeated id counts once',
      {
        items: [
          { id: 'a', text: 'x' },
          { id: 'b', text: 'x', severity: 'critical', time: T },
          { id: 'b', text: 'x', severity: 'critical', time: T },
          { text: 'no id' },
        ],
      },
      { counts: [0, 0, 0, 0, 2], lastMs: [undefined, undefined, undefined, undefined, T], strange: ['"critical"'] },
    ],
    [
      'none',
      { count: 0, items: [] },
      { counts: [0, 0, 0, 0, 0], lastMs: [undefined, undefined, undefined, undefined, undefined], strange: [] },
    ],
  ])('%s', (_what, body, expected) => {
    expect(decodeMessages(body)).toEqual(expected);
  });

  it('fails on a body without a list', () => {
    expect(() => decodeMessages({ count: 0 })).toThrow();
  });
});

const text = (name: string, facts: Record<string, unknown>) =>
  renderLeader({ facts })[LEADER_FAMILIES.findIndex((f) => f.name === name)];

describe('leader vitals and bulletins families', () => {
  const info = { leader_info: { value: decodeSystemInfo({ items: [INFO] }) } };
  it.each([
    ['cribl_leader_info', 'cribl_leader_info{version="4.15.1",dist_mode="master",build="4.15.1"} 1\n'],
    ['cribl_leader_disk_available_bytes', 'cribl_leader_disk_available_bytes 85899345920\n'],
    ['cribl_leader_disk_total_bytes', 'cribl_leader_disk_total_bytes 107374182400\n'],
    ['cribl_leader_memory_free_bytes', 'cribl_leader_memory_free_bytes 4294967296\n'],
    ['cribl_leader_memory_total_bytes', 'cribl_leader_memory_total_bytes 17179869184\n'],
    ['cribl_leader_uptime_seconds', 'cribl_leader_uptime_seconds 864000\n'],
    [
      'cribl_license_limit',
      'cribl_license_limit{resource="worker_groups"} 50\ncribl_license_limit{resource="worker_procs"} 2000\n' +
        'cribl_license_limit{resource="rbac"} 1\ncribl_license_limit{resource="remote_auth"} 1\n' +
        'cribl_license_limit{resource="remote_git"} 1\n',
    ],
  ])('%s', (name, expected) => {
    expect(text(name, info)).toBe(expected);
  });

  const T = 1786037379142;
  const messages = {
    leader_messages: {
      value: { counts: [0, 1, 0, 2, 0], lastMs: [undefined, T, undefined, T, undefined], strange: [] },
    },
  };
  it('counts every severity, 0 included', () => {
    expect(text('cribl_leader_messages', messages)).toBe(
      [
        'cribl_leader_messages{severity="info"} 0',
        'cribl_leader_messages{severity="warn"} 1',
        'cribl_leader_messages{severity="error"} 0',
        'cribl_leader_messages{severity="fatal"} 2',
        'cribl_leader_messages{severity="unknown"} 0',
        '',
      ].join('\n'),
    );
  });

  it('the newest time only for severities with a dated message', () => {
    expect(text('cribl_leader_message_last_timestamp_seconds', messages)).toBe(
      'cribl_leader_message_last_timestamp_seconds{severity="warn"} 1786037379.142\n' +
        'cribl_leader_message_last_timestamp_seconds{severity="fatal"} 1786037379.142\n',
    );
  });

  it('nothing before the first read', () => {
    for (const name of [
      'cribl_leader_info',
      'cribl_leader_messages',
      'cribl_license_limit',
      'cribl_leader_uptime_seconds',
    ])
      expect(text(name, {})).toBe('');
  });
});
