/** The HA hosts' families (src/collectors/leader-hosts): state sets and infos per host, nothing for what is unknown. */
import { describe, expect, it } from 'vitest';
import { leaderHosts, type LeaderHostsFacts } from '../../src/collectors/leader-hosts/index.js';
import { LEADER_FAMILIES, renderLeader } from '../helpers/render.js';

const facts: LeaderHostsFacts = [
  { host: 'a:9000', health: { status: 'healthy', role: 'primary', startTime: 1 }, lastSuccessMs: 1 },
  { host: 'b:9000', health: { status: 'standby', role: 'standby' }, lastSuccessMs: 1 },
  { host: 'c:9000', failure: 'connect', lastSuccessMs: 1 },
];

function text(f: LeaderHostsFacts | undefined, target = ''): Record<string, string> {
  const out = renderLeader({ facts: f === undefined ? {} : { [leaderHosts.name]: f } }, target);
  const pairs = LEADER_FAMILIES.map((fam, i): [string, string] => [fam.name, out[i] ?? '']);
  return Object.fromEntries(pairs.filter(([n]) => n.startsWith('cribl_leader_host_')));
}

describe('HA host families', () => {
  it('one state set and role per answering host, a failure reason for the one that does not answer', () => {
    expect(text(facts)).toEqual({
      cribl_leader_host_health_status:
        'cribl_leader_host_health_status{host="a:9000",status="healthy"} 1\n' +
        'cribl_leader_host_health_status{host="a:9000",status="shutting_down"} 0\n' +
        'cribl_leader_host_health_status{host="a:9000",status="standby"} 0\n' +
        'cribl_leader_host_health_status{host="b:9000",status="healthy"} 0\n' +
        'cribl_leader_host_health_status{host="b:9000",status="shutting_down"} 0\n' +
        'cribl_leader_host_health_status{host="b:9000",status="standby"} 1\n',
      cribl_leader_host_role_info:
        'cribl_leader_host_role_info{host="a:9000",role="primary"} 1\n' +
        'cribl_leader_host_role_info{host="b:9000",role="standby"} 1\n',
      cribl_leader_host_failure_info: 'cribl_leader_host_failure_info{host="c:9000",reason="connect"} 1\n',
    });
  });

  it('carries the target labels first, and has no series without HA hosts', () => {
    expect(text(facts.slice(2), 'leader="x"').cribl_leader_host_failure_info).toBe(
      'cribl_leader_host_failure_info{leader="x",host="c:9000",reason="connect"} 1\n',
    );
    expect(Object.values(text(undefined)).join('')).toBe('');
  });

  it('runs only for a leader with HA hosts', () => {
    expect(leaderHosts.enabled?.({}, { cloud: false })).toBe(false);
    expect(leaderHosts.enabled?.({}, { cloud: false, ha: true })).toBe(true);
  });
});
