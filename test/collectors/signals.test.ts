import { describe, expect, it } from 'vitest';
import type { GroupItem, ScopeItem } from '../../src/collectors/collector.js';
import { decodeGitSettings } from '../../src/collectors/git-settings/index.js';
import { nextRead } from '../../src/collectors/read.js';
import {
  countUndeployed,
  decodeVersionPage,
  nextVersions,
  parseCommitDate,
  sameCommit,
  VERSION_PAGE,
} from '../../src/collectors/group-version/index.js';
import { decodeLeaderHealth, fromProbe, nextLeaderHealth } from '../../src/collectors/leader-health/index.js';
import { requestFailureReason } from '../../src/collectors/failure-reason.js';
import { decodePacks, decodePipelineCount } from '../../src/collectors/packs/index.js';
import { decodeJob } from '../../src/collectors/search/index.js';
import { withRestarts, type ListedNode } from '../../src/collectors/listing/index.js';
import { decodeWorkspaces } from '../../src/collectors/workspaces/index.js';
import { node, worker } from '../exposition/fixtures.js';
import { family, MANAGEMENT_FAMILIES, renderGroups, renderLeader, renderNode } from '../helpers/render.js';

const B = 'product="stream",group="default",node_id="w1"';
/** The leader families' text, for the leader's facts by collector. */
// The listing's cribl_leader_up (0 until a discovery answered: render.test.ts) is left out: these tests are about
// the other leader families.
const leader = (facts: ScopeItem['facts'], target = ''): string =>
  renderLeader({ facts }, target)
    .filter((text) => !text.startsWith('cribl_leader_up'))
    .join('');
/** The group a node belongs to, as the groups listing gives it. */
const deployed = (configVersion: string): GroupItem => ({
  product: 'stream',
  id: 'default',
  facts: { groups: { id: 'default', configVersion } },
});

describe('sameCommit: short and full hashes', () => {
  const full = '43c00c799f49dda33d0dfd47b7e266fc4d68ad5d';
  it.each<[string, string, boolean]>([
    ['43c00c7', '43c00c7', true],
    ['43c00c7', full, true],
    [full, '43c00c7', true],
    ['43C00C7', full, true],
    [full, full, true],
    ['3789d1f', full, false],
    ['43c00c7', '43c00c8', false],
    ['43c', full, false], // too short to be taken for an abbreviation
    ['', '', false],
    ['1.0.0', 'abc1234', false],
  ])('%s vs %s → %s', (a, b, same) => expect(sameCommit(a, b)).toBe(same));
});

describe('commit history', () => {
  it.each<[string | undefined, number | undefined]>([
    ['2026-11-21 12:00:00 +0000', Date.UTC(2026, 10, 21, 12)],
    ['2026-11-21 14:30:00 +0230', Date.UTC(2026, 10, 21, 12)],
    ['2026-11-21T12:00:00Z', Date.UTC(2026, 10, 21, 12)],
    ['2026-11-21T12:00:00.250-01:00', Date.UTC(2026, 10, 21, 13)],
    ['yesterday', undefined],
    [undefined, undefined],
  ])('reads the date %s', (date, ms) => expect(parseCommitDate(date)).toBe(ms));

  const page = (...hashes: string[]) =>
    decodeVersionPage({
      count: hashes.length,
      items: hashes.map((hash) => ({ hash, date: '2026-11-21 12:00:00 +0000' })),
    });

  it('counts the commits above the deployed one, by prefix; the whole page (at least) when it is not there', () => {
    const commits = page('aaaaaaa111', 'bbbbbbb222', '43c00c7333', 'ddddddd444');
    expect(countUndeployed(commits, '43c00c7')).toBe(2);
    expect(countUndeployed(commits, 'aaaaaaa')).toBe(0);
    expect(countUndeployed(commits, 'fffffff')).toBe(4);
    expect(countUndeployed(commits, undefined)).toBeUndefined();
    expect(VERSION_PAGE).toBe(50);
  });

  it('keeps the counts through a failed read only while the deployed version is unchanged', () => {
    const ok = nextVersions(undefined, 'bbbbbbb', { ok: true, status: 200, body: page('aaaaaaa1', 'bbbbbbb2') });
    expect(ok).toEqual({ deployed: 'bbbbbbb', undeployed: 1, lastCommitMs: Date.UTC(2026, 10, 21, 12) });
    const fail = { ok: false, reason: 'http_4xx', status: 404, message: 'x' } as const;
    expect(nextVersions(ok, 'bbbbbbb', fail)).toEqual({ ...ok, failure: 'not_found' });
    expect(nextVersions(ok, 'aaaaaaa', fail)).toEqual({ failure: 'not_found' });
  });

  it('renders per group, with the incompatible workers; the counts only while they are the deployed version’s', () => {
    const group = (configVersion: string): GroupItem => ({
      product: 'stream',
      id: 'default',
      facts: {
        groups: { id: 'default', configVersion, incompatibleWorkerCount: 1 },
        group_version: { deployed: 'abc', undeployed: 2, lastCommitMs: 1717200000000 },
      },
    });
    const out = renderGroups([group('abc')], '').join('');
    expect(out).toContain('cribl_group_incompatible_workers{product="stream",group="default"} 1\n');
    expect(out).toContain('cribl_group_undeployed_commits{product="stream",group="default"} 2\n');
    expect(out).toContain('cribl_group_last_commit_timestamp_seconds{product="stream",group="default"} 1717200000\n');
    // A deploy since the count: it is wrong until the next read.
    const deployedSince = renderGroups([group('def')], '').join('');
    expect(deployedSince).not.toContain('cribl_group_undeployed_commits');
    expect(deployedSince).not.toContain('cribl_group_last_commit_timestamp_seconds');
  });
});

describe('node families of this issue', () => {
  it.each<[string | undefined, string | undefined, string]>([
    ['abc1234', 'abc1234', '0'],
    ['abc1234', 'abc1234ffffffffffffffffffffffffffffffff', '0'],
    ['abc1234', 'fff0000', '1'],
    [undefined, 'abc1234', ''],
    ['abc1234', undefined, ''],
  ])('config outdated: node %s, group %s → %s', (running, version, value) => {
    const w = worker('w1');
    if (running === undefined) delete w.info.cribl.config.version;
    else w.info.cribl.config.version = running;
    const texts = renderNode(node('w1', { worker: w }), '', version ? deployed(version) : undefined);
    expect(family(texts, 'cribl_node_config_outdated')).toBe(value && `cribl_node_config_outdated{${B}} ${value}\n`);
  });

  it('config outdated falls back on the metadata config version', () => {
    const w = worker('w1');
    delete w.info.cribl.config.version;
    const n = node('w1', { worker: w, metadata: { value: { timestamp: 1, cribl: { config_version: 'fff0000' } } } });
    const texts = renderNode(n, '', deployed('abc1234'));
    expect(family(texts, 'cribl_node_config_outdated')).toBe(`cribl_node_config_outdated{${B}} 1\n`);
  });

  it.each<[string | undefined, string]>([
    ['healthy', '1'],
    ['degraded', '0'],
    ['shutting down', '0'],
    [undefined, ''],
  ])('reported healthy for status %s', (status, value) => {
    const texts = renderNode(node('w1', { worker: worker('w1', status === undefined ? {} : { status }) }), '');
    expect(family(texts, 'cribl_node_reported_healthy')).toBe(value && `cribl_node_reported_healthy{${B}} ${value}\n`);
  });

  it('upgrade status: the state set and its time, only where reported', () => {
    const failed = worker('w1', { nodeUpgradeStatus: { state: 2, timestamp: 1717200000000 } });
    const texts = renderNode(node('w1', { worker: failed }), '');
    expect(family(texts, 'cribl_node_upgrade_status')).toBe(
      ['active 0', 'current 0', 'failed 1', 'skipped 0']
        .map((s) => s.split(' '))
        .map(([state, v]) => `cribl_node_upgrade_status{${B},state="${state}"} ${v}\n`)
        .join(''),
    );
    expect(family(texts, 'cribl_node_upgrade_status_timestamp_seconds')).toBe(
      `cribl_node_upgrade_status_timestamp_seconds{${B}} 1717200000\n`,
    );
    const none = renderNode(node('w1'), '');
    expect(family(none, 'cribl_node_upgrade_status')).toBe('');
    expect(family(none, 'cribl_node_upgrade_status_timestamp_seconds')).toBe('');
  });

  it('restarts: changes of the listed start time; the first sighting is none', () => {
    const first = node('w1').facts.listing as ListedNode;
    const same = withRestarts(first, { ...first, lastMsgTime: first.lastMsgTime + 10_000 });
    expect(same.restarts).toBe(0);
    const restarted = withRestarts(same, { ...first, startTime: first.startTime + 1 });
    expect(restarted.restarts).toBe(1);
    expect(withRestarts(restarted, { ...first, startTime: first.startTime + 1 }).restarts).toBe(1);
  });

  it('restarts: a counter, 0 until the listing counts one', () => {
    expect(family(renderNode(node('w1'), ''), 'cribl_node_restarts_total')).toBe(`cribl_node_restarts_total{${B}} 0\n`);
    expect(family(renderNode(node('w1', { restarts: 3 }), ''), 'cribl_node_restarts_total')).toBe(
      `cribl_node_restarts_total{${B}} 3\n`,
    );
  });
});

describe('the leader itself', () => {
  it('decodes 200 healthy and 420 standby, and refuses a status that contradicts the answer', () => {
    expect(decodeLeaderHealth({ status: 'healthy', startTime: 5, role: 'primary' }, 200)).toEqual({
      status: 'healthy',
      startTime: 5,
      role: 'primary',
    });
    expect(decodeLeaderHealth({ status: 'standby', startTime: 5, role: 'standby', overlay: {} }, 420).role).toBe(
      'standby',
    );
    expect(decodeLeaderHealth({ status: 'healthy', startTime: 5, role: 'captain' }, 200).role).toBeUndefined();
    expect(() => decodeLeaderHealth({ status: 'standby', startTime: 5 }, 200)).toThrow();
    expect(fromProbe(420, { status: 'shutting down', startTime: 1 }, 9)).toEqual({
      value: { status: 'shutting down', startTime: 1 },
      lastSuccessMs: 9,
    });
    expect(fromProbe(200, 'nonsense', 9)).toBeUndefined();
  });

  it('renders the state set, the role and the start time; keeps the answer only while held', () => {
    const answered = nextLeaderHealth(
      undefined,
      { ok: true, status: 420, body: { status: 'standby', startTime: 1717200000000, role: 'standby' } },
      1,
    );
    const text = leader({ leader_health: answered }, 'site="a"');
    expect(text).toBe(
      [
        'cribl_leader_health_status{site="a",status="healthy"} 0',
        'cribl_leader_health_status{site="a",status="shutting_down"} 0',
        'cribl_leader_health_status{site="a",status="standby"} 1',
        'cribl_leader_role_info{site="a",role="standby"} 1',
        'cribl_leader_start_timestamp_seconds{site="a"} 1717200000',
        '',
      ].join('\n'),
    );
    const held = nextLeaderHealth(answered, { ok: false, reason: 'leader_unavailable', message: 'held' }, 2);
    expect(held.value?.status).toBe('standby');
    const down = nextLeaderHealth(answered, { ok: false, reason: 'connect', message: 'refused' }, 2);
    expect(down).toEqual({ lastSuccessMs: 1, failure: 'connect' });
    expect(leader({ leader_health: down })).toBe('');
  });

  it.each<[number | undefined, string, string]>([
    [401, 'http_4xx', 'unauthorized'],
    [403, 'http_4xx', 'forbidden'],
    [404, 'http_4xx', 'not_found'],
    [400, 'http_4xx', 'http_4xx'],
    [undefined, 'connect', 'connect'],
    [503, 'throttled', 'throttled'],
  ])('discovery failure %s/%s → %s', (status, reason, label) => {
    const failure = { reason: reason as 'http_4xx', ...(status ? { status } : {}), message: 'GET /x: failed' };
    expect(requestFailureReason(failure)).toBe(label);
    expect(leader({ listing: { up: false, failure } })).toContain(
      `cribl_leader_discovery_failure_info{reason="${label}"} 1\n`,
    );
    expect(leader({ listing: { up: true, failure } })).not.toContain('failure_info');
  });

  it('git settings: whether there is a remote and a few settings, never the remote itself', () => {
    const s = decodeGitSettings({
      count: 1,
      items: [
        { branch: 'main', gitOps: 'push', remote: 'https://user:secret@git.example/c.git', autoAction: 'commitPush' },
      ],
    });
    expect(s).toEqual({ remoteConfigured: true, branch: 'main', gitOps: 'push', autoAction: 'commitPush' });
    const text = leader({ git_settings: nextRead(undefined, { ok: true, status: 200, body: s }, 0) });
    expect(text).toBe(
      'cribl_leader_git_remote_configured 1\n' +
        'cribl_leader_git_settings_info{branch="main",git_ops="push",auto_action="commitPush"} 1\n',
    );
    expect(text).not.toContain('secret');
    expect(decodeGitSettings({ count: 1, items: [{ remote: '' }] }).remoteConfigured).toBe(false);
    expect(leader({ git_settings: { value: { remoteConfigured: false } } })).toBe(
      'cribl_leader_git_remote_configured 0\ncribl_leader_git_settings_info{branch="",git_ops="",auto_action=""} 1\n',
    );
  });

  it('search probe: success, duration, last success and the failure reason', () => {
    expect(decodeJob({ count: 1, items: [{ id: '1.abc', status: 'running', query: 'q' }] })).toEqual({
      id: '1.abc',
      status: 'running',
    });
    expect(leader({ search: { success: false, durationMs: 30000, lastSuccessMs: 1000, failure: 'timeout' } })).toBe(
      [
        'cribl_search_probe_success 0',
        'cribl_search_probe_duration_seconds 30',
        'cribl_search_probe_last_success_timestamp_seconds 1',
        'cribl_search_probe_failure_info{reason="timeout"} 1',
        '',
      ].join('\n'),
    );
  });
});

describe('packs and workspaces', () => {
  it('decodes packs (each once) and counts pipelines', () => {
    expect(
      decodePacks({
        items: [
          { id: 'a', version: '1.0.0', source: '' },
          { id: 'b', source: '' },
          { id: 'a', source: '' },
        ],
      }),
    ).toEqual([{ id: 'a', version: '1.0.0' }, { id: 'b' }]);
    expect(decodePipelineCount({ count: 2, items: [{}, {}] })).toBe(2);
    expect(decodePipelineCount({ count: 1, items: [{}], totalCount: 7 })).toBe(7);
    const out = renderGroups(
      [
        {
          product: 'edge',
          id: 'f',
          facts: {
            groups: { id: 'f' },
            packs: { value: [{ id: 'a', version: '1.0.0', pipelines: 2 }, { id: 'b' }] },
          },
        },
      ],
      '',
    ).join('');
    expect(out).toContain('cribl_group_pack_info{product="edge",group="f",pack="a",version="1.0.0"} 1\n');
    expect(out).toContain('cribl_group_pack_info{product="edge",group="f",pack="b",version=""} 1\n');
    expect(out).toContain('cribl_group_pack_pipelines{product="edge",group="f",pack="a"} 2\n');
    expect(out).not.toContain('pack="b"} ');
  });

  it('lists every workspace whatever its state, and whether the listing worked', () => {
    const workspaces = decodeWorkspaces({
      items: [
        { workspaceId: 'main', state: 'Active', region: 'r', leaderFQDN: 'x' },
        { workspaceId: 'old', state: 'Failed' },
        { workspaceId: 'main', state: 'Inactive' },
      ],
    });
    const management = (facts: ScopeItem['facts']): string =>
      MANAGEMENT_FAMILIES.map((f) => f.sample({ facts }, '', undefined)).join('');
    expect(management({})).toBe('');
    expect(management({ workspaces: { up: true, workspaces: workspaces! } })).toBe(
      'cribl_management_up 1\n' +
        'cribl_workspace_info{workspace="main",state="Active"} 1\n' +
        'cribl_workspace_info{workspace="old",state="Failed"} 1\n',
    );
  });
});
