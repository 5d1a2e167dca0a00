import { describe, expect, it } from 'vitest';
import { renderNode } from '../../src/collectors/index.js';
import { compactWorker } from '../../src/collectors/listing.js';
import type { NodeState } from '../../src/collectors/state.js';
import {
  NodeTable,
  packFingerprint,
  packTransferList,
  unpackNodes,
  VOLATILE_FIELDS,
} from '../../src/store/node-table.js';
import { worker } from '../exposition/fixtures.js';
import { fullState, random, randomState, withValue } from './states.js';

/** Writes each state into a slot of its own; the slots, in the states' order. */
function writeAll(t: NodeTable, states: readonly NodeState[]): number[] {
  return states.map((s) => {
    const slot = t.alloc();
    t.write(slot, s);
    return slot;
  });
}

describe('NodeTable', () => {
  it('gives back every state it was given, and the same rendered text (2,000 seeded states)', () => {
    const r = random(17);
    const t = new NodeTable();
    const states = Array.from({ length: 2000 }, (_, i) => randomState(r, i));
    const slots = writeAll(t, states);
    states.forEach((s, i) => {
      const back = t.read(slots[i] as number);
      expect(back).toEqual(s);
      expect(renderNode(back, 'workspace="w"')).toEqual(renderNode(s, 'workspace="w"'));
    });
  });

  it('a freed slot comes back empty: nothing of its last node shows through', () => {
    const r = random(5);
    const t = new NodeTable();
    const full = randomState(r, 1);
    full.health = { up: true, status: 'healthy', lastSuccessMs: 1, startTime: 2 };
    full.metadata = { item: { timestamp: 1, kube: { pod: 'p' } }, lastSuccessMs: 1 };
    const a = t.alloc();
    t.write(a, full);
    t.free(a);
    const b = t.alloc();
    expect(b).toBe(a);
    const bare: NodeState = { product: 'edge', group: 'f', nodeId: 'x', worker: compactWorker(worker('x')) };
    t.write(b, bare);
    expect(t.read(b)).toEqual(bare);
    expect(t.health(b)).toBeUndefined();
    expect(t.metadata(b)).toBeUndefined();
  });

  it('packs slots as columns whose strings go once each, as codes; unpacked, the same states (saved rows too)', () => {
    const r = random(23);
    const t = new NodeTable();
    const states = Array.from({ length: 500 }, (_, i) => randomState(r, i));
    const slots = writeAll(t, states);
    // A saved row (a view's copy of a state since overwritten) is packed instead of the table's slot.
    const saved = new Map([[slots[7] as number, t.copyRow(slots[7] as number)]]);
    t.write(slots[7] as number, { ...(states[8] as NodeState), nodeId: 'overwritten' });
    const order = [...slots].reverse();
    const packed = t.pack(order, saved);
    expect(packed.length).toBe(500);
    expect(unpackNodes(packed).slice(0, 500)).toEqual([...states].reverse());
    expect(unpackNodes(packed).slice(498, 600)).toEqual([states[1], states[0]]);
    // Each distinct string once, whatever the number of slots and columns that hold it.
    expect(new Set(packed.dict).size).toBe(packed.dict.length);
    const groups = new Set(states.map((s) => s.group));
    expect(packed.dict.filter((v) => groups.has(v)).length).toBe(groups.size);
    expect(Math.min(...packed.codes)).toBe(-1);
    expect(Math.max(...packed.codes)).toBe(packed.dict.length - 1);
    // The typed arrays move to the worker; the codes are among them.
    expect(packTransferList(packed)).toEqual([packed.numbers.buffer, packed.flags.buffer, packed.codes.buffer]);
  });

  it('grows past its first capacity without losing a slot', () => {
    const t = new NodeTable();
    const r = random(9);
    const states = Array.from({ length: 300 }, (_, i) => randomState(r, i));
    for (const [i, s] of states.entries()) t.write(t.alloc(), { ...s, nodeId: `id-${i}` });
    expect(Array.from({ length: 300 }, (_, i) => t.nodeId(i))).toEqual(states.map((_, i) => `id-${i}`));
  });
});

/** The fingerprint of `states` written into a table of their own, in order. */
function fingerprint(states: readonly NodeState[]): string {
  const t = new NodeTable();
  return packFingerprint(t.pack(writeAll(t, states)));
}

/** A value of every kind the store keeps, other than each volatile one, changed on fullState(). */
const KEPT: readonly [string, unknown][] = [
  ['product', 'stream'],
  ['group', 'other'],
  ['nodeId', 'w9'],
  ['worker.id', 'w9'],
  ['worker.group', 'other'],
  ['worker.status', 'shutting down'],
  ['worker.disconnected', true],
  ['worker.deployable', false],
  ['worker.firstMsgTime', 1],
  ['worker.workerProcesses', 9],
  ['worker.nodeUpgradeStatus.state', 2],
  ['worker.nodeUpgradeStatus.timestamp', 5],
  ['worker.info.hostname', 'other-host'],
  ['worker.info.cpus', 64],
  ['worker.info.totalmem', 5],
  ['worker.info.totalDiskSpace', 5],
  ['worker.info.architecture', 'arm64'],
  ['worker.info.platform', 'darwin'],
  ['worker.info.cribl.version', '9.9.9'],
  ['worker.info.cribl.distMode', 'managed-edge'],
  ['worker.info.cribl.startTime', 5],
  ['worker.info.cribl.config', { version: 'fff' }],
  ['health.up', false],
  ['health.status', 'standby'],
  ['health.failure', 'http_5xx'],
  ['health.startTime', 7],
  ['metadata.failure', 'timeout'],
  ['metadata.item.cribl.mode', 'worker'],
  ['metadata.item.cribl.version', '9.9.9'],
  ['metadata.item.cribl.config_version', 'fff'],
  ['metadata.item.cribl.group', 'other'],
  ['metadata.item.os.os_name', 'Debian'],
  ['metadata.item.os.os_version', '12'],
  ['metadata.item.kube.namespace', 'other'],
  ['metadata.item.kube.pod', { name: 'p-1' }],
  ['deployedConfigVersion', 'fff'],
  ['restarts', 7],
];

describe('packFingerprint', () => {
  const states = [fullState('w0'), fullState('w1'), fullState('w2')];
  const base = fingerprint(states);

  it('is the same for the same states in new tables, and changes with their order', () => {
    expect(fingerprint(states.map((s) => structuredClone(s)))).toBe(base);
    expect(fingerprint([states[1]!, states[0]!, states[2]!])).not.toBe(base);
    expect(fingerprint(states.slice(0, 2))).not.toBe(base);
  });

  it.each(VOLATILE_FIELDS.map((path) => [path]))('leaves out %s', (path) => {
    const changed = [states[0]!, withValue(states[1]!, path, 1234567), states[2]!];
    expect(fingerprint(changed)).toBe(base);
  });

  it.each(KEPT)('changes with %s', (path, value) => {
    const changed = [states[0]!, withValue(states[1]!, path, value), states[2]!];
    expect(fingerprint(changed)).not.toBe(base);
  });

  it('changes when a part appears or goes (health, metadata, the upgrade status)', () => {
    for (const drop of ['health', 'metadata', 'deployedConfigVersion', 'restarts'] as const) {
      const s = structuredClone(states[1]!);
      delete s[drop];
      expect(fingerprint([states[0]!, s, states[2]!])).not.toBe(base);
    }
    const s = structuredClone(states[1]!);
    delete s.worker.nodeUpgradeStatus;
    expect(fingerprint([states[0]!, s, states[2]!])).not.toBe(base);
  });

  it('of an unpacked pack: the whole pack’s, nothing for part of it', () => {
    const t = new NodeTable();
    const packed = t.pack(writeAll(t, states));
    const list = unpackNodes(packed);
    expect(list.fingerprint(0, 3)).toBe(base);
    expect(list.fingerprint(1, 3)).toBeUndefined();
  });
});
