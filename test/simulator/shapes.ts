import { expect } from 'vitest';
import type { Item } from './helpers.js';

/** Keys of a listing entry, as api-shapes.md §1.5 lists what real leaders send (nodeUpgradeStatus: edge only). */
export const ENTRY_KEYS = [
  'deployable',
  'disconnected',
  'firstMsgTime',
  'group',
  'id',
  'info',
  'lastMsgTime',
  'status',
  'workerProcesses',
];
/** Keys of `info` (NodeProvidedInfo), §1.6; never `freemem`. */
export const INFO_KEYS = [
  'architecture',
  'cpus',
  'cribl',
  'env',
  'freeDiskSpace',
  'hostname',
  'node',
  'platform',
  'release',
  'totalDiskSpace',
  'totalmem',
];
/** Keys of `info.cribl` (HBCriblInfo). */
export const CRIBL_KEYS = ['config', 'distMode', 'group', 'guid', 'startTime', 'version'];

const isEpochMs = (v: unknown): boolean => Number.isInteger(v) && (v as number) > 1e12 && (v as number) < 1e13;

/** Asserts one worker entry field by field against api-shapes.md. */
export function expectWorkerEntry(e: Item, product: 'stream' | 'edge'): void {
  expect(Object.keys(e).sort()).toEqual(product === 'edge' ? [...ENTRY_KEYS, 'nodeUpgradeStatus'].sort() : ENTRY_KEYS);
  expect(typeof e.id).toBe('string');
  expect(typeof e.group).toBe('string');
  expect(isEpochMs(e.firstMsgTime)).toBe(true);
  expect(isEpochMs(e.lastMsgTime)).toBe(true);
  expect(e.lastMsgTime).toBeGreaterThanOrEqual(e.firstMsgTime);
  expect(Number.isInteger(e.workerProcesses) && e.workerProcesses >= 1).toBe(true);
  expect(typeof e.status).toBe('string');
  expect(typeof e.disconnected).toBe('boolean');
  expect(typeof e.deployable).toBe('boolean');

  const info = e.info;
  expect(Object.keys(info).sort()).toEqual(INFO_KEYS);
  expect(info).not.toHaveProperty('freemem');
  expect(typeof info.hostname).toBe('string');
  expect(Number.isInteger(info.cpus) && info.cpus > 0).toBe(true);
  expect(Number.isInteger(info.totalmem) && info.totalmem > 0).toBe(true);
  expect(['x64', 'arm64']).toContain(info.architecture);
  expect(['linux', 'win32']).toContain(info.platform);
  expect(typeof info.release).toBe('string');
  expect(info.node).toMatch(/^v\d+\.\d+\.\d+$/);
  expect(typeof info.env).toBe('object');
  for (const v of Object.values(info.env)) expect(typeof v).toBe('string');
  expect(Number.isInteger(info.freeDiskSpace)).toBe(true);
  expect(Number.isInteger(info.totalDiskSpace)).toBe(true);
  expect(info.freeDiskSpace).toBeLessThanOrEqual(info.totalDiskSpace);

  const c = info.cribl;
  expect(Object.keys(c).sort()).toEqual(CRIBL_KEYS);
  expect(c.version).toMatch(/^\d+\.\d+\.\d+$/);
  expect(Object.keys(c.config)).toEqual(['version']);
  expect(c.config.version).toMatch(/^[0-9a-f]{7}$/);
  expect(c.distMode).toBe(product === 'edge' ? 'managed-edge' : 'worker');
  expect(c.group).toBe(e.group);
  expect(c.guid).toBe(e.id);
  expect(isEpochMs(c.startTime)).toBe(true);

  if (product === 'edge') {
    expect(Object.keys(e.nodeUpgradeStatus).sort()).toEqual(['state', 'timestamp']);
    expect([0, 1, 2, 3]).toContain(e.nodeUpgradeStatus.state);
    expect(isEpochMs(e.nodeUpgradeStatus.timestamp)).toBe(true);
  }
}
