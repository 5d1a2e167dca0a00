import type { GroupState, LeaderSnapshot, LeaderState, NodeState } from '../../src/store/types.js';

/** A LeaderSnapshot that only remembers, for tests of the writers. */
export class MemorySnapshot implements LeaderSnapshot {
  readonly labels = {};
  readonly nodes = new Map<string, NodeState>();
  groups: readonly GroupState[] = [];
  leader: LeaderState | undefined;
  writes = 0;
  setNode(key: string, state: NodeState): void {
    this.writes++;
    this.nodes.set(key, state);
  }
  deleteNode(key: string): void {
    this.nodes.delete(key);
  }
  getNode(key: string): NodeState | undefined {
    return this.nodes.get(key);
  }
  nodeKeys(): IterableIterator<string> {
    return this.nodes.keys();
  }
  setGroups(groups: readonly GroupState[]): void {
    this.groups = groups;
  }
  setLeader(state: LeaderState): void {
    this.leader = state;
  }
}
