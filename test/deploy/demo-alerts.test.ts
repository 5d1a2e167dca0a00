import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftToFirstRun } from '../helpers/repeat.js';
import type { ConfigGroup } from '@cribl-exporter/api/shapes';
import type { InputOutputStatus } from '../../packages/simulator/src/endpoints/status/shapes.js';
import type { App } from '../../src/exporter/app.js';
import { runCommand } from '../../src/commands/index.js';
import { sameCommit } from '../../src/collectors/group-version/index.js';
import { parseScenario, startSimulator, type SimNode, type Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { PROMETHEUS_BIN, startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { docsSection } from './docs.js';
import { loadRuleGroups, ROOT } from './prometheusrule.js';
import { skipWithout, toolTimeouts } from './tools.js';

// Prometheus and the demo: see TOOL_TIMEOUT_MS.
toolTimeouts();

// docs/deploy.md says how long the demo takes to fire alerts. Derived here from the rules' `for:` and the demo's
// scenario: the simulated fleet is deterministic per churn step (its randomness is seeded and used by churn only),
// so stepping it with a fake clock shows when a node first stays in an alerting state for the alert's `for:`.

const SCENARIO = join(ROOT, 'examples/scenarios/demo.yaml');
/** The demo leader's failovers (its HA pair behind a load balancer). */
const DEMO_FAILOVERS = parseScenario(readFileSync(SCENARIO, 'utf8'), SCENARIO).ha?.failovers ?? [];

/** The config version a node's group has deployed. */
function deployedOf(sim: Simulator, n: SimNode): string {
  return sim.fleet.groups(n.product).find((g) => g.id === n.group)?.configVersion ?? '';
}

/** Simulator states that make a node alert's condition true (checked against a real demo below). */
const NODE_CONDITIONS: Readonly<Record<string, (n: SimNode, sim: Simulator) => boolean>> = {
  CriblNodeDisconnected: (n) => n.disconnected,
  CriblNodeUnhealthy: (n) => !n.disconnected && (n.health === 'shutting down' || n.health === 'standby'),
  // A slow node answers after the exporter's health timeout: not answering, as far as the alert knows.
  CriblNodeHealthUnreachable: (n) => !n.disconnected && (n.health === 'unreachable' || n.health === 'slow'),
  CriblNodeConfigOutdated: (n, sim) => !sameCommit(n.configVersion, deployedOf(sim, n)),
  CriblNodeUpgradeFailed: (n) => n.upgrade?.state === 2,
};

/** Items of a group's data flow (as the leader answers them), devnull left out as the exporter leaves it out. */
function flow(sim: Simulator, g: string, kind: 'destinations' | 'sources'): InputOutputStatus[] {
  const items = (kind === 'destinations' ? sim.destinationStatus(g) : sim.sourceStatus(g)) ?? [];
  return items.filter((i) => i.id !== 'devnull');
}

/** Group states (as the leader lists and answers them) that make a group alert's condition true. */
const GROUP_CONDITIONS: Readonly<Record<string, (g: ConfigGroup, sim: Simulator) => boolean>> = {
  // More than groupDisconnectedShare (10 %) of the group's listed nodes disconnected.
  CriblGroupNodesDisconnected: (g, sim) => {
    const nodes = sim.fleet.nodes().filter((n) => n.group === g.id);
    return nodes.filter((n) => n.disconnected).length > 0.1 * nodes.length;
  },
  CriblGroupDeployStuck: (g) => (g.deployingWorkerCount ?? 0) > 0,
  CriblGroupUncommittedChanges: (g, sim) => (sim.fleet.localChanges(g.id) ?? 0) > 0,
  CriblDestinationRed: (g, sim) => flow(sim, g.id, 'destinations').some((i) => i.status.health === 'Red'),
  CriblDestinationYellow: (g, sim) => flow(sim, g.id, 'destinations').some((i) => i.status.health === 'Yellow'),
  CriblSourceRed: (g, sim) => flow(sim, g.id, 'sources').some((i) => i.status.health === 'Red'),
  CriblPersistentQueueNotGreen: (g, sim) =>
    [...flow(sim, g.id, 'destinations'), ...flow(sim, g.id, 'sources')].some(
      (i) => i.status.pq !== undefined && i.status.pq.health !== 'Green',
    ),
};

/** The simulator's truth of a group's data in motion over `[fromS, toS)` seconds before now (not before the start). */
function truth(sim: Simulator, g: ConfigGroup, nowMs: number, t: number, fromS: number, toS: number) {
  const start = nowMs - t * 1000;
  const earliest = Math.max(start, nowMs - fromS * 1000);
  const latest = Math.max(start, nowMs - toS * 1000);
  return earliest < latest ? sim.throughput(g.id, earliest, latest) : undefined;
}
const values = (r: Readonly<Record<string, Readonly<Record<string, number>>>> | undefined, k: string): number[] =>
  Object.values(r ?? {}).map((v) => v[k] ?? 0);
/** The largest queue of each connector over a window, by `kind id`. */
function queues(sim: Simulator, g: ConfigGroup, nowMs: number, t: number, fromS: number, toS: number) {
  const w = truth(sim, g, nowMs, t, fromS, toS);
  const out = new Map<string, number>();
  for (const [kind, r] of [
    ['d', w?.destinations],
    ['s', w?.sources],
  ] as const) {
    for (const [id, v] of Object.entries(r ?? {})) if (v.pq_size !== undefined) out.set(`${kind} ${id}`, v.pq_size);
  }
  return out;
}

/**
 * Group states of the metrics store (the simulator's truth, as the exporter reads it every 10 s) that make a
 * data-in-motion alert's condition true, with the rules' windows: blocked now; a queue larger now than 10 minutes
 * ago; a source that received in the hour before the last 10 minutes and nothing
 * since; a Stream worker's heartbeat lag over 10 s; out under half of in over 5 minutes.
 */
const FLOW_CONDITIONS: Readonly<Record<string, (g: ConfigGroup, sim: Simulator, nowMs: number, t: number) => boolean>> =
  {
    CriblDestinationBlocked: (g, sim, now, t) =>
      values(truth(sim, g, now, t, 20, 10)?.destinations, 'blocked').some((v) => v > 0),
    CriblPersistentQueueGrowing: (g, sim, now, t) => {
      if (t < 60) return false;
      const then = queues(sim, g, now, t, Math.min(t, 600), Math.min(t, 600) - 10);
      return [...queues(sim, g, now, t, 20, 10)].some(([k, v]) => v > (then.get(k) ?? 0));
    },
    CriblSourceSilent: (g, sim, now, t) => {
      const recent = truth(sim, g, now, t, 600, 10)?.sources ?? {};
      const before = truth(sim, g, now, t, 4200, 600)?.sources ?? {};
      return Object.entries(before).some(([id, v]) => (v.in_events ?? 0) > 0 && (recent[id]?.in_events ?? 0) === 0);
    },
    CriblWorkerHeartbeatLag: (g, sim, now, t) =>
      values(truth(sim, g, now, t, 20, 10)?.nodes, 'heartbeat_lag').some((v) => v > 10),
    CriblGroupThroughputImbalance: (g, sim, now, t) => {
      const w = truth(sim, g, now, t, 300, 10)?.totals;
      const inE = w?.in_events ?? 0;
      return inE > 0 && (w?.out_events ?? 0) / inE < 0.5;
    },
  };

/**
 * Data-in-motion alerts whose condition starts after the first two minutes of the demo (a source silenced at 2:00,
 * a worker lagging from 2:30, out under half of in from 2:00, whose rule also needs deploy/prometheus/rules.yaml): the
 * real Prometheus below is not kept waiting for them, and sees them only if it ran
 * that long.
 */
const LATE = new Set(['CriblSourceSilent', 'CriblWorkerHeartbeatLag', 'CriblGroupThroughputImbalance']);

const DAY_S = 86_400;

/** Seconds until the first licence that is not free expires. */
const expiresIn = (sim: Simulator, nowMs: number): number =>
  (sim.licenses().find((l) => l.cls !== 'free')?.exp ?? Infinity) - nowMs / 1000;

/** Leader states that make a leader alert's condition true. */
const LEADER_CONDITIONS: Readonly<Record<string, (sim: Simulator, nowMs: number) => boolean>> = {
  CriblGitRemoteMissing: (sim) => (sim.gitSettings().remote ?? '') === '',
  CriblLicenseExpiringSoon: (sim, now) => expiresIn(sim, now) < 14 * DAY_S,
  CriblLicenseExpiryImminent: (sim, now) => expiresIn(sim, now) < 3 * DAY_S,
  CriblLicenseIngestNearQuota: (sim, now) => {
    const quota = (sim.licenses()[0]?.quota ?? 0) * 1e9;
    const days = sim.licenseUsage().filter((d) => d.endTime <= now);
    type Day = (typeof days)[number];
    const last = days.reduce<Day | undefined>((a, d) => (a && a.endTime > d.endTime ? a : d), undefined);
    return last !== undefined && quota > 0 && (last.inBytes - last.exemptedLicenseInBytes) / quota > 0.9;
  },
  CriblLeaderDiskLow: (sim) => {
    const { bytesAvailable, totalDiskSize } = sim.systemInfo().diskUsage;
    return bytesAvailable / totalDiskSize < 0.1;
  },
  CriblLeaderErrorMessages: (sim, now) =>
    sim.messages().some((m) => (m.severity === 'error' || m.severity === 'fatal') && now - (m.time ?? 0) < 900_000),
  // increase(cribl_exporter_leader_failovers_total[15m]) > 0: for 15 minutes after the demo's failover.
  CriblLeaderFailover: (sim) => {
    const up = sim.stats().uptimeMs;
    return DEMO_FAILOVERS.some((f) => up >= f.start + f.gap && up - (f.start + f.gap) < 900_000);
  },
  CriblLeaderHostUnavailable: (sim) => sim.ha?.states().includes('down') === true,
};

/** Nodes the listing dropped while disconnected, by `product/group`: when, in seconds from the start. */
type Removals = Map<string, number>;

/** What holds now: `<alert> <node id, product/group or "leader">`. */
function holding(sim: Simulator, nowMs: number, removed: Removals, t: number): Set<string> {
  const nodes = Object.entries(NODE_CONDITIONS);
  const groups = (['stream', 'edge'] as const).flatMap((p) => sim.fleet.groups(p).map((g) => [p, g] as const));
  return new Set([
    ...sim.fleet.nodes().flatMap((n) => nodes.flatMap(([alert, holds]) => (holds(n, sim) ? [`${alert} ${n.id}`] : []))),
    ...groups.flatMap(([p, g]) =>
      Object.entries(GROUP_CONDITIONS).flatMap(([alert, holds]) => (holds(g, sim) ? [`${alert} ${p}/${g.id}`] : [])),
    ),
    ...groups.flatMap(([p, g]) =>
      Object.entries(FLOW_CONDITIONS).flatMap(([alert, holds]) =>
        holds(g, sim, nowMs, t) ? [`${alert} ${p}/${g.id}`] : [],
      ),
    ),
    ...Object.entries(LEADER_CONDITIONS).flatMap(([alert, holds]) => (holds(sim, nowMs) ? [`${alert} leader`] : [])),
    // increase(cribl_group_nodes_removed_total[1h]) > 0: for an hour after a removal.
    ...[...removed].filter(([, at]) => t - at < 3600).map(([g]) => `CriblGroupNodesRemoved ${g}`),
    ...Object.entries(CLOUD_CONDITIONS).flatMap(([alert, holds]) => (holds ? [`${alert} cloud`] : [])),
  ]);
}

/** The demo's Cribl.Cloud workspace (examples/scenarios/demo-cloud.yaml): conditions true from its start. */
const CLOUD = parseScenario(readFileSync(join(ROOT, 'examples/scenarios/demo-cloud.yaml'), 'utf8'), 'demo-cloud');
const CLOUD_CONDITIONS: Readonly<Record<string, boolean>> = {
  // Its packs are refused: the packs collector is off for that leader.
  CriblExporterCollectorRefused: (CLOUD.clients?.[0]?.deny ?? []).includes('/m/{group}/packs'),
  CriblSearchProbeFailing: CLOUD.faults.search?.outcome === 'failed',
  CriblWorkspaceNotActive: (CLOUD.workspaces ?? []).some((w) => w.state !== 'Active'),
};
/**
 * Conditions shorter than these alerts' `for:`, so they never fire in the demo; with `for:` cut to 1s (the Prometheus
 * test below) they may. The Cloud workspace's gateway is down for 30 s (token endpoint and node listing); and a
 * group the demo deploys between a discovery's groups listing and its /version read counts the new commit as
 * undeployed until the next discovery (24h `for:`).
 */
const TRANSIENT_ONLY = [
  'CriblLeaderUnreachable',
  'CriblLeaderAuthFailing',
  'CriblLeaderThrottling',
  'CriblGroupUndeployedCommits',
];

const CONDITIONS = [
  ...Object.keys(NODE_CONDITIONS),
  ...Object.keys(GROUP_CONDITIONS),
  ...Object.keys(FLOW_CONDITIONS),
  ...Object.keys(LEADER_CONDITIONS),
  'CriblGroupNodesRemoved',
  ...Object.keys(CLOUD_CONDITIONS),
];

const HORIZON_S = 30 * 60;
const alerts = loadRuleGroups().flatMap((g) => g.rules.filter((r) => r.alert !== undefined));
const UNIT_S = { s: 1, m: 60, h: 3600 } as const;
/** An alert's `for:` in seconds; "none" (fires on its first evaluation) is 0. */
const seconds = (d: string): number =>
  d === 'none' ? 0 : Number(d.slice(0, -1)) * UNIT_S[d.slice(-1) as keyof typeof UNIT_S];
const forOf = (alert: string): string => alerts.find((a) => a.alert === alert)?.for ?? 'none';

/** When each alert first fires in the demo (seconds after start, or null within HORIZON_S). */
async function demoTimeline(): Promise<{ every: number; firstFiring: Map<string, number | null> }> {
  const clock = new FakeClock();
  const scenario = parseScenario(readFileSync(SCENARIO, 'utf8'), SCENARIO);
  const every = scenario.faults.churn?.every;
  if (every === undefined) throw new Error('the demo scenario has no churn');
  const sim = await startSimulator({ scenario, clock });
  const since = new Map<string, number>();
  const firstFiring = new Map<string, number | null>(CONDITIONS.map((a) => [a, null]));
  const removed: Removals = new Map();
  let listed = new Map(sim.fleet.nodes().map((n) => [n.id, n]));
  try {
    for (let t = 0; t <= HORIZON_S; t += every / 1000) {
      // The simulator ages disconnected nodes out (maxWorkerAge) when it answers a request, as a leader would.
      const res = await request(`${sim.baseUrl}/products/stream/workers`, {
        headers: { authorization: `Bearer ${sim.token}` },
      });
      await res.body.dump();
      const current = new Map(sim.fleet.nodes().map((n) => [n.id, n]));
      for (const [id, n] of listed) if (!current.has(id) && n.disconnected) removed.set(`${n.product}/${n.group}`, t);
      listed = current;
      const now = holding(sim, clock.now(), removed, t);
      for (const k of since.keys()) if (!now.has(k)) since.delete(k);
      for (const k of now) if (!since.has(k)) since.set(k, t);
      for (const [k, start] of since) {
        const alert = k.split(' ')[0]!;
        if (firstFiring.get(alert) === null && t - start >= seconds(forOf(alert))) firstFiring.set(alert, t);
      }
      await clock.advance(every);
    }
  } finally {
    await sim.close();
  }
  return { every: every / 1000, firstFiring };
}

describe('how long the demo takes to fire alerts (docs/deploy.md)', () => {
  const section = docsSection('docs/deploy.md', 'Prometheus rules');
  const part = section.slice(section.indexOf('### How long the demo takes to fire alerts'));
  const rows = part
    .split('\n')
    .map((l) => /^\| (\w+) \| (\w+) \| (.+) \|$/.exec(l))
    .filter((m) => m !== null && m[1] !== 'alert')
    .map((m) => ({ alert: m![1]!, for: m![2]!, after: m![3]! }));

  it('has a row for each alert the demo can fire, with its for: and when it first fires', async () => {
    const { every, firstFiring } = await demoTimeline();
    if (process.env.SHOW_TIMELINE)
      console.log([...firstFiring].map(([a, t]) => `| ${a} | ${forOf(a)} | ${t} |`).join('\n'));
    expect(part).toContain(`every ${every}s`);
    expect(rows.map((r) => r.alert).sort()).toEqual([...firstFiring.keys()].sort());
    for (const r of rows) {
      expect(r.for, r.alert).toBe(forOf(r.alert));
      const t = firstFiring.get(r.alert);
      if (t === null) expect(r.after, r.alert).toMatch(new RegExp(`^not within ${HORIZON_S / 60} minutes`));
      else {
        const m = Math.round(t! / 60);
        expect(r.after, r.alert).toMatch(new RegExp(`^about ${m} minute${m === 1 ? '' : 's'}(: .+)?$`));
      }
    }
  });
});

// The mapping above, checked against the demo as users run it: with `for:` cut to 1s, a real Prometheus sees
// exactly these alerts fire.
const noPrometheus = skipWithout(PROMETHEUS_BIN) || leftToFirstRun('the demo scraped by Prometheus');
describe.skipIf(noPrometheus)('the demo scraped by a real Prometheus', () => {
  let prom: RunningPrometheus;
  let exited: Promise<number>;
  const stop = new AbortController();
  const logs: string[] = [];

  beforeAll(async () => {
    const started = new Promise<App>((resolve) => {
      exited = runCommand({
        argv: ['demo', '--web.listen-address', '127.0.0.1:0', '--log.level', 'warn'],
        env: {},
        stdout: (l) => logs.push(l),
        stderr: (l) => logs.push(l),
        readFile: (p) => Promise.resolve(readFileSync(p, 'utf8')),
        signal: stop.signal,
        version: '0.0.0-demo-alerts',
        nodejsVersion: process.version,
        logDestination: { write: (s: string) => void logs.push(s) },
        onStarted: resolve,
      });
    });
    const app = await Promise.race([
      started,
      exited!.then((code): never => {
        throw new Error(`demo exited with ${code}: ${logs.join('\n')}`);
      }),
    ]);
    prom = await startPrometheus({
      scrapeTargets: [new URL(app.url).host],
      ruleFiles: [join(ROOT, 'deploy/prometheus/alerts.yaml')],
      alertFor: '1s',
    });
  });

  afterAll(async () => {
    await prom?.close();
    stop.abort();
    await exited;
  });

  it('fires the alerts of the table and no other', async () => {
    // A drifted node appears with the demo's churn (every 20s): up to a minute for that one.
    const early = CONDITIONS.filter((a) => !LATE.has(a));
    for (const alert of early) {
      await prom.waitFor(`ALERTS{alertname="${alert}", alertstate="firing"}`, (v) => v.length > 0);
    }
    const firing = new Set((await prom.alerts()).map((a) => a.labels.alertname));
    expect([...firing].filter((a) => a !== undefined && !TRANSIENT_ONLY.includes(a) && !LATE.has(a)).sort()).toEqual(
      early.sort(),
    );
  });

  it('polls health as often as the section says', async () => {
    const [target] = await prom.waitFor('cribl_exporter_health_cycle_target_seconds', (v) => v.length > 0);
    const section = docsSection('docs/deploy.md', 'Prometheus rules');
    expect(section).toContain(`health checks every ${target!.value[1]}s`);
  });
});
