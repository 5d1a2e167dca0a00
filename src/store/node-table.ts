/**
 * Node states in columns: one slot per node, its numbers in one Float64Array and its strings in one array, both
 * strided by slot, its booleans and presence bits in small typed arrays. A NodeState object is made only when asked
 * for (a build, the status page, a listing write) and dies young.
 *
 * Why: as one object graph per node (NodeState, worker, info, cribl, health, metadata, item, kube and a boxed
 * double per timestamp), a node held about 1.6 KB of JS heap; at 50,000 nodes that was 80 MB used and, with V8's
 * headroom, about twice that committed (issue 17, bench/ANALYSIS.md). Here a node holds 15 doubles, 24 string
 * pointers (fleet-wide values shared through an interner) and 2 bytes of flags: about 310 bytes, plus its own
 * strings (id, hostname, pod). Measured at 50,000 nodes (bench/notes-columns.md): heap after a full GC 72.5 MB used
 * in 170 MB → 54 MB in 76 MB. The columns grow by doubling and never shrink: a fleet that shrinks keeps its
 * largest size's columns (about 20 MB at 50,000 nodes).
 *
 * Numbers use NaN for "absent": JSON never yields NaN, and the decoders accept finite numbers only.
 */
import type { Product } from '../api/products.js';
import type { NodeState } from '../collectors/state.js';
import type { ListedWorker } from '../collectors/listing.js';
import type { HealthFacts } from '../collectors/node-health.js';
import type { MetadataFacts, NodeMetadata } from '../collectors/node-metadata.js';
import type { FailureReason } from '../http/failure.js';
import type { HealthStatus } from '../api/shapes.js';
import { createHash } from 'node:crypto';
import { StringInterner } from '../util/intern.js';

// Number columns.
const FIRST_MSG = 0;
const LAST_MSG = 1;
const PROCESSES = 2;
const CPUS = 3;
const TOTALMEM = 4;
const FREE_DISK = 5;
const TOTAL_DISK = 6;
const START_TIME = 7;
const UPGRADE_STATE = 8;
const UPGRADE_TS = 9;
const H_LAST_SUCCESS = 10;
const H_START_TIME = 11;
const M_TIMESTAMP = 12;
const M_LAST_SUCCESS = 13;
const RESTARTS = 14;
const NUMBERS = 15;

// String columns.
const PRODUCT = 0;
const GROUP = 1;
const NODE_ID = 2;
const W_ID = 3;
const W_GROUP = 4;
const STATUS = 5;
const HOSTNAME = 6;
const ARCH = 7;
const PLATFORM = 8;
const VERSION = 9;
const DIST_MODE = 10;
const CONFIG_VERSION = 11;
const H_STATUS = 12;
const H_FAILURE = 13;
const M_FAILURE = 14;
const M_MODE = 15;
const M_VERSION = 16;
const M_CONFIG_VERSION = 17;
const M_GROUP = 18;
const OS_NAME = 19;
const OS_VERSION = 20;
const KUBE_NAMESPACE = 21;
const KUBE_POD = 22;
const DEPLOYED = 23;
const STRINGS = 24;

// Presence bits.
const HAS_UPGRADE = 1 << 0;
const HAS_HEALTH = 1 << 1;
const HEALTH_UP = 1 << 2;
const HAS_METADATA = 1 << 3;
const HAS_ITEM = 1 << 4;
const HAS_M_CRIBL = 1 << 5;
const HAS_OS = 1 << 6;
const HAS_KUBE = 1 << 7;
/** kube.pod came as `{ name }` rather than a string. */
const POD_OBJECT = 1 << 8;
const DISCONNECTED_SET = 1 << 9;
const DISCONNECTED = 1 << 10;
const DEPLOYABLE_SET = 1 << 11;
const DEPLOYABLE = 1 << 12;

const INITIAL_CAPACITY = 64;

/**
 * The values that change with nearly every poll or listing of a node, left out of a pack's fingerprint
 * (`packFingerprint`): the last heartbeat, the free disk, the times of the last answered health and metadata polls,
 * the metadata's own timestamp. A family that reads one of them is `volatile` (format/family.ts) and rendered at every
 * build; every other family's text of a run of nodes whose fingerprint did not change is the last build's.
 * test/store/node-table.test.ts (packFingerprint) and test/collectors/volatile-families.test.ts hold both sides to
 * this list.
 */
export const VOLATILE_FIELDS = [
  'worker.lastMsgTime',
  'worker.info.freeDiskSpace',
  'health.lastSuccessMs',
  'metadata.lastSuccessMs',
  'metadata.item.timestamp',
] as const;
const VOLATILE_COLUMNS = [LAST_MSG, FREE_DISK, H_LAST_SUCCESS, M_LAST_SUCCESS, M_TIMESTAMP];

const num = (v: number | undefined): number => (typeof v === 'number' ? v : NaN);
const opt = (v: number): number | undefined => (Number.isNaN(v) ? undefined : v);

/** Sets `key` on `o` only when `v` is defined (the states' optional keys are absent, not undefined). */
function put<O extends object, K extends keyof O>(o: O, key: K, v: O[K] | undefined): void {
  if (v !== undefined) o[key] = v;
}

/** Columns of node states: a slot's numbers at [slot × NUMBERS, …), strings at [slot × STRINGS, …), flags at slot. */
export interface NodeColumns {
  numbers: Float64Array;
  strings: (string | undefined)[];
  flags: Uint16Array;
}

/**
 * Some nodes' columns, copied out of a table: what the body worker is sent. The typed arrays move without a copy;
 * the strings go as a code per slot and column (`codes`, -1 for none) into `dict`, each distinct string once. Most
 * of a row's strings are fleet-wide values (group, version, platform…): sent as they are, a 50,000-node build cloned
 * 1.2 million of them. Packing and posting a 50,000-node table's 50 packs took 194–208 ms of the main thread and
 * 352–428 ms of CPU in all (the worker's copy included); with codes, 29–40 and 34–59 ms (bench/notes-gc.md, tenth
 * round).
 */
export interface PackedNodes {
  readonly length: number;
  numbers: Float64Array;
  flags: Uint16Array;
  codes: Int32Array;
  dict: string[];
}

const str = (c: NodeColumns, slot: number, column: number): string | undefined => c.strings[slot * STRINGS + column];
const numAt = (c: NodeColumns, slot: number, column: number): number | undefined =>
  opt(c.numbers[slot * NUMBERS + column] as number);
const has = (c: NodeColumns, slot: number, bit: number): boolean => ((c.flags[slot] as number) & bit) !== 0;

/** The state at `slot` of some columns (a table's, a pack's, a saved row's): new objects, the caller's to keep. */
export function readRow(c: NodeColumns, slot: number): NodeState {
  const s: NodeState = {
    product: str(c, slot, PRODUCT) as Product,
    group: str(c, slot, GROUP) ?? '',
    nodeId: str(c, slot, NODE_ID) ?? '',
    worker: readWorker(c, slot),
  };
  put(s, 'health', readHealth(c, slot));
  put(s, 'metadata', readMetadata(c, slot));
  put(s, 'deployedConfigVersion', str(c, slot, DEPLOYED));
  put(s, 'restarts', numAt(c, slot, RESTARTS));
  return s;
}

function readWorker(c: NodeColumns, slot: number): ListedWorker {
  const configVersion = str(c, slot, CONFIG_VERSION);
  const cribl = {
    distMode: str(c, slot, DIST_MODE),
    startTime: numAt(c, slot, START_TIME),
    config: configVersion === undefined ? {} : { version: configVersion },
  } as ListedWorker['info']['cribl'];
  put(cribl, 'version', str(c, slot, VERSION));
  const info = {
    hostname: str(c, slot, HOSTNAME),
    cpus: numAt(c, slot, CPUS),
    totalmem: numAt(c, slot, TOTALMEM),
    architecture: str(c, slot, ARCH),
    platform: str(c, slot, PLATFORM),
    cribl,
  } as ListedWorker['info'];
  put(info, 'freeDiskSpace', numAt(c, slot, FREE_DISK));
  put(info, 'totalDiskSpace', numAt(c, slot, TOTAL_DISK));
  const w = {
    id: str(c, slot, W_ID),
    group: str(c, slot, W_GROUP),
    firstMsgTime: numAt(c, slot, FIRST_MSG),
    lastMsgTime: numAt(c, slot, LAST_MSG),
    workerProcesses: numAt(c, slot, PROCESSES),
    info,
  } as ListedWorker;
  put(w, 'status', str(c, slot, STATUS));
  if (has(c, slot, DISCONNECTED_SET)) w.disconnected = has(c, slot, DISCONNECTED);
  if (has(c, slot, DEPLOYABLE_SET)) w.deployable = has(c, slot, DEPLOYABLE);
  if (has(c, slot, HAS_UPGRADE)) {
    w.nodeUpgradeStatus = {
      state: numAt(c, slot, UPGRADE_STATE),
      timestamp: numAt(c, slot, UPGRADE_TS),
    } as NonNullable<ListedWorker['nodeUpgradeStatus']>;
  }
  return w;
}

function readHealth(c: NodeColumns, slot: number): HealthFacts | undefined {
  if (!has(c, slot, HAS_HEALTH)) return undefined;
  const h: HealthFacts = { up: has(c, slot, HEALTH_UP) };
  put(h, 'status', str(c, slot, H_STATUS) as HealthStatus | undefined);
  put(h, 'lastSuccessMs', numAt(c, slot, H_LAST_SUCCESS));
  put(h, 'failure', str(c, slot, H_FAILURE) as FailureReason | undefined);
  put(h, 'startTime', numAt(c, slot, H_START_TIME));
  return h;
}

function readMetadata(c: NodeColumns, slot: number): MetadataFacts | undefined {
  if (!has(c, slot, HAS_METADATA)) return undefined;
  const m: MetadataFacts = {};
  if (has(c, slot, HAS_ITEM)) m.item = readItem(c, slot);
  put(m, 'lastSuccessMs', numAt(c, slot, M_LAST_SUCCESS));
  put(m, 'failure', str(c, slot, M_FAILURE) as FailureReason | undefined);
  return m;
}

function readItem(c: NodeColumns, slot: number): NodeMetadata {
  const item = { timestamp: numAt(c, slot, M_TIMESTAMP) } as NodeMetadata;
  if (has(c, slot, HAS_M_CRIBL)) {
    const cribl: NonNullable<NodeMetadata['cribl']> = {};
    put(cribl, 'mode', str(c, slot, M_MODE));
    put(cribl, 'version', str(c, slot, M_VERSION));
    put(cribl, 'config_version', str(c, slot, M_CONFIG_VERSION));
    put(cribl, 'group', str(c, slot, M_GROUP));
    item.cribl = cribl;
  }
  if (has(c, slot, HAS_OS)) {
    const os: NonNullable<NodeMetadata['os']> = {};
    put(os, 'os_name', str(c, slot, OS_NAME));
    put(os, 'os_version', str(c, slot, OS_VERSION));
    item.os = os;
  }
  if (has(c, slot, HAS_KUBE)) {
    const kube: NonNullable<NodeMetadata['kube']> = {};
    put(kube, 'namespace', str(c, slot, KUBE_NAMESPACE));
    const pod = str(c, slot, KUBE_POD);
    if (has(c, slot, POD_OBJECT)) kube.pod = pod === undefined ? {} : { name: pod };
    else put(kube, 'pod', pod);
    item.kube = kube;
  }
  return item;
}

function emptyColumns(capacity: number): NodeColumns {
  return {
    numbers: new Float64Array(capacity * NUMBERS).fill(NaN),
    strings: new Array<string | undefined>(capacity * STRINGS).fill(undefined),
    flags: new Uint16Array(capacity),
  };
}

/** Copies slot `from` of `src` to slot `to` of `dst`. */
function copySlot(src: NodeColumns, from: number, dst: NodeColumns, to: number): void {
  copyNumbers(src, from, dst, to);
  const ss = src.strings;
  const ds = dst.strings;
  for (let i = 0, a = from * STRINGS, b = to * STRINGS; i < STRINGS; i++) ds[b + i] = ss[a + i];
}

type NumberColumns = Pick<NodeColumns, 'numbers' | 'flags'>;

/** Copies the numbers and flags of slot `from` of `src` to slot `to` of `dst`. */
function copyNumbers(src: NumberColumns, from: number, dst: NumberColumns, to: number): void {
  // Plain loops: a subarray per slot was an object per node and most of pack()'s time.
  const sn = src.numbers;
  const dn = dst.numbers;
  for (let i = 0, a = from * NUMBERS, b = to * NUMBERS; i < NUMBERS; i++) dn[b + i] = sn[a + i] as number;
  dst.flags[to] = src.flags[from] as number;
}

/** The states of packed nodes, read in slices as a build renders them (in the body worker). */
export function unpackNodes(p: PackedNodes): {
  readonly length: number;
  slice(start: number, end: number): NodeState[];
  fingerprint(start: number, end: number): string | undefined;
  runEnds(): readonly number[];
} {
  const { codes, dict } = p;
  const strings = new Array<string | undefined>(codes.length);
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i] as number;
    strings[i] = code < 0 ? undefined : dict[code];
  }
  const columns: NodeColumns = { numbers: p.numbers, strings, flags: p.flags };
  return {
    length: p.length,
    slice(start, end) {
      const out: NodeState[] = [];
      for (let i = Math.max(0, start); i < Math.min(end, p.length); i++) out.push(readRow(columns, i));
      return out;
    },
    // The main thread sends the worker one run of nodes per pack: the pack is a run, fingerprinted as a whole.
    fingerprint: (start, end) => (start === 0 && end >= p.length ? packFingerprint(p) : undefined),
    runEnds: () => [p.length],
  };
}

/**
 * A digest of everything in a pack but its VOLATILE_FIELDS: equal for two packs when every node's state but those
 * values is the same, in the same order. A pack is canonical (its dictionary in first-use order), so the same states
 * give the same bytes.
 */
export function packFingerprint(p: PackedNodes): string {
  const numbers = p.numbers.slice();
  for (let at = 0; at < numbers.length; at += NUMBERS) for (const c of VOLATILE_COLUMNS) numbers[at + c] = 0;
  return createHash('sha256')
    .update(new Uint8Array(numbers.buffer))
    .update(new Uint8Array(p.flags.buffer, p.flags.byteOffset, p.flags.byteLength))
    .update(new Uint8Array(p.codes.buffer, p.codes.byteOffset, p.codes.byteLength))
    .update(JSON.stringify(p.dict))
    .digest('base64');
}

/** The buffers of a pack that can move to another thread without a copy. */
export function packTransferList(p: PackedNodes): ArrayBuffer[] {
  return [p.numbers.buffer as ArrayBuffer, p.flags.buffer as ArrayBuffer, p.codes.buffer as ArrayBuffer];
}

/** A table of node states by slot. Slots are reused after `free`. */
export class NodeTable {
  #capacity = 0;
  #c: NodeColumns = emptyColumns(0);
  readonly #free: number[] = [];
  #next = 0;
  /** Fleet-wide values (group, version, platform, OS, …): one instance each. */
  readonly #shared = new StringInterner();

  /** Slots ever handed out (every slot in use is below this). */
  get slotCount(): number {
    return this.#next;
  }

  /** A new empty slot. */
  alloc(): number {
    const slot = this.#free.pop() ?? this.#next++;
    if (slot >= this.#capacity) this.#grow(Math.max(INITIAL_CAPACITY, this.#capacity * 2));
    return slot;
  }

  /** Gives the slot back; its strings are dropped at once (they would otherwise stay reachable). */
  free(slot: number): void {
    this.#c.strings.fill(undefined, slot * STRINGS, (slot + 1) * STRINGS);
    this.#c.numbers.fill(NaN, slot * NUMBERS, (slot + 1) * NUMBERS);
    this.#c.flags[slot] = 0;
    this.#free.push(slot);
  }

  #grow(capacity: number): void {
    const c = emptyColumns(capacity);
    c.numbers.set(this.#c.numbers);
    c.flags.set(this.#c.flags);
    const old = this.#c.strings;
    for (let i = 0; i < old.length; i++) c.strings[i] = old[i];
    this.#c = c;
    this.#capacity = capacity;
  }

  /** The node id of a row saved by `copyRow`. */
  static savedNodeId(row: NodeColumns): string {
    return str(row, 0, NODE_ID) ?? '';
  }

  /** A copy of one slot's columns, as a one-row NodeColumns (a view's copy of a state about to be overwritten). */
  copyRow(slot: number): NodeColumns {
    const row = emptyColumns(1);
    copySlot(this.#c, slot, row, 0);
    return row;
  }

  /** The given slots' columns, packed in order; a slot found in `saved` is taken from that row instead. */
  pack(slots: ArrayLike<number>, saved?: ReadonlyMap<number, NodeColumns>): PackedNodes {
    const n = slots.length;
    // Every slot's numbers and codes are written below: no fill.
    const out = { numbers: new Float64Array(n * NUMBERS), flags: new Uint16Array(n) };
    const codes = new Int32Array(n * STRINGS);
    const dict: string[] = [];
    const index = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const slot = slots[i] as number;
      const row = saved?.get(slot);
      const src = row ?? this.#c;
      const from = row ? 0 : slot;
      copyNumbers(src, from, out, i);
      const ss = src.strings;
      for (let k = 0, a = from * STRINGS, b = i * STRINGS; k < STRINGS; k++) {
        const v = ss[a + k];
        if (v === undefined) {
          codes[b + k] = -1;
          continue;
        }
        let code = index.get(v);
        if (code === undefined) {
          code = dict.length;
          dict.push(v);
          index.set(v, code);
        }
        codes[b + k] = code;
      }
    }
    return { ...out, codes, dict, length: n };
  }

  #setStr(slot: number, column: number, v: string | undefined, shared: boolean): void {
    this.#c.strings[slot * STRINGS + column] = shared ? this.#shared.intern(v) : v;
  }

  #setNum(slot: number, column: number, v: number | undefined): void {
    this.#c.numbers[slot * NUMBERS + column] = num(v);
  }

  #setFlags(slot: number, mask: number, bits: number): void {
    this.#c.flags[slot] = ((this.#c.flags[slot] as number) & ~mask) | bits;
  }

  /** The node's id (what its polls are addressed with). */
  nodeId(slot: number): string {
    return str(this.#c, slot, NODE_ID) ?? '';
  }

  /** The node's product and group (its group membership). */
  product(slot: number): Product {
    return str(this.#c, slot, PRODUCT) as Product;
  }

  group(slot: number): string {
    return str(this.#c, slot, GROUP) ?? '';
  }

  /** Reads a whole state: new objects, the caller's to keep. */
  read(slot: number): NodeState {
    return readRow(this.#c, slot);
  }

  health(slot: number): HealthFacts | undefined {
    return readHealth(this.#c, slot);
  }

  metadata(slot: number): MetadataFacts | undefined {
    return readMetadata(this.#c, slot);
  }

  /** The listing's start time of the node (what a restart is told from). */
  startTime(slot: number): number | undefined {
    return numAt(this.#c, slot, START_TIME);
  }

  /** The restarts counted so far. */
  restarts(slot: number): number | undefined {
    return numAt(this.#c, slot, RESTARTS);
  }

  /**
   * Writes what a listing says of a node (and the facts derived from it), leaving its id, health and metadata as
   * they are: a discovery's apply without reading and re-writing each whole state.
   */
  writeListing(
    slot: number,
    s: Pick<NodeState, 'product' | 'group' | 'worker' | 'deployedConfigVersion' | 'restarts'>,
  ): void {
    this.#setStr(slot, PRODUCT, s.product, true);
    this.#setStr(slot, GROUP, s.group, true);
    this.#setStr(slot, DEPLOYED, s.deployedConfigVersion, true);
    this.#setNum(slot, RESTARTS, s.restarts);
    this.writeWorker(slot, s.worker);
  }

  /** Writes a whole state. */
  write(slot: number, s: NodeState): void {
    this.#setStr(slot, NODE_ID, s.nodeId, false);
    this.writeListing(slot, s);
    this.writeHealth(slot, s.health);
    this.writeMetadata(slot, s.metadata);
  }

  writeWorker(slot: number, w: ListedWorker): void {
    const info = w.info;
    const cribl = info.cribl;
    this.#setStr(slot, W_ID, w.id, false);
    this.#setStr(slot, W_GROUP, w.group, true);
    this.#setNum(slot, FIRST_MSG, w.firstMsgTime);
    this.#setNum(slot, LAST_MSG, w.lastMsgTime);
    this.#setNum(slot, PROCESSES, w.workerProcesses);
    let bits = 0;
    if (w.disconnected !== undefined) bits |= DISCONNECTED_SET | (w.disconnected ? DISCONNECTED : 0);
    if (w.deployable !== undefined) bits |= DEPLOYABLE_SET | (w.deployable ? DEPLOYABLE : 0);
    const upgrade = w.nodeUpgradeStatus;
    if (upgrade) bits |= HAS_UPGRADE;
    this.#setFlags(slot, DISCONNECTED_SET | DISCONNECTED | DEPLOYABLE_SET | DEPLOYABLE | HAS_UPGRADE, bits);
    this.#setNum(slot, UPGRADE_STATE, upgrade?.state);
    this.#setNum(slot, UPGRADE_TS, upgrade?.timestamp);
    this.#setStr(slot, STATUS, w.status, true);
    this.#setStr(slot, HOSTNAME, info.hostname, false);
    this.#setNum(slot, CPUS, info.cpus);
    this.#setNum(slot, TOTALMEM, info.totalmem);
    this.#setStr(slot, ARCH, info.architecture, true);
    this.#setStr(slot, PLATFORM, info.platform, true);
    this.#setNum(slot, FREE_DISK, info.freeDiskSpace);
    this.#setNum(slot, TOTAL_DISK, info.totalDiskSpace);
    this.#setStr(slot, VERSION, cribl.version, true);
    this.#setStr(slot, DIST_MODE, cribl.distMode, true);
    this.#setNum(slot, START_TIME, cribl.startTime);
    this.#setStr(slot, CONFIG_VERSION, cribl.config.version, true);
  }

  writeHealth(slot: number, h: HealthFacts | undefined): void {
    this.#setFlags(slot, HAS_HEALTH | HEALTH_UP, h ? HAS_HEALTH | (h.up ? HEALTH_UP : 0) : 0);
    this.#setStr(slot, H_STATUS, h?.status, true);
    this.#setStr(slot, H_FAILURE, h?.failure, true);
    this.#setNum(slot, H_LAST_SUCCESS, h?.lastSuccessMs);
    this.#setNum(slot, H_START_TIME, h?.startTime);
  }

  writeMetadata(slot: number, m: MetadataFacts | undefined): void {
    const item = m?.item;
    const { cribl, os, kube } = item ?? {};
    const pod = kube?.pod;
    let bits = 0;
    if (m) bits |= HAS_METADATA;
    if (item) bits |= HAS_ITEM;
    if (cribl) bits |= HAS_M_CRIBL;
    if (os) bits |= HAS_OS;
    if (kube) bits |= HAS_KUBE;
    if (pod !== undefined && typeof pod !== 'string') bits |= POD_OBJECT;
    this.#setFlags(slot, HAS_METADATA | HAS_ITEM | HAS_M_CRIBL | HAS_OS | HAS_KUBE | POD_OBJECT, bits);
    this.#setNum(slot, M_LAST_SUCCESS, m?.lastSuccessMs);
    this.#setStr(slot, M_FAILURE, m?.failure, true);
    this.#setNum(slot, M_TIMESTAMP, item?.timestamp);
    this.#setStr(slot, M_MODE, cribl?.mode, true);
    this.#setStr(slot, M_VERSION, cribl?.version, true);
    this.#setStr(slot, M_CONFIG_VERSION, cribl?.config_version, true);
    this.#setStr(slot, M_GROUP, cribl?.group, true);
    this.#setStr(slot, OS_NAME, os?.os_name, true);
    this.#setStr(slot, OS_VERSION, os?.os_version, true);
    this.#setStr(slot, KUBE_NAMESPACE, kube?.namespace, true);
    this.#setStr(slot, KUBE_POD, typeof pod === 'string' ? pod : pod?.name, false);
  }
}
