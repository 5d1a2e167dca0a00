import type { ConfigGroup, GitLogResult, NodeUpgradeStatus, WorkerEntry } from '../api/shapes.js';
import type { Product } from '../api/products.js';
import type { Clock, Random } from '../util/clock.js';
import type { ChurnFault } from './faults.js';
import { pick, randomGuid, randomHex, randomInt } from './random.js';

/** A node's own behaviour when the leader proxies a request to it. */
export type NodeHealthMode = 'healthy' | 'shutting down' | 'standby' | 'unreachable' | 'slow';

/** Every node health mode. */
export const NODE_HEALTH_MODES: readonly NodeHealthMode[] = ['healthy', 'shutting down', 'standby', 'unreachable', 'slow'];

/** The leader's own state: anything but 'healthy' makes the whole control plane answer 420. */
export type LeaderState = 'healthy' | 'standby' | 'shutting down';

/** Nodes heartbeat this often; a connected node's lastMsgTime is its latest heartbeat tick. */
export const HEARTBEAT_PERIOD_MS = 10_000;

/**
 * Ids that break naive code: path separators, percent signs, dot segments, quotes, backslashes, control
 * characters, non-ASCII. The same string is used as the node's hostname, to exercise label escaping.
 */
export const HOSTILE_IDS: readonly string[] = [
  'slash/inside',
  '100%-percent',
  '%2F-looks-encoded',
  '..',
  '.',
  'dots/../up',
  'quote"double',
  "quote'single",
  'back\\slash',
  'new\nline',
  'tab\tand space',
  'ünïcödé-节点-🚀',
  '?query=1&x#frag',
  '{braces}=[brackets];semi',
];

/** One simulated node, as tests and the admin endpoint see it. */
export interface SimNode {
  readonly id: string;
  readonly product: Product;
  readonly group: string;
  /** The node's own health behaviour (what /w/{id}/health answers). */
  readonly health: NodeHealthMode;
  readonly disconnected: boolean;
  /** Config bundle version the node runs (info.cribl.config.version). */
  readonly configVersion: string;
  /** info.cribl.startTime (epoch ms). */
  readonly startTime: number;
  /** info.hostname. */
  readonly hostname: string;
  /** True for nodes added with a hostile id. */
  readonly hostile: boolean;
  /** The entry the workers listing would serve right now (parsed from the exact wire JSON). */
  readonly entry: WorkerEntry;
}

/** Options of Fleet.addNode; everything else is generated from the fleet's seed. */
export interface AddNodeOptions {
  product?: Product;
  /** Group / fleet id; created when it does not exist yet. */
  group?: string;
  id?: string;
  hostname?: string;
  health?: NodeHealthMode;
  disconnected?: boolean;
}

/** The simulated fleet: the truth behind every answer, and the controls that change it. */
export interface Fleet {
  /** Every node, in listing order. */
  nodes(): readonly SimNode[];
  /** One node, or undefined. */
  node(id: string): SimNode | undefined;
  /** Number of nodes, of one product or all. */
  size(product?: Product): number;
  /** Adds a node (a "join"); throws when the id exists or the group belongs to the other product. */
  addNode(opts?: AddNodeOptions): SimNode;
  /** Adds one node per HOSTILE_IDS entry not yet present (group `default`, or the edge default fleet). */
  addHostileNodes(product?: Product): SimNode[];
  /** Removes a node (a "leave"); false when unknown. */
  removeNode(id: string): boolean;
  /** Sets what the node answers to proxied requests; the listing's `status` follows. Throws on unknown ids. */
  setHealth(id: string, mode: NodeHealthMode): void;
  /** Disconnects (lastMsgTime freezes, proxied requests get 502) or reconnects a node. */
  setDisconnected(id: string, disconnected: boolean): void;
  /** Restarts a node: startTime and firstMsgTime become now, and it reconnects. */
  restart(id: string): void;
  /** Sets the config version the node runs. */
  setConfigVersion(id: string, version: string): void;
  /** Groups / fleets of a product, as GET /products/{product}/groups serves them (without `git`). */
  groups(product: Product): readonly ConfigGroup[];
  /** Commits a new config version to a group (newest commit = configVersion); returns the short hash. */
  deployGroup(groupId: string, opts?: { message?: string; rollout?: boolean }): string;
  /** Commit history of a group, newest first; undefined for unknown groups. */
  commits(groupId: string): readonly GitLogResult[] | undefined;
  /** Makes the whole control plane answer 420 ('standby' / 'shutting down') or brings it back ('healthy'). */
  setLeaderState(state: LeaderState): void;
  /** The state set with setLeaderState (scenario windows aside). */
  leaderState(): LeaderState;
}

/** Settings of a fleet. */
export interface FleetOptions {
  nodes: number;
  leaderVersion: string;
  clock: Clock;
  random: Random;
}

/** Internal state of one node (exported for the server module only). */
export interface NodeRec {
  id: string;
  product: Product;
  group: string;
  hostile: boolean;
  health: NodeHealthMode;
  disconnected: boolean;
  firstMsgTime: number;
  startTime: number;
  /** lastMsgTime frozen at disconnection. */
  lastSeen: number;
  workerProcesses: number;
  hostname: string;
  platform: 'linux' | 'win32';
  architecture: 'x64' | 'arm64';
  release: string;
  cpus: number;
  totalmem: number;
  nodeVersion: string;
  env: Record<string, string>;
  criblVersion: string;
  configVersion: string;
  distMode: 'worker' | 'managed-edge';
  freeDiskSpace: number;
  totalDiskSpace: number;
  upgrade?: NodeUpgradeStatus;
  os: OsInfo;
  kube?: { namespace: string; pod: string };
  /** Cached JSON of the listing entry, split around the lastMsgTime value. */
  json?: [string, string];
  /** Cached JSON of the metadata item after its timestamp. */
  metaJson?: string;
}

interface OsInfo {
  id: string;
  name: string;
  version: string;
  versionId: string;
}

interface GroupRec {
  id: string;
  product: Product;
  description?: string;
  commits: GitLogResult[];
  nodes: number;
  /** A deploy whose rollout to the nodes waits for the next churn tick. */
  pendingRollout: boolean;
}

const STREAM_GROUPS = ['default', 'prod-east', 'prod-west'] as const;
const STREAM_WEIGHTS = [5, 3, 2];
const EDGE_FLEETS = ['default_fleet', 'retail-stores', 'factories'] as const;
const EDGE_WEIGHTS = [4, 4, 2];
const GIB = 1024 ** 3;
const COMMIT_MESSAGES = [
  'Updated syslog pipeline configuration',
  'Added new HTTP Source',
  'Route firewall logs to S3',
  'Tune batching on Splunk destination',
  'Add lookup for asset owners',
  'Drop debug events at the edge',
];
const LINUX_OS: readonly OsInfo[] = [
  { id: 'ubuntu', name: 'Ubuntu', version: '22.04.4 LTS (Jammy Jellyfish)', versionId: '22.04' },
  { id: 'rhel', name: 'Red Hat Enterprise Linux', version: '9.4 (Plow)', versionId: '9.4' },
  { id: 'amzn', name: 'Amazon Linux', version: '2023', versionId: '2023' },
];
const WINDOWS_OS: OsInfo = { id: 'windows', name: 'Windows Server 2022 Datacenter', version: '10.0.20348', versionId: '2022' };

/** Listing `status` for a health mode: what the node last reported to the leader. */
export function listingStatus(mode: NodeHealthMode): string {
  switch (mode) {
    case 'healthy':
    case 'slow':
      return 'healthy';
    case 'unreachable':
      return 'unhealthy';
    default:
      return mode;
  }
}

/** "4.19" → [4, 19, 0]. */
export function parseVersion(v: string): [number, number, number] {
  const [a = 0, b = 0, c = 0] = v.split('.').map((x) => Number.parseInt(x, 10) || 0);
  return [a, b, c];
}

function gitDate(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' +0000');
}

class NodeView implements SimNode {
  readonly #fleet: SimFleet;
  readonly #rec: NodeRec;
  constructor(fleet: SimFleet, rec: NodeRec) {
    this.#fleet = fleet;
    this.#rec = rec;
  }
  get id(): string {
    return this.#rec.id;
  }
  get product(): Product {
    return this.#rec.product;
  }
  get group(): string {
    return this.#rec.group;
  }
  get health(): NodeHealthMode {
    return this.#rec.health;
  }
  get disconnected(): boolean {
    return this.#rec.disconnected;
  }
  get configVersion(): string {
    return this.#rec.configVersion;
  }
  get startTime(): number {
    return this.#rec.startTime;
  }
  get hostname(): string {
    return this.#rec.hostname;
  }
  get hostile(): boolean {
    return this.#rec.hostile;
  }
  get entry(): WorkerEntry {
    return JSON.parse(this.#fleet.entryJson(this.#rec, this.#fleet.clock.now())) as WorkerEntry;
  }
}

/** The fleet implementation; the server also uses its rendering helpers. */
export class SimFleet implements Fleet {
  readonly clock: Clock;
  readonly #random: Random;
  readonly #leaderVersion: [number, number, number];
  readonly #all: NodeRec[] = [];
  readonly #byProduct: Record<Product, NodeRec[]> = { stream: [], edge: [] };
  readonly #byId = new Map<string, NodeRec>();
  readonly #groups = new Map<string, GroupRec>();
  #seq = 0;
  #leaderState: LeaderState = 'healthy';
  /** Bumped on every change; caches of derived data compare against it. */
  #version = 0;
  #groupCache: { version: number; byProduct: Record<Product, ConfigGroup[]> } | undefined;

  constructor(opts: FleetOptions) {
    this.clock = opts.clock;
    this.#random = opts.random;
    this.#leaderVersion = parseVersion(opts.leaderVersion);
    const now = this.clock.now();
    STREAM_GROUPS.forEach((g) => this.#createGroup(g, 'stream', now));
    EDGE_FLEETS.forEach((g) => this.#createGroup(g, 'edge', now));
    for (let i = 0; i < opts.nodes; i++) {
      // The first two nodes cover both products, so even tiny fleets exercise both.
      const product: Product = i === 0 ? 'stream' : i === 1 ? 'edge' : this.#random() < 0.65 ? 'stream' : 'edge';
      this.#insert(this.#generate({ product }, now - randomInt(this.#random, 3_600_000, 30 * 86_400_000)));
    }
  }

  nodes(): readonly SimNode[] {
    return this.#all.map((r) => new NodeView(this, r));
  }

  node(id: string): SimNode | undefined {
    const rec = this.#byId.get(id);
    return rec && new NodeView(this, rec);
  }

  size(product?: Product): number {
    return product ? this.#byProduct[product].length : this.#all.length;
  }

  addNode(opts: AddNodeOptions = {}): SimNode {
    if (opts.id !== undefined && this.#byId.has(opts.id)) throw new Error(`node id ${JSON.stringify(opts.id)} exists`);
    if (opts.id === '') throw new Error('node id must not be empty');
    const rec = this.#generate(opts, this.clock.now());
    this.#insert(rec);
    return new NodeView(this, rec);
  }

  addHostileNodes(product: Product = 'stream'): SimNode[] {
    const group = product === 'stream' ? 'default' : 'default_fleet';
    return HOSTILE_IDS.filter((id) => !this.#byId.has(id)).map((id) =>
      this.addNode({ id, hostname: id, product, group }),
    );
  }

  removeNode(id: string): boolean {
    const rec = this.#byId.get(id);
    if (!rec) return false;
    this.#byId.delete(id);
    this.#all.splice(this.#all.indexOf(rec), 1);
    const list = this.#byProduct[rec.product];
    list.splice(list.indexOf(rec), 1);
    const g = this.#groups.get(rec.group);
    if (g) g.nodes--;
    this.#version++;
    return true;
  }

  setHealth(id: string, mode: NodeHealthMode): void {
    const rec = this.#get(id);
    rec.health = mode;
    this.#touch(rec);
  }

  setDisconnected(id: string, disconnected: boolean): void {
    const rec = this.#get(id);
    if (rec.disconnected === disconnected) return;
    if (disconnected) rec.lastSeen = this.#lastMsgTime(rec, this.clock.now());
    rec.disconnected = disconnected;
    this.#touch(rec);
  }

  restart(id: string): void {
    const rec = this.#get(id);
    const now = this.clock.now();
    rec.startTime = now;
    rec.firstMsgTime = now;
    rec.disconnected = false;
    this.#touch(rec);
  }

  setConfigVersion(id: string, version: string): void {
    const rec = this.#get(id);
    rec.configVersion = version;
    this.#touch(rec);
  }

  groups(product: Product): readonly ConfigGroup[] {
    if (this.#groupCache?.version !== this.#version) this.#groupCache = { version: this.#version, byProduct: this.#computeGroups() };
    return this.#groupCache.byProduct[product];
  }

  deployGroup(groupId: string, opts: { message?: string; rollout?: boolean } = {}): string {
    const g = this.#groups.get(groupId);
    if (!g) throw new Error(`unknown group ${JSON.stringify(groupId)}`);
    g.commits.unshift(this.#commit(this.clock.now(), opts.message ?? pick(this.#random, COMMIT_MESSAGES)));
    const prev = g.commits[1];
    if (prev) prev.refs = '';
    g.pendingRollout = !(opts.rollout ?? true);
    if (!g.pendingRollout) this.#rollout(g);
    this.#version++;
    return headVersion(g);
  }

  commits(groupId: string): readonly GitLogResult[] | undefined {
    return this.#groups.get(groupId)?.commits;
  }

  setLeaderState(state: LeaderState): void {
    this.#leaderState = state;
  }

  leaderState(): LeaderState {
    return this.#leaderState;
  }

  // ---- used by the server ----

  /** The node record behind an id (hot path: no view object). */
  lookup(id: string): NodeRec | undefined {
    return this.#byId.get(id);
  }

  /** Whether a group / fleet exists. */
  hasGroup(id: string): boolean {
    return this.#groups.has(id);
  }

  /** The wire JSON of one listing entry at `now`. */
  entryJson(rec: NodeRec, now: number): string {
    const json = (rec.json ??= this.#renderEntry(rec));
    return json[0] + String(this.#lastMsgTime(rec, now)) + json[1];
  }

  /**
   * Joined JSON of listing entries `offset … offset+limit` of a product (or all nodes), without
   * re-serialising anything but changed nodes.
   */
  renderPage(scope: Product | 'all', offset: number, limit: number | undefined, now: number): { items: string; count: number; total: number } {
    const list = scope === 'all' ? this.#all : this.#byProduct[scope];
    const end = limit === undefined ? list.length : Math.min(list.length, offset + limit);
    const parts: string[] = [];
    for (let i = offset; i < end; i++) parts.push(this.entryJson(list[i] as NodeRec, now));
    return { items: parts.join(','), count: parts.length, total: list.length };
  }

  /** The wire JSON of GET /w/{id}/edge/metadata for one node. */
  metadataJson(rec: NodeRec, now: number): string {
    rec.metaJson ??= this.#renderMetadataTail(rec);
    return `{"count":1,"items":[{"timestamp":${now},${rec.metaJson}]}`;
  }

  /** `git` object of a group for `?fields=`. */
  git(groupId: string, fields: ReadonlySet<string>): NonNullable<ConfigGroup['git']> {
    const g = this.#groups.get(groupId);
    const head = g?.commits[0];
    const git: NonNullable<ConfigGroup['git']> = {};
    if (fields.has('git.commit') && head?.hash) git.commit = head.hash;
    if (fields.has('git.localChanges')) git.localChanges = 0;
    if (fields.has('git.log')) {
      git.log = (g?.commits ?? []).map((c) => ({
        date: c.date ?? '',
        hash: c.hash ?? '',
        message: c.message ?? '',
        short: (c.hash ?? '').slice(0, 7),
        author_email: c.author_email,
        author_name: c.author_name,
      }));
    }
    return git;
  }

  /** One churn step: finish pending rollouts, then apply the given number of random changes. */
  churn(counts: Omit<ChurnFault, 'every'>): void {
    for (const g of this.#groups.values()) {
      if (g.pendingRollout) {
        g.pendingRollout = false;
        this.#rollout(g);
      }
    }
    for (let i = 0; i < counts.join; i++) this.addNode();
    for (let i = 0; i < counts.leave; i++) {
      const rec = this.#randomNode(() => true);
      if (rec) this.removeNode(rec.id);
    }
    for (let i = 0; i < counts.disconnect; i++) {
      const rec = this.#randomNode((r) => !r.disconnected);
      if (rec) this.setDisconnected(rec.id, true);
    }
    for (let i = 0; i < counts.reconnect; i++) {
      const rec = this.#randomNode((r) => r.disconnected);
      if (rec) this.setDisconnected(rec.id, false);
    }
    for (let i = 0; i < counts.restart; i++) {
      const rec = this.#randomNode(() => true);
      if (rec) this.restart(rec.id);
    }
    for (let i = 0; i < counts.health; i++) {
      const rec = this.#randomNode(() => true);
      if (!rec) continue;
      const next = rec.health === 'healthy' ? pick(this.#random, NODE_HEALTH_MODES.slice(1)) : 'healthy';
      this.setHealth(rec.id, next);
    }
    for (let i = 0; i < counts.configVersion; i++) {
      const rec = this.#randomNode(() => true);
      const g = rec && this.#groups.get(rec.group);
      if (!rec || !g) continue;
      const head = headVersion(g);
      const older = g.commits[1]?.hash?.slice(0, 7);
      this.setConfigVersion(rec.id, rec.configVersion === head && older ? older : head);
    }
    const groupIds = [...this.#groups.keys()];
    for (let i = 0; i < counts.deploy && groupIds.length > 0; i++) {
      this.deployGroup(pick(this.#random, groupIds), { rollout: false });
    }
  }

  /** Puts `count` deterministic random healthy, connected nodes into a state (scenario start). */
  seedStates(count: number, apply: (id: string) => void): void {
    for (let i = 0; i < count; i++) {
      const rec = this.#randomNode((r) => r.health === 'healthy' && !r.disconnected && !r.hostile);
      if (rec) apply(rec.id);
    }
  }

  // ---- internals ----

  #get(id: string): NodeRec {
    const rec = this.#byId.get(id);
    if (!rec) throw new Error(`unknown node id ${JSON.stringify(id)}`);
    return rec;
  }

  #touch(rec: NodeRec): void {
    delete rec.json;
    delete rec.metaJson;
    this.#version++;
  }

  #randomNode(ok: (r: NodeRec) => boolean): NodeRec | undefined {
    // Probing beats filtering a 100,000-node array on every churn step.
    for (let i = 0; i < 50 && this.#all.length > 0; i++) {
      const rec = this.#all[Math.floor(this.#random() * this.#all.length)];
      if (rec && ok(rec)) return rec;
    }
    return this.#all.find(ok);
  }

  #lastMsgTime(rec: NodeRec, now: number): number {
    if (rec.disconnected) return rec.lastSeen;
    if (now <= rec.firstMsgTime) return rec.firstMsgTime;
    return now - ((now - rec.firstMsgTime) % HEARTBEAT_PERIOD_MS);
  }

  #insert(rec: NodeRec): void {
    this.#byId.set(rec.id, rec);
    this.#all.push(rec);
    this.#byProduct[rec.product].push(rec);
    const g = this.#groups.get(rec.group);
    if (g) g.nodes++;
    this.#version++;
  }

  #createGroup(id: string, product: Product, now: number): GroupRec {
    const g: GroupRec = { id, product, commits: [], nodes: 0, pendingRollout: false };
    if (id === 'default' || id === 'default_fleet') g.description = `Default ${product === 'stream' ? 'Worker Group' : 'Fleet'}`;
    const history = randomInt(this.#random, 3, 6);
    for (let i = history; i > 0; i--) g.commits.unshift(this.#commit(now - i * 86_400_000, pick(this.#random, COMMIT_MESSAGES)));
    for (const c of g.commits.slice(1)) c.refs = '';
    this.#groups.set(id, g);
    return g;
  }

  #commit(ms: number, message: string): GitLogResult {
    return {
      hash: randomHex(this.#random, 40),
      date: gitDate(ms),
      message,
      body: '',
      refs: 'HEAD -> master',
      author_name: 'Admin User',
      author_email: 'admin@example.com',
    };
  }

  #rollout(g: GroupRec): void {
    const head = headVersion(g);
    for (const rec of this.#byProduct[g.product]) {
      if (rec.group === g.id && !rec.disconnected && rec.configVersion !== head) {
        rec.configVersion = head;
        this.#touch(rec);
      }
    }
  }

  #generate(opts: AddNodeOptions, firstMsgTime: number): NodeRec {
    const r = this.#random;
    let group = opts.group;
    let product = opts.product;
    if (group !== undefined) {
      const existing = this.#groups.get(group);
      if (existing && product && existing.product !== product) {
        throw new Error(`group ${JSON.stringify(group)} belongs to product ${existing.product}`);
      }
      product ??= existing?.product ?? 'stream';
      if (!existing) this.#createGroup(group, product, firstMsgTime);
    } else {
      product ??= r() < 0.65 ? 'stream' : 'edge';
      group = product === 'stream' ? pick(r, STREAM_GROUPS, STREAM_WEIGHTS) : pick(r, EDGE_FLEETS, EDGE_WEIGHTS);
    }
    const g = this.#groups.get(group) as GroupRec;
    const seq = ++this.#seq;
    const edge = product === 'edge';
    const platform = edge && r() < 0.15 ? 'win32' : 'linux';
    const cpus = pick(r, edge ? [2, 4, 8] : [4, 8, 16, 32]);
    const kube = !edge && platform === 'linux' && r() < 0.3;
    const hostname =
      opts.hostname ??
      (kube ? `cribl-worker-${group}-${randomHex(r, 5)}` : `${edge ? 'edge' : 'stream'}-${group}-${String(seq).padStart(3, '0')}`);
    const totalDiskSpace = pick(r, [50, 100, 200, 500]) * GIB;
    const [maj, min, patch] = this.#leaderVersion;
    const current = `${maj}.${min}.${patch}`;
    const older = patch > 0 ? `${maj}.${min}.${patch - 1}` : `${maj}.${Math.max(0, min - 1)}.2`;
    const id = opts.id ?? randomGuid(r);
    const rec: NodeRec = {
      id,
      product,
      group,
      hostile: opts.id !== undefined && HOSTILE_IDS.includes(opts.id),
      health: opts.health ?? 'healthy',
      disconnected: false,
      firstMsgTime,
      startTime: firstMsgTime - randomInt(r, 500, 5_000),
      lastSeen: firstMsgTime,
      workerProcesses: edge ? 1 : Math.max(1, cpus - 2),
      hostname,
      platform,
      architecture: platform === 'linux' && r() < 0.2 ? 'arm64' : 'x64',
      release: platform === 'win32' ? '10.0.20348' : pick(r, ['6.8.0-1013-aws', '5.15.0-1051-azure', '5.14.0-427.13.1.el9_4.x86_64']),
      cpus,
      totalmem: cpus * 4 * GIB,
      nodeVersion: min >= 17 ? 'v22.17.1' : 'v20.18.1',
      env: r() < 0.5 ? {} : { TZ: 'UTC', LANG: 'en_US.UTF-8' },
      criblVersion: r() < 0.9 ? current : older,
      configVersion: headVersion(g),
      distMode: edge ? 'managed-edge' : 'worker',
      freeDiskSpace: Math.round(totalDiskSpace * (0.1 + 0.8 * r())),
      totalDiskSpace,
      os: platform === 'win32' ? WINDOWS_OS : pick(r, LINUX_OS),
    };
    if (edge) rec.upgrade = { state: r() < 0.05 ? 2 : 1, timestamp: firstMsgTime };
    if (kube) rec.kube = { namespace: 'cribl', pod: hostname };
    if (opts.disconnected) rec.disconnected = true;
    return rec;
  }

  #renderEntry(rec: NodeRec): [string, string] {
    const head = JSON.stringify({ id: rec.id, group: rec.group, firstMsgTime: rec.firstMsgTime });
    const rest: Omit<WorkerEntry, 'id' | 'group' | 'firstMsgTime' | 'lastMsgTime'> = {
      workerProcesses: rec.workerProcesses,
      status: listingStatus(rec.health),
      disconnected: rec.disconnected,
      deployable: !rec.disconnected,
      info: {
        hostname: rec.hostname,
        platform: rec.platform,
        architecture: rec.architecture,
        release: rec.release,
        cpus: rec.cpus,
        totalmem: rec.totalmem,
        node: rec.nodeVersion,
        env: rec.env,
        cribl: {
          version: rec.criblVersion,
          config: { version: rec.configVersion },
          distMode: rec.distMode,
          group: rec.group,
          guid: rec.id,
          startTime: rec.startTime,
        },
        freeDiskSpace: rec.freeDiskSpace,
        totalDiskSpace: rec.totalDiskSpace,
      },
    };
    if (rec.upgrade) rest.nodeUpgradeStatus = rec.upgrade;
    return [`${head.slice(0, -1)},"lastMsgTime":`, `,${JSON.stringify(rest).slice(1)}`];
  }

  #renderMetadataTail(rec: NodeRec): string {
    const win = rec.platform === 'win32';
    const meta: Record<string, unknown> = {
      cribl: {
        mode: rec.distMode,
        version: rec.criblVersion,
        config_version: rec.configVersion,
        group: rec.group,
        install_type: rec.kube ? 'kubernetes' : 'standalone',
        tags: [],
      },
      os: {
        arch: rec.architecture,
        cpu_count: rec.cpus,
        cpu_speed_mhz: 2400,
        cpu_type: rec.architecture === 'arm64' ? 'Neoverse-N1' : 'Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz',
        gid: win ? -1 : 0,
        homedir: win ? 'C:\\Users\\cribl' : '/opt/cribl',
        hostname: rec.hostname,
        interfaces: {},
        machine_id: rec.id.replace(/[^0-9a-f]/g, '').padEnd(32, '0').slice(0, 32),
        memory: rec.totalmem,
        os_id: rec.os.id,
        os_name: rec.os.name,
        os_version: rec.os.version,
        os_version_id: rec.os.versionId,
        platform: rec.platform,
        release: rec.release,
        timezone: 'UTC',
        timezone_offset: '+00:00',
        uid: win ? -1 : 0,
        username: win ? 'cribl' : 'root',
      },
      env: {},
    };
    if (rec.kube) meta.kube = { namespace: rec.kube.namespace, source: 'kubernetes', pod: { name: rec.kube.pod } };
    return JSON.stringify(meta).slice(1);
  }

  #computeGroups(): Record<Product, ConfigGroup[]> {
    const deploying = new Map<string, number>();
    for (const rec of this.#all) {
      const g = this.#groups.get(rec.group);
      if (g && !rec.disconnected && rec.configVersion !== headVersion(g)) deploying.set(g.id, (deploying.get(g.id) ?? 0) + 1);
    }
    const out: Record<Product, ConfigGroup[]> = { stream: [], edge: [] };
    for (const g of this.#groups.values()) {
      const entry: ConfigGroup = { id: g.id, name: g.id };
      if (g.description) entry.description = g.description;
      entry.type = g.product;
      entry.configVersion = headVersion(g);
      entry.workerCount = g.nodes;
      entry.incompatibleWorkerCount = 0;
      entry.deployingWorkerCount = deploying.get(g.id) ?? 0;
      entry.onPrem = true;
      entry.workerRemoteAccess = true;
      if (g.product === 'edge') {
        entry.isFleet = true;
        if (g.id !== 'default_fleet') entry.inherits = 'default_fleet';
      }
      entry.lookupDeployments = [];
      out[g.product].push(entry);
    }
    return out;
  }
}

function headVersion(g: GroupRec): string {
  return (g.commits[0]?.hash ?? '0000000').slice(0, 7);
}
