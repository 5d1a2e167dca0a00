/**
 * The leader's HA hosts (`--leader.ha-url`): each host's own GET /health, anonymously, every discovery (before the
 * listing) and every probe of a 420 hold (src/leader/hosts.ts reads them; the hold's rounds reach the store through
 * the runtime). Whether exactly one host is primary, which one, and whether the standby would be ready.
 */
import { withLabels } from '../../format/family.js';
import { formatDuration } from '@cribl-exporter/api/duration';
import type { HostReading } from '../../leader/types.js';
import { collector, factsKey, type RunContext, type ScopeFamily } from '../collector.js';
import { HEALTH_LABELS, HEALTH_STATES } from '../node-health/index.js';
import { each, line, q, stateSet } from '../sample.js';

export const NAME = 'leader_hosts';

/** What the exporter knows of the HA hosts: the last reading of each, in the order they were given. */
export type LeaderHostsFacts = readonly HostReading[];

export const leaderHostsFacts = factsKey<LeaderHostsFacts>(NAME);

async function run(ctx: RunContext<unknown>): Promise<void> {
  const hosts = ctx.client.hosts;
  if (!hosts) return;
  const readings = await hosts.read();
  if (ctx.signal.aborted) return;
  ctx.setLeaderFacts(readings);
}

const hostLabel = (r: HostReading): string => `host=${q(r.host)}`;

const FAMILIES: readonly ScopeFamily[] = [
  {
    name: 'cribl_leader_host_health_status',
    what:
      "Each HA host's own health state set (its GET /health, --leader.ha-url): status is healthy, shutting_down or " +
      'standby (a standby host answers 420 standby), the answered one 1 and the others 0; no series for a host ' +
      'that does not answer.',
    labels: ['host', 'status'],
    sample: (l, base) =>
      each(leaderHostsFacts.of(l), (r) => {
        const status = r.health?.status;
        if (status === undefined) return '';
        const b = withLabels(base, hostLabel(r));
        return stateSet('cribl_leader_host_health_status', b, 'status', HEALTH_STATES, HEALTH_LABELS[status]);
      }),
  },
  {
    name: 'cribl_leader_host_role_info',
    what:
      "Each HA host's role as its /health reports it (value 1): primary or standby; no series for a host that does " +
      'not answer (or does not say, before 4.17).',
    labels: ['host', 'role'],
    sample: (l, base) =>
      each(leaderHostsFacts.of(l), (r) => {
        const role = r.health?.role;
        return role === undefined ? '' : line('cribl_leader_host_role_info', base, `${hostLabel(r)},role=${q(role)}`);
      }),
  },
  {
    name: 'cribl_leader_host_failure_info',
    what:
      '1 while an HA host does not answer its GET /health with a health state, with the reason (timeout, connect, ' +
      'http_4xx, http_5xx, throttled, decode, …); no series for a host that answers.',
    labels: ['host', 'reason'],
    sample: (l, base) =>
      each(leaderHostsFacts.of(l), (r) =>
        r.failure === undefined
          ? ''
          : line('cribl_leader_host_failure_info', base, `${hostLabel(r)},reason=${q(r.failure)}`),
      ),
  },
];

export const leaderHosts = collector({
  name: NAME,
  freshness: (_s, intervals) =>
    `Read every discovery (${formatDuration(intervals.discoveryMs)}) and every probe of a 420 hold; cached in between.`,
  families: { leader: FAMILIES },
  enabled: (_s, target) => target.ha === true,
  schedule: { kind: 'discovery', first: true, cost: { perRun: 0 }, run },
});
