import type { ConfigGroup, GitLogResult } from '@cribl-exporter/api/shapes';
import type { Product } from '@cribl-exporter/api/products';
import type { Clock, Random } from '@cribl-exporter/api/clock';
import type { ChurnFault } from './faults.js';
import {
  COMMIT_MESSAGES,
  EDGE_FLEETS,
  EDGE_WEIGHTS,
  NodeView,
  STREAM_GROUPS,
  STREAM_WEIGHTS,
  deployedVersion,
  generateNode,
  gitFields,
  groupEntry,
  newCommit,
  parseVersion,
  renderEntry,
  renderMetadataTail,
  upgradeStatus,
  versionAt,
  versionAtLeast,
} from './fleet-model.js';
import type { GroupRec, NodeRec } from './fleet-model.js';
import { churnStep } from './fleet-churn.js';
import { HEARTBEAT_PERIOD_MS, HOSTILE_IDS } from './fleet-types.js';
import type {
  AddNodeOptions,
  ConfigVersionStyle,
  DeployOptions,
  Fleet,
  FleetOptions,
  GroupSizes,
  SimLeaderState,
  NodeHealthMode,
  SimNode,
  UpgradeStatusInput,
} from './fleet-types.js';
import { pick, randomInt } from './random.js';

export * from './fleet-types.js';
export { listingStatus, parseVersion } from './fleet-model.js';

/** The fleet implementation; the server also uses its rendering helpers. */
export class SimFleet implements Fleet {
  readonly clock: Clock;
  readonly #random: Random;
  readonly #leaderVersion: [number, number, number];
  readonly #all: NodeRec[] = [];
  readonly #byProduct: Record<Product, NodeRec[]> = { stream: [], edge: [] };
  readonly #byId = new Map<string, NodeRec>();
  readonly #groups = new Map<string, GroupRec>();
  readonly #disconnected = new Set<NodeRec>();
  readonly #streamIds: string[];
  readonly #streamWeights: number[];
  readonly #edgeIds: string[];
  readonly #edgeWeights: number[];
  #semver: boolean;
  #seq = 0;
  #leaderState: SimLeaderState = 'healthy';
  /** Bumped on every change; caches of derived data compare against it. */
  #version = 0;
  #groupCache: { version: number; byProduct: Record<Product, ConfigGroup[]> } | undefined;
  readonly #entry = (rec: NodeRec): string => this.entryJson(rec, this.clock.now());
  readonly #heard = (rec: NodeRec): number => this.#lastMsgTime(rec, this.clock.now());
  readonly #view = (rec: NodeRec): SimNode => new NodeView(rec, this.#entry, this.#heard);
  readonly #streamShare: number;

  constructor(opts: FleetOptions) {
    this.clock = opts.clock;
    this.#random = opts.random;
    this.#leaderVersion = parseVersion(opts.leaderVersion);
    this.#semver = opts.configVersions === 'semver';
    const edgeShare = opts.edgeShare ?? 0.35;
    if (!(edgeShare >= 0 && edgeShare <= 1)) throw new Error(`edgeShare must be between 0 and 1 (got ${edgeShare})`);
    // 0.65 itself by default: 1 - 0.35 may differ from it in the last bit, and the default fleet must not change.
    this.#streamShare = opts.edgeShare === undefined ? 0.65 : 1 - edgeShare;
    const sizes = opts.groupSizes ?? 'even';
    [this.#streamIds, this.#streamWeights] = groupNames(
      STREAM_GROUPS,
      STREAM_WEIGHTS,
      opts.streamGroups,
      'group',
      sizes,
    );
    [this.#edgeIds, this.#edgeWeights] = groupNames(EDGE_FLEETS, EDGE_WEIGHTS, opts.edgeFleets, 'fleet', sizes);
    const now = this.clock.now();
    this.#streamIds.forEach((g) => this.#createGroup(g, 'stream', now));
    this.#edgeIds.forEach((g) => this.#createGroup(g, 'edge', now));
    for (let i = 0; i < opts.nodes; i++) {
      // The first two nodes cover both products, so even tiny fleets exercise both.
      const product: Product =
        i === 0 ? 'stream' : i === 1 ? 'edge' : this.#random() < this.#streamShare ? 'stream' : 'edge';
      this.#insert(this.#generate({ product }, now - randomInt(this.#random, 3_600_000, 30 * 86_400_000)));
    }
  }

  nodes(): readonly SimNode[] {
    return this.#all.map(this.#view);
  }

  node(id: string): SimNode | undefined {
    const rec = this.#byId.get(id);
    return rec && this.#view(rec);
  }

  size(product?: Product): number {
    return product ? this.#byProduct[product].length : this.#all.length;
  }

  addNode(opts: AddNodeOptions = {}): SimNode {
    if (opts.id !== undefined && this.#byId.has(opts.id)) throw new Error(`node id ${JSON.stringify(opts.id)} exists`);
    if (opts.id === '') throw new Error('node id must not be empty');
    const rec = this.#generate(opts, this.clock.now());
    this.#insert(rec);
    return this.#view(rec);
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
    if (g) {
      g.nodes--;
      if (!rec.disconnected) g.processes -= rec.workerProcesses;
    }
    this.#disconnected.delete(rec);
    this.#version++;
    return true;
  }

  setHealth(id: string, mode: NodeHealthMode): void {
    const rec = this.#get(id);
    rec.health = mode;
    this.#touch(rec);
  }

  setListingStatus(id: string, status: string | null): void {
    const rec = this.#get(id);
    if (status === null) delete rec.statusOverride;
    else rec.statusOverride = status;
    this.#touch(rec);
  }

  setDisconnected(id: string, disconnected: boolean): void {
    const rec = this.#get(id);
    if (rec.disconnected === disconnected) return;
    if (disconnected) rec.lastSeen = this.#lastMsgTime(rec, this.clock.now());
    else delete rec.silent;
    this.#setConnected(rec, !disconnected);
    this.#touch(rec);
  }

  restart(id: string): void {
    const rec = this.#get(id);
    const now = this.clock.now();
    rec.startTime = now;
    rec.firstMsgTime = now;
    delete rec.silent;
    this.#setConnected(rec, true);
    this.#touch(rec);
  }

  setConfigVersion(id: string, version: string): void {
    const rec = this.#get(id);
    rec.configVersion = version;
    this.#touch(rec);
  }

  setCriblVersion(id: string, version: string): void {
    const rec = this.#get(id);
    rec.criblVersion = version;
    this.#touch(rec);
  }

  setSilent(id: string, lastMsgTime: number | null): void {
    const rec = this.#get(id);
    if (lastMsgTime === null) {
      if (!rec.silent) return;
      delete rec.silent;
    } else {
      rec.silent = true;
      rec.lastSeen = lastMsgTime;
    }
    this.#touch(rec);
  }

  drift(id: string, behind = 1): string {
    const rec = this.#get(id);
    const g = this.#group(rec.group);
    const older = versionAt(g, g.undeployed + behind);
    if (!Number.isInteger(behind) || behind < 1 || !older) {
      throw new Error(`group ${JSON.stringify(g.id)} has no commit ${behind} older than its deployed one`);
    }
    this.setConfigVersion(id, older);
    return older;
  }

  setUpgradeStatus(id: string, status: UpgradeStatusInput | null): void {
    const rec = this.#get(id);
    if (rec.product !== 'edge') throw new Error(`node ${JSON.stringify(id)} is not an Edge node`);
    if (status === null) delete rec.upgrade;
    else rec.upgrade = upgradeStatus(status, this.clock.now());
    this.#touch(rec);
  }

  groups(product: Product): readonly ConfigGroup[] {
    if (this.#groupCache?.version !== this.#version) {
      this.#groupCache = { version: this.#version, byProduct: this.#computeGroups() };
    }
    return this.#groupCache.byProduct[product];
  }

  setIncompatibleWorkerCount(groupId: string, count: number): void {
    if (!Number.isInteger(count) || count < 0) throw new Error('incompatibleWorkerCount must be an integer ≥ 0');
    this.#group(groupId).incompatible = count;
    this.#version++;
  }

  commitGroup(groupId: string, opts: { message?: string } = {}): string {
    const g = this.#group(groupId);
    this.#addCommit(g, opts.message);
    g.undeployed++;
    this.#version++;
    return g.commits[0]?.hash ?? '';
  }

  deployGroup(groupId: string, opts: DeployOptions = {}): string {
    const g = this.#group(groupId);
    if (opts.commit ?? true) this.#addCommit(g, opts.message);
    g.undeployed = 0;
    g.pendingRollout = !(opts.rollout ?? true);
    if (!g.pendingRollout) this.#rollout(g);
    this.#version++;
    return deployedVersion(g);
  }

  undeployedCommits(groupId: string): number | undefined {
    return this.#groups.get(groupId)?.undeployed;
  }

  commits(groupId: string): readonly GitLogResult[] | undefined {
    return this.#groups.get(groupId)?.commits;
  }

  versionAt(groupId: string, index: number): string | undefined {
    const g = this.#groups.get(groupId);
    return g && versionAt(g, index);
  }

  setConfigVersionStyle(style: ConfigVersionStyle): void {
    const semver = style === 'semver';
    if (semver === this.#semver) return;
    // Each node keeps the commit it runs, named the other way; versions set by hand that name no commit stay.
    const renamed = new Map<string, Map<string, string>>();
    for (const g of this.#groups.values()) {
      const names = new Map<string, string>();
      const old = g.commits.map((_, i) => versionAt(g, i));
      g.semver = semver;
      old.forEach((from, i) => {
        const to = versionAt(g, i);
        if (from !== undefined && to !== undefined) names.set(from, to);
      });
      renamed.set(g.id, names);
    }
    this.#semver = semver;
    for (const rec of this.#all) {
      const to = renamed.get(rec.group)?.get(rec.configVersion);
      if (to !== undefined && to !== rec.configVersion) {
        rec.configVersion = to;
        this.#touch(rec);
      }
    }
    this.#version++;
  }

  configVersionStyle(): ConfigVersionStyle {
    return this.#semver ? 'semver' : 'hash';
  }

  setLocalChanges(groupId: string, count: number): void {
    if (!Number.isInteger(count) || count < 0) throw new Error('localChanges must be an integer ≥ 0');
    this.#group(groupId).localChanges = count;
    this.#version++;
  }

  localChanges(groupId: string): number | undefined {
    return this.#groups.get(groupId)?.localChanges;
  }

  setLeaderState(state: SimLeaderState): void {
    this.#leaderState = state;
  }

  leaderState(): SimLeaderState {
    return this.#leaderState;
  }

  // ---- used by the server ----

  /** The node record behind an id (hot path: no view object). */
  lookup(id: string): NodeRec | undefined {
    return this.#byId.get(id);
  }

  /** Whether a group / fleet exists. */
  hasGroup = (id: string): boolean => this.#groups.has(id);

  /** The product of a group, or undefined when it does not exist. */
  groupProduct(id: string): Product | undefined {
    return this.#groups.get(id)?.product;
  }

  /** The wire JSON of one listing entry at `now`. */
  entryJson(rec: NodeRec, now: number): string {
    const json = (rec.json ??= renderEntry(rec, !versionAtLeast(this.#leaderVersion, [4, 17, 0])));
    return json[0] + String(this.#lastMsgTime(rec, now)) + json[1];
  }

  /**
   * Joined JSON of listing entries `offset … offset+limit` of a product (or all nodes), without
   * re-serialising anything but changed nodes.
   */
  renderPage(
    scope: Product | 'all',
    offset: number,
    limit: number | undefined,
    now: number,
  ): { items: string; count: number; total: number } {
    const list = scope === 'all' ? this.#all : this.#byProduct[scope];
    const end = limit === undefined ? list.length : Math.min(list.length, offset + limit);
    const parts: string[] = [];
    for (let i = offset; i < end; i++) parts.push(this.entryJson(list[i] as NodeRec, now));
    return { items: parts.join(','), count: parts.length, total: list.length };
  }

  /**
   * The wire JSON of GET /w/{id}/edge/metadata for one node. Rendered at each request, not kept: a node's metadata
   * is asked for once per metadata interval (10 min by default), and 1.2 KB a node kept would be 300 MB at 250,000.
   */
  metadataJson(rec: NodeRec, now: number): string {
    return `{"count":1,"items":[{"timestamp":${now},${renderMetadataTail(rec)}]}`;
  }

  /** `git` object of a group for `?fields=`; `localChanges` undefined leaves that key out. */
  git(groupId: string, fields: ReadonlySet<string>, localChanges: number | undefined): NonNullable<ConfigGroup['git']> {
    return gitFields(this.#groups.get(groupId)?.commits ?? [], fields, localChanges);
  }

  /** Worker processes of a group's connected nodes (0 for unknown groups). */
  processes(groupId: string): number {
    return this.#groups.get(groupId)?.processes ?? 0;
  }

  /** The connected nodes of every group of a product, in listing order: id and memory. */
  connectedNodes(product: Product): Map<string, { id: string; totalmem: number }[]> {
    const out = new Map<string, { id: string; totalmem: number }[]>();
    for (const r of this.#byProduct[product]) {
      if (r.disconnected) continue;
      const list = out.get(r.group) ?? [];
      out.set(r.group, list);
      list.push({ id: r.id, totalmem: r.totalmem });
    }
    return out;
  }

  /**
   * Removes the nodes disconnected for at least `maxAgeMs` (their last heartbeat that long ago), as a leader does
   * after a group's `maxWorkerAge`; returns their ids. Work is proportional to the disconnected nodes.
   */
  expireDisconnected(maxAgeMs: number, now: number): string[] {
    const gone: string[] = [];
    for (const rec of this.#disconnected) if (now - rec.lastSeen >= maxAgeMs) gone.push(rec.id);
    for (const id of gone) this.removeNode(id);
    return gone;
  }

  /** One churn step (see fleet-churn.ts). */
  churn(counts: Omit<ChurnFault, 'every'>): void {
    churnStep(this, this.#random, counts);
  }

  /** Deploys to the nodes the deploys that waited for a churn tick (`rollout: false`). */
  finishRollouts(): void {
    for (const g of this.#groups.values()) {
      if (g.pendingRollout) {
        g.pendingRollout = false;
        this.#rollout(g);
      }
    }
  }

  /** Ids of every group and fleet. */
  groupIds = (): string[] => [...this.#groups.keys()];
  /** Puts `count` deterministic random healthy, connected nodes (matching `ok`) into a state (scenario start). */
  seedStates(count: number, apply: (id: string) => void, ok: (n: NodeRec) => boolean = () => true): void {
    for (let i = 0; i < count; i++) {
      const rec = this.randomNode((r) => r.health === 'healthy' && !r.disconnected && !r.hostile && ok(r));
      if (rec) apply(rec.id);
    }
  }

  /** A random node matching `ok`, drawn from the fleet's seeded stream; undefined when none matches. */
  randomNode(ok: (r: NodeRec) => boolean): NodeRec | undefined {
    // Probing beats filtering a 100,000-node array on every churn step.
    for (let i = 0; i < 50 && this.#all.length > 0; i++) {
      const rec = this.#all[Math.floor(this.#random() * this.#all.length)];
      if (rec && ok(rec)) return rec;
    }
    return this.#all.find(ok);
  }

  // ---- internals ----

  #get(id: string): NodeRec {
    const rec = this.#byId.get(id);
    if (!rec) throw new Error(`unknown node id ${JSON.stringify(id)}`);
    return rec;
  }

  #group(id: string): GroupRec {
    const g = this.#groups.get(id);
    if (!g) throw new Error(`unknown group ${JSON.stringify(id)}`);
    return g;
  }

  #touch(rec: NodeRec): void {
    delete rec.json;
    this.#version++;
  }

  #lastMsgTime(rec: NodeRec, now: number): number {
    if (rec.disconnected || rec.silent) return rec.lastSeen;
    if (now <= rec.firstMsgTime) return rec.firstMsgTime;
    return now - ((now - rec.firstMsgTime) % HEARTBEAT_PERIOD_MS);
  }

  #insert(rec: NodeRec): void {
    this.#byId.set(rec.id, rec);
    this.#all.push(rec);
    this.#byProduct[rec.product].push(rec);
    const g = this.#groups.get(rec.group);
    if (g) {
      g.nodes++;
      if (!rec.disconnected) g.processes += rec.workerProcesses;
    }
    if (rec.disconnected) this.#disconnected.add(rec);
    this.#version++;
  }

  /** Connects or disconnects a node, keeping its group's process total and the disconnected set in step. */
  #setConnected(rec: NodeRec, connected: boolean): void {
    if (rec.disconnected === !connected) return;
    rec.disconnected = !connected;
    const g = this.#groups.get(rec.group);
    if (g) g.processes += connected ? rec.workerProcesses : -rec.workerProcesses;
    if (connected) this.#disconnected.delete(rec);
    else this.#disconnected.add(rec);
  }

  #createGroup(id: string, product: Product, now: number): GroupRec {
    const g: GroupRec = {
      id,
      product,
      commits: [],
      undeployed: 0,
      incompatible: 0,
      nodes: 0,
      pendingRollout: false,
      processes: 0,
      localChanges: 0,
      semver: this.#semver,
    };
    if (id === 'default' || id === 'default_fleet') {
      g.description = `Default ${product === 'stream' ? 'Worker Group' : 'Fleet'}`;
    }
    const history = randomInt(this.#random, 3, 6);
    for (let i = history; i > 0; i--) {
      g.commits.unshift(newCommit(this.#random, now - i * 86_400_000, pick(this.#random, COMMIT_MESSAGES)));
    }
    for (const c of g.commits.slice(1)) c.refs = '';
    this.#groups.set(id, g);
    return g;
  }

  #addCommit(g: GroupRec, message: string | undefined): void {
    g.commits.unshift(newCommit(this.#random, this.clock.now(), message ?? pick(this.#random, COMMIT_MESSAGES)));
    const prev = g.commits[1];
    if (prev) prev.refs = '';
  }

  #rollout(g: GroupRec): void {
    const deployed = deployedVersion(g);
    for (const rec of this.#byProduct[g.product]) {
      if (rec.group === g.id && !rec.disconnected && rec.configVersion !== deployed) {
        rec.configVersion = deployed;
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
      group =
        product === 'stream'
          ? pick(r, this.#streamIds, this.#streamWeights)
          : pick(r, this.#edgeIds, this.#edgeWeights);
    }
    return generateNode(r, this.#group(group), ++this.#seq, this.#leaderVersion, opts, firstMsgTime);
  }

  #computeGroups(): Record<Product, ConfigGroup[]> {
    const deploying = new Map<string, number>();
    for (const rec of this.#all) {
      const g = this.#groups.get(rec.group);
      if (g && !rec.disconnected && rec.configVersion !== deployedVersion(g)) {
        deploying.set(g.id, (deploying.get(g.id) ?? 0) + 1);
      }
    }
    const out: Record<Product, ConfigGroup[]> = { stream: [], edge: [] };
    for (const g of this.#groups.values()) out[g.product].push(groupEntry(g, deploying.get(g.id) ?? 0));
    return out;
  }
}

/**
 * Group ids and weights of one product: the defaults, or `count` groups (the first ones of the defaults, then
 * `<prefix>-4`, `<prefix>-5`, …) weighted evenly.
 */
function groupNames(
  ids: readonly string[],
  weights: readonly number[],
  count: number | undefined,
  prefix: string,
  sizes: GroupSizes,
): [string[], number[]] {
  if (count === undefined || count === ids.length) return [[...ids], [...weights]];
  const out = ids.slice(0, count);
  for (let i = ids.length; i < count; i++) out.push(`${prefix}-${i + 1}`);
  return [out, out.map((_, i) => (sizes === 'varied' ? 1 / (i + 1) : 1))];
}
