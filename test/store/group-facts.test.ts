import { renderNode, SNAPSHOT_RENDERERS } from '../../src/collectors/index.js';
import type { GroupState } from '../../src/collectors/state.js';
import { describe, expect, it } from 'vitest';
import { createLeaderSnapshot, type LeaderSnapshot } from '../../src/store/snapshot.js';
import { node, worker } from '../exposition/fixtures.js';

/** A store that records the ids of the nodes written (each write goes through nodeWithFacts). */
function recording(): { s: LeaderSnapshot; seen: string[] } {
  const seen: string[] = [];
  const render = {
    ...SNAPSHOT_RENDERERS,
    nodeWithFacts: (...args: Parameters<typeof SNAPSHOT_RENDERERS.nodeWithFacts>) => {
      seen.push(args[1].nodeId);
      return SNAPSHOT_RENDERERS.nodeWithFacts(...args);
    },
  };
  return { s: createLeaderSnapshot({ render }), seen };
}

/** The nodes written since the last call, in key order. */
function written(_s: LeaderSnapshot, seen: string[]): string[] {
  return [...new Set(seen.splice(0))].sort();
}

const group = (id: string, configVersion?: string, extra: Partial<GroupState> = {}): GroupState => ({
  product: 'stream',
  group: { id, ...(configVersion === undefined ? {} : { configVersion }) },
  ...extra,
});

/** A node of `group` running `version`. */
function running(id: string, groupId: string, version: string) {
  const w = worker(id, { group: groupId });
  w.info.cribl.config.version = version;
  return node(id, { group: groupId, worker: w });
}

/** The node's cribl_node_config_outdated value as the body renders it. */
const outdated = (s: LeaderSnapshot, key: string): string | undefined => {
  const state = s.getNode(key);
  return /cribl_node_config_outdated\{[^}]*\} (\d)/.exec(state ? renderNode(state, '').join('') : '')?.[1];
};

describe('nodes rendered with their group’s facts', () => {
  it('compares each node with its group’s deployed version; a deploy re-renders that group’s nodes only', async () => {
    const { s, seen } = recording();
    await s.setGroups([group('east', '43c00c7'), group('west', 'aaaaaaa')]);
    s.setNode('e1', running('e1', 'east', '43c00c7'));
    s.setNode('e2', running('e2', 'east', '43c00c7'));
    s.setNode('w1', running('w1', 'west', 'bbbbbbb'));
    s.setNode('x1', running('x1', 'unlisted', 'ccccccc'));
    written(s, seen);
    expect([outdated(s, 'e1'), outdated(s, 'e2'), outdated(s, 'w1'), outdated(s, 'x1')]).toEqual([
      '0',
      '0',
      '1',
      undefined, // its group is unknown: nothing to compare with
    ]);
    expect(s.getNode('e1')?.deployedConfigVersion).toBe('43c00c7');

    // east deploys 3789d1f; its nodes have not moved yet: east's two nodes, and only they, are written again.
    await s.setGroups([group('east', '3789d1f'), group('west', 'aaaaaaa')]);
    expect(written(s, seen).sort()).toEqual(['e1', 'e2']);
    expect([outdated(s, 'e1'), outdated(s, 'e2'), outdated(s, 'w1')]).toEqual(['1', '1', '1']);

    // A change that does not touch the deployed version re-renders no node.
    await s.setGroups([group('east', '3789d1f', { group: { id: 'east', configVersion: '3789d1f', workerCount: 9 } })]);
    expect(written(s, seen)).toEqual(['w1']); // west left the listing: its nodes lose what they compared with
    expect(outdated(s, 'w1')).toBeUndefined();

    s.setNode('e1', running('e1', 'east', '3789d1f'));
    written(s, seen);
    expect(outdated(s, 'e1')).toBe('0');
  });

  it('a node that moves to another group is compared with the new one, and follows its deploys', async () => {
    const { s, seen } = recording();
    await s.setGroups([group('a', '1111111'), group('b', '2222222')]);
    s.setNode('n', running('n', 'a', '2222222'));
    s.setNode('n', running('n', 'b', '2222222'));
    written(s, seen);
    expect(outdated(s, 'n')).toBe('0');
    await s.setGroups([group('a', '3333333'), group('b', '2222222')]);
    expect(written(s, seen)).toEqual([]); // n is no longer a's
    await s.setGroups([group('a', '3333333'), group('b', '4444444')]);
    expect(written(s, seen)).toEqual(['n']);
  });

  it('keeps a group’s packs through a discovery that brings none', async () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    await s.setGroups([group('a', '1111111')]);
    s.setGroupPacks(new Map([['stream\u0000a', { packs: [{ id: 'p', version: '1.0.0', pipelines: 2 }] }]]));
    await s.setGroups([group('a', '1111111')]);
    expect(s.getGroup('stream', 'a')?.packs?.packs).toEqual([{ id: 'p', version: '1.0.0', pipelines: 2 }]);
    expect(s.groupTexts().join('')).toContain('cribl_group_pack_pipelines{product="stream",group="a",pack="p"} 2\n');
  });
});

describe('restarts', () => {
  const at = (id: string, startTime: number) => {
    const w = worker(id);
    w.info.cribl.startTime = startTime;
    return node(id, { worker: w });
  };

  it('counts changes of the listed start time; the first sighting and other writes are none', () => {
    const { s, seen } = recording();
    s.setNode('n', at('n', 1000));
    s.setNode('n', { ...s.getNode('n')!, health: { up: true, status: 'healthy', lastSuccessMs: 5 } });
    s.setNode('n', at('n', 1000));
    expect(s.getNode('n')?.restarts).toBeUndefined();
    s.setNode('n', at('n', 2000));
    s.setNode('n', at('n', 2000));
    s.setNode('n', at('n', 3000));
    written(s, seen);
    expect(s.getNode('n')?.restarts).toBe(2);
    expect(renderNode(s.getNode('n')!, '').join('')).toContain(
      'cribl_node_restarts_total{product="stream",group="default",node_id="n"} 2\n',
    );
    // A node that leaves and comes back starts over (its series vanished meanwhile).
    s.deleteNode('n');
    s.setNode('n', at('n', 4000));
    expect(s.getNode('n')?.restarts).toBeUndefined();
  });
});

describe('leader state', () => {
  it('is written piecewise: each write replaces only the fields it gives', () => {
    const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    s.setLeader({ up: false, failure: { reason: 'http_4xx', status: 401, message: 'GET /x: HTTP 401' } });
    s.setLeader({ search: { success: true, durationMs: 1500, lastSuccessMs: 1000 } });
    expect(s.leaderTexts().join('')).toBe(
      [
        'cribl_leader_up 0',
        'cribl_leader_discovery_failure_info{reason="unauthorized"} 1',
        'cribl_search_probe_success 1',
        'cribl_search_probe_duration_seconds 1.5',
        'cribl_search_probe_last_success_timestamp_seconds 1',
        '',
      ].join('\n'),
    );
    s.setLeader({ up: true, failure: undefined, lastDiscoveryMs: 2000 });
    expect(s.leader()).toMatchObject({ up: true, search: { success: true } });
    expect(s.leaderTexts().join('')).not.toContain('failure');
  });
});
