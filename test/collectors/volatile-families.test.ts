import { describe, expect, it } from 'vitest';
import { NODE_FAMILIES, NODE_RENDERING } from '../../src/collectors/index.js';
import type { NodeState } from '../../src/collectors/state.js';
import { VOLATILE_FIELDS } from '../../src/store/node-table.js';
import { fullState, random, randomState, withValue } from '../store/states.js';

/** Whether `state` has the object that holds the dotted `path` (a value set there is not a new part). */
function holds(state: NodeState, path: string): boolean {
  let at: unknown = state;
  for (const k of path.split('.').slice(0, -1)) {
    at = (at as Record<string, unknown> | undefined)?.[k];
    if (typeof at !== 'object' || at === null) return false;
  }
  return true;
}

// A build takes the text of a family that is not volatile from the last build when the store's fingerprint of a run
// of nodes, which leaves VOLATILE_FIELDS out, did not change: such a family must not read any of them.
describe('volatile node families', () => {
  const r = random(41);
  const states = [fullState(), ...Array.from({ length: 300 }, (_, i) => randomState(r, i))];

  it.each(NODE_FAMILIES.filter((f) => !f.volatile).map((f) => [f.name, f] as const))(
    '%s reads none of the volatile fields',
    (_, family) => {
      let compared = 0;
      for (const s of states) {
        const base = NODE_RENDERING.base(s, 'workspace="w"');
        const before = family.sample(s, base);
        for (const path of VOLATILE_FIELDS) {
          if (!holds(s, path)) continue;
          for (const value of [0, 1234567000, 1717300009999]) {
            expect(family.sample(withValue(s, path, value), base)).toBe(before);
            compared++;
          }
        }
      }
      expect(compared).toBeGreaterThan(300);
    },
  );

  it.each(NODE_FAMILIES.filter((f) => f.volatile).map((f) => [f.name, f] as const))(
    '%s reads one of them (so it is rendered at every build)',
    (_, family) => {
      const s = fullState();
      const base = NODE_RENDERING.base(s, '');
      const changes = VOLATILE_FIELDS.filter(
        (p) => family.sample(withValue(s, p, 1234567000), base) !== family.sample(s, base),
      );
      expect(changes.length).toBeGreaterThan(0);
    },
  );

  it('are the three timestamps and the free disk, no more', () => {
    expect(NODE_FAMILIES.filter((f) => f.volatile).map((f) => f.name)).toEqual([
      'cribl_node_last_heartbeat_timestamp_seconds',
      'cribl_node_disk_free_bytes',
      'cribl_node_health_last_success_timestamp_seconds',
      'cribl_node_metadata_last_success_timestamp_seconds',
    ]);
  });
});
