/**
 * Node states in columns: one slot per node, its numbers in one Float64Array and its strings in one array, both
 * strided by slot, its booleans and presence bits in small typed arrays. A NodeState object is made only when asked
 * for (a build, the status page, a listing write) and dies young.
 *
 * Why: as one object graph per node (NodeState, worker, info, cribl, health, metadata, item, kube and a boxed
 * double per timestamp), a node held about 1.6 KB of JS heap; at 50,000 nodes that was 80 MB used and, with V8's
 * headroom, about twice that committed (issue 17, bench/ANALYSIS.md). Here a node holds 15 doubles, 23 string
 * pointers (fleet-wide values shared through an interner) and 4 bytes of flags: about 310 bytes, plus its own
 * strings (id, hostname, pod).
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

const num = (v: number | undefined): number => (typeof v === 'number' ? v : NaN);
const opt = (v: number): number | undefined => (Number.isNaN(v) ? undefined : v);

/** Sets `key` on `o` only when `v` is defined (the states' optional keys are absent, not undefined). */
function put<O extends object, K extends keyof O>(o: O, key: K, v: O[K] | undefined): void {
  if (v !== undefined) o[key] = v;
}

/** A table of node states by slot. Slots are reused after `free`. */
export class NodeTable {
  #capacity = 0;
  #numbers = new Float64Array(0);
  #strings: (string | undefined)[] = [];
  #flags = new Uint16Array(0);
  readonly #free: number[] = [];
  #next = 0;
  /** Fleet-wide values (group, version, platform, OS, …): one instance each. */
  readonly #shared = new StringInterner();

  /** A new empty slot. */
  alloc(): number {
    const slot = this.#free.pop() ?? this.#next++;
    if (slot >= this.#capacity) this.#grow(Math.max(INITIAL_CAPACITY, this.#capacity * 2));
    return slot;
  }

  /** Gives the slot back; its strings are dropped at once (they would otherwise stay reachable). */
  free(slot: number): void {
    this.#strings.fill(undefined, slot * STRINGS, (slot + 1) * STRINGS);
    this.#numbers.fill(NaN, slot * NUMBERS, (slot + 1) * NUMBERS);
    this.#flags[slot] = 0;
    this.#free.push(slot);
  }

  #grow(capacity: number): void {
    const numbers = new Float64Array(capacity * NUMBERS).fill(NaN);
    numbers.set(this.#numbers);
    this.#numbers = numbers;
    const flags = new Uint16Array(capacity);
    flags.set(this.#flags);
    this.#flags = flags;
    const strings = new Array<string | undefined>(capacity * STRINGS).fill(undefined);
    for (let i = 0; i < this.#strings.length; i++) strings[i] = this.#strings[i];
    this.#strings = strings;
    this.#capacity = capacity;
  }

  #str(slot: number, column: number): string | undefined {
    return this.#strings[slot * STRINGS + column];
  }

  #setStr(slot: number, column: number, v: string | undefined, shared: boolean): void {
    this.#strings[slot * STRINGS + column] = shared ? this.#shared.intern(v) : v;
  }

  #num(slot: number, column: number): number | undefined {
    return opt(this.#numbers[slot * NUMBERS + column] as number);
  }

  #setNum(slot: number, column: number, v: number | undefined): void {
    this.#numbers[slot * NUMBERS + column] = num(v);
  }

  #setFlags(slot: number, mask: number, bits: number): void {
    this.#flags[slot] = ((this.#flags[slot] as number) & ~mask) | bits;
  }

  #has(slot: number, bit: number): boolean {
    return ((this.#flags[slot] as number) & bit) !== 0;
  }

  /** The node's id (what its polls are addressed with). */
  nodeId(slot: number): string {
    return this.#str(slot, NODE_ID) ?? '';
  }

  /** The node's product and group (its group membership). */
  product(slot: number): Product {
    return this.#str(slot, PRODUCT) as Product;
  }

  group(slot: number): string {
    return this.#str(slot, GROUP) ?? '';
  }

  /** The listing's start time of the node's process. */
  startTime(slot: number): number | undefined {
    return this.#num(slot, START_TIME);
  }

  restarts(slot: number): number | undefined {
    return this.#num(slot, RESTARTS);
  }

  /** Writes a whole state. */
  write(slot: number, s: NodeState): void {
    this.#setStr(slot, PRODUCT, s.product, true);
    this.#setStr(slot, GROUP, s.group, true);
    this.#setStr(slot, NODE_ID, s.nodeId, false);
    this.#setStr(slot, DEPLOYED, s.deployedConfigVersion, true);
    this.#setNum(slot, RESTARTS, s.restarts);
    this.writeWorker(slot, s.worker);
    this.writeHealth(slot, s.health);
    this.writeMetadata(slot, s.metadata);
  }

  /** Reads a whole state: new objects, the caller's to keep. */
  read(slot: number): NodeState {
    const s: NodeState = {
      product: this.product(slot),
      group: this.group(slot),
      nodeId: this.nodeId(slot),
      worker: this.#readWorker(slot),
    };
    put(s, 'health', this.health(slot));
    put(s, 'metadata', this.metadata(slot));
    put(s, 'deployedConfigVersion', this.#str(slot, DEPLOYED));
    put(s, 'restarts', this.#num(slot, RESTARTS));
    return s;
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

  #readWorker(slot: number): ListedWorker {
    const configVersion = this.#str(slot, CONFIG_VERSION);
    const cribl = {
      distMode: this.#str(slot, DIST_MODE),
      startTime: this.#num(slot, START_TIME),
      config: configVersion === undefined ? {} : { version: configVersion },
    } as ListedWorker['info']['cribl'];
    put(cribl, 'version', this.#str(slot, VERSION));
    const info = {
      hostname: this.#str(slot, HOSTNAME),
      cpus: this.#num(slot, CPUS),
      totalmem: this.#num(slot, TOTALMEM),
      architecture: this.#str(slot, ARCH),
      platform: this.#str(slot, PLATFORM),
      cribl,
    } as ListedWorker['info'];
    put(info, 'freeDiskSpace', this.#num(slot, FREE_DISK));
    put(info, 'totalDiskSpace', this.#num(slot, TOTAL_DISK));
    const w = {
      id: this.#str(slot, W_ID),
      group: this.#str(slot, W_GROUP),
      firstMsgTime: this.#num(slot, FIRST_MSG),
      lastMsgTime: this.#num(slot, LAST_MSG),
      workerProcesses: this.#num(slot, PROCESSES),
      info,
    } as ListedWorker;
    put(w, 'status', this.#str(slot, STATUS));
    if (this.#has(slot, DISCONNECTED_SET)) w.disconnected = this.#has(slot, DISCONNECTED);
    if (this.#has(slot, DEPLOYABLE_SET)) w.deployable = this.#has(slot, DEPLOYABLE);
    if (this.#has(slot, HAS_UPGRADE)) {
      w.nodeUpgradeStatus = {
        state: this.#num(slot, UPGRADE_STATE),
        timestamp: this.#num(slot, UPGRADE_TS),
      } as NonNullable<ListedWorker['nodeUpgradeStatus']>;
    }
    return w;
  }

  writeHealth(slot: number, h: HealthFacts | undefined): void {
    this.#setFlags(slot, HAS_HEALTH | HEALTH_UP, h ? HAS_HEALTH | (h.up ? HEALTH_UP : 0) : 0);
    this.#setStr(slot, H_STATUS, h?.status, true);
    this.#setStr(slot, H_FAILURE, h?.failure, true);
    this.#setNum(slot, H_LAST_SUCCESS, h?.lastSuccessMs);
    this.#setNum(slot, H_START_TIME, h?.startTime);
  }

  health(slot: number): HealthFacts | undefined {
    if (!this.#has(slot, HAS_HEALTH)) return undefined;
    const h: HealthFacts = { up: this.#has(slot, HEALTH_UP) };
    put(h, 'status', this.#str(slot, H_STATUS) as HealthStatus | undefined);
    put(h, 'lastSuccessMs', this.#num(slot, H_LAST_SUCCESS));
    put(h, 'failure', this.#str(slot, H_FAILURE) as FailureReason | undefined);
    put(h, 'startTime', this.#num(slot, H_START_TIME));
    return h;
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

  metadata(slot: number): MetadataFacts | undefined {
    if (!this.#has(slot, HAS_METADATA)) return undefined;
    const m: MetadataFacts = {};
    if (this.#has(slot, HAS_ITEM)) m.item = this.#readItem(slot);
    put(m, 'lastSuccessMs', this.#num(slot, M_LAST_SUCCESS));
    put(m, 'failure', this.#str(slot, M_FAILURE) as FailureReason | undefined);
    return m;
  }

  #readItem(slot: number): NodeMetadata {
    const item = { timestamp: this.#num(slot, M_TIMESTAMP) } as NodeMetadata;
    if (this.#has(slot, HAS_M_CRIBL)) {
      const cribl: NonNullable<NodeMetadata['cribl']> = {};
      put(cribl, 'mode', this.#str(slot, M_MODE));
      put(cribl, 'version', this.#str(slot, M_VERSION));
      put(cribl, 'config_version', this.#str(slot, M_CONFIG_VERSION));
      put(cribl, 'group', this.#str(slot, M_GROUP));
      item.cribl = cribl;
    }
    if (this.#has(slot, HAS_OS)) {
      const os: NonNullable<NodeMetadata['os']> = {};
      put(os, 'os_name', this.#str(slot, OS_NAME));
      put(os, 'os_version', this.#str(slot, OS_VERSION));
      item.os = os;
    }
    if (this.#has(slot, HAS_KUBE)) {
      const kube: NonNullable<NodeMetadata['kube']> = {};
      put(kube, 'namespace', this.#str(slot, KUBE_NAMESPACE));
      const pod = this.#str(slot, KUBE_POD);
      if (this.#has(slot, POD_OBJECT)) kube.pod = pod === undefined ? {} : { name: pod };
      else put(kube, 'pod', pod);
      item.kube = kube;
    }
    return item;
  }
}
