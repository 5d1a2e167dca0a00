/** Node states for the store's and the assembler's tests: seeded at random, and held in a NodeTable. */
import type { NodeList } from '../../src/exposition/assemble.js';
import { compactWorker, type ListedWorker } from '../../src/collectors/listing.js';
import type { NodeMetadata } from '../../src/collectors/node-metadata.js';
import type { NodeState } from '../../src/collectors/state.js';
import { NodeTable, packFingerprint, packTransferList } from '../../src/store/node-table.js';
import { contentRuns } from '../../src/util/content-runs.js';
import { worker } from '../exposition/fixtures.js';

/** A small seeded generator (mulberry32): the same states on every run. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A state with each optional part present or absent at random (keys absent, never undefined). */
export function randomState(r: () => number, i: number): NodeState {
  const maybe = <T>(v: T): T | undefined => (r() < 0.5 ? v : undefined);
  const w: ListedWorker = compactWorker(worker(`n${i}`, { group: maybe('g') ?? 'default' }));
  const opt = <O extends object, K extends keyof O>(o: O, k: K, v: O[K] | undefined): void => {
    if (v !== undefined) o[k] = v;
  };
  opt(w, 'status', maybe(r() < 0.5 ? 'healthy' : 'shutting down'));
  opt(w, 'disconnected', maybe(r() < 0.5));
  opt(w, 'deployable', maybe(r() < 0.5));
  opt(w, 'nodeUpgradeStatus', maybe({ state: (i % 4) as 0 | 1 | 2 | 3, timestamp: 1717200000000 + i }));
  opt(w.info, 'freeDiskSpace', maybe(1e11 + i));
  opt(w.info, 'totalDiskSpace', maybe(2e11));
  if (r() < 0.3) delete w.info.cribl.version;
  if (r() < 0.3) w.info.cribl.config = {};
  const s: NodeState = { product: r() < 0.5 ? 'stream' : 'edge', group: w.group, nodeId: w.id, worker: w };
  opt(
    s,
    'health',
    maybe({
      up: r() < 0.7,
      ...(r() < 0.5 ? { status: 'healthy' as const } : {}),
      ...(r() < 0.5 ? { lastSuccessMs: 1717200001000 + i } : {}),
      ...(r() < 0.5 ? { failure: 'timeout' as const } : {}),
      ...(r() < 0.5 ? { startTime: 1717100000000 } : {}),
    }),
  );
  const item: NodeMetadata = { timestamp: 1717200002000 + i };
  opt(item, 'cribl', maybe({ ...(r() < 0.5 ? { mode: 'worker' } : {}), ...(r() < 0.5 ? { group: 'g' } : {}) }));
  opt(item, 'os', maybe({ ...(r() < 0.5 ? { os_name: 'Ubuntu' } : {}), os_version: '24.04' }));
  const pod = r();
  opt(
    item,
    'kube',
    maybe({
      ...(r() < 0.5 ? { namespace: 'ns' } : {}),
      ...(pod < 0.3 ? { pod: `p-${i}` } : pod < 0.6 ? { pod: { name: `p-${i}` } } : pod < 0.7 ? { pod: {} } : {}),
    }),
  );
  opt(
    s,
    'metadata',
    maybe({
      ...(r() < 0.7 ? { item } : {}),
      ...(r() < 0.5 ? { lastSuccessMs: 1717200003000 } : {}),
      ...(r() < 0.3 ? { failure: 'http_5xx' as const } : {}),
    }),
  );
  opt(s, 'deployedConfigVersion', maybe('abc1234'));
  opt(s, 'restarts', maybe(1 + (i % 3)));
  return s;
}

/**
 * `states` in a NodeTable of their own, as a build reads a leader's nodes from the store: in slices, packed for the
 * body worker, fingerprinted, in runs cut by node id.
 */
export function tableList(states: readonly NodeState[]): NodeList<NodeState> {
  const table = new NodeTable();
  const slots = states.map((s) => {
    const slot = table.alloc();
    table.write(slot, s);
    return slot;
  });
  const range = (start: number, end: number): number[] => slots.slice(Math.max(0, start), end);
  return {
    length: slots.length,
    slice: (start, end) => range(start, end).map((slot) => table.read(slot)),
    pack: (start, end) => {
      const data = table.pack(range(start, end));
      return { data, transfer: packTransferList(data) };
    },
    fingerprint: (start, end) => packFingerprint(table.pack(range(start, end))),
    runEnds: (nodes) => contentRuns(states.length, (i) => (states[i] as NodeState).nodeId, nodes),
  };
}

/** A node with every part the store keeps (a value changed at any path changes a column, not a presence bit). */
export function fullState(id = 'w1'): NodeState {
  const w = compactWorker(
    worker(id, {
      status: 'healthy',
      disconnected: false,
      deployable: true,
      nodeUpgradeStatus: { state: 1, timestamp: 1717200000000 },
    }),
  );
  w.info.freeDiskSpace = 1e11;
  w.info.totalDiskSpace = 2e11;
  return {
    product: 'edge',
    group: 'default',
    nodeId: id,
    worker: w,
    health: { up: true, status: 'healthy', lastSuccessMs: 1717200001000, startTime: 1717100000000 },
    metadata: {
      item: {
        timestamp: 1717200002000,
        cribl: { mode: 'managed-edge', version: '4.15.1', config_version: 'abc1234', group: 'default' },
        os: { os_name: 'Ubuntu', os_version: '24.04' },
        kube: { namespace: 'ns', pod: 'p-1' },
      },
      lastSuccessMs: 1717200003000,
    },
    deployedConfigVersion: 'abc1234',
    restarts: 1,
  };
}

/** A deep copy of `state` with the value at the dotted `path` set to `value`. */
export function withValue(state: NodeState, path: string, value: unknown): NodeState {
  const copy = structuredClone(state);
  const keys = path.split('.');
  let at: Record<string, unknown> = copy as unknown as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) at = at[k] as Record<string, unknown>;
  at[keys.at(-1) as string] = value;
  return copy;
}
