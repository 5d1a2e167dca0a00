import type { GroupState, LeaderState, NodeState } from '../../src/collectors/state.js';
import type { HealthFacts } from '../../src/collectors/node-health.js';
import type { MetadataFacts } from '../../src/collectors/node-metadata.js';
import type { PolledSnapshot } from '../../src/polling/poller.js';
import type { LeaderSnapshot } from '../../src/store/snapshot.js';

/** A LeaderSnapshot that only remembers, for tests of the writers. */
export class MemorySnapshot
  implements PolledSnapshot, Pick<LeaderSnapshot, 'nodeKeys' | 'setGroups' | 'setLeader' | 'leader' | 'getGroup'>
{
  readonly labels = {};
  readonly nodes = new Map<string, NodeState>();
  groups: readonly GroupState[] = [];
  leaderState: LeaderState | undefined;
  writes = 0;
  setNode(key: string, state: NodeState): void {
    this.writes++;
    this.nodes.set(key, state);
  }
  setListing(key: string, product: NodeState['product'], group: string, worker: NodeState['worker']): void {
    const n = this.nodes.get(key);
    this.setNode(key, n ? { ...n, product, group, worker } : { product, group, nodeId: worker.id, worker });
  }
  deleteNode(key: string): void {
    this.nodes.delete(key);
  }
  getNode(key: string): NodeState | undefined {
    return this.nodes.get(key);
  }
  hasNode(key: string): boolean {
    return this.nodes.has(key);
  }
  nodeId(key: string): string | undefined {
    return this.nodes.get(key)?.nodeId;
  }
  nodeHealth(key: string): HealthFacts | undefined {
    return this.nodes.get(key)?.health;
  }
  setNodeHealth(key: string, health: HealthFacts): void {
    const n = this.nodes.get(key);
    if (n) this.setNode(key, { ...n, health });
  }
  nodeMetadata(key: string): MetadataFacts | undefined {
    return this.nodes.get(key)?.metadata;
  }
  setNodeMetadata(key: string, metadata: MetadataFacts): void {
    const n = this.nodes.get(key);
    if (n) this.setNode(key, { ...n, metadata });
  }
  nodeKeys(): IterableIterator<string> {
    return this.nodes.keys();
  }
  setGroups(groups: readonly GroupState[]): Promise<void> {
    this.groups = groups;
    return Promise.resolve();
  }
  setLeader(state: Partial<LeaderState>): void {
    this.leaderState = { ...this.leaderState, ...state };
  }
  leader(): LeaderState | undefined {
    return this.leaderState;
  }
  getGroup(product: GroupState['product'], id: string): GroupState | undefined {
    return this.groups.find((g) => g.product === product && g.group.id === id);
  }
}
