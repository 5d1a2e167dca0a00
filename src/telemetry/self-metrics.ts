/**
 * The exporter's own metrics: the families of src/telemetry/self-families.ts (kept by the exporter,
 * src/telemetry/families.ts) and prom-client's default process and Node.js metrics on a Registry of our own (never
 * the global one), rendered per scrape in the negotiated format by our renderer. prom-client renders one format per
 * registry and renames counters in place when asked for OpenMetrics, so we read its values and write the text
 * ourselves instead.
 */

import type { Product } from '@cribl-exporter/api/products';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { AuthMetrics, AuthMode } from '../auth/types.js';
import type { LeaderClientMetrics, ThrottleCode } from '../leader/client.js';
import type { Endpoint } from '@cribl-exporter/api/routes';
import { PRODUCTS } from '@cribl-exporter/api/products';
import { NODE_DETAILS } from '../collectors/detail.js';
import { COLLECTORS } from '../collectors/registry.js';
import type { CollectorMetrics } from '../polling/collector-runs.js';
import type { DiscoveryMetrics } from '../polling/discovery-step.js';
import type { PollerMetrics } from '../polling/poller.js';
import type { Format } from '../format/format.js';
import { renderJsonFamily, type JsonMetric, type OwnCounter, type OwnFamily, type OwnGauge } from './families.js';
import { selfFamilies, type SelfFamilies } from './self-families.js';

export { renderJsonFamily } from './families.js';

/** Options of createSelfMetrics. */
export interface SelfMetricsOptions {
  /** Exporter version (`cribl_exporter_build_info{version}`). */
  version: string;
  /** Node.js version, e.g. process.version (`cribl_exporter_build_info{nodejs_version}`). */
  nodejsVersion: string;
  /** Source revision of the build (`cribl_exporter_build_info{revision}`). @default 'unknown' */
  revision?: string;
  /** Register prom-client's process_* and nodejs_* metrics. @default true */
  defaultMetrics?: boolean;
}

/** Every metric hook of one leader, ready to hand to its client, budget, poller, discovery and auth. */
export interface LeaderSelfMetrics
  extends LeaderClientMetrics, PollerMetrics, AuthMetrics, DiscoveryMetrics, CollectorMetrics {}

/** Every label name the exporter's own metrics use. */
export const SELF_METRIC_LABELS: ReadonlySet<string> = new Set(
  (Object.values(selfFamilies()) as OwnFamily[]).flatMap((f) => f.labelNames),
);

/** The exporter's self-metrics registry and the hooks that feed it. */
export interface SelfMetrics {
  /** The name of every family, those left out of the exposition until they can have a series too. */
  names(): Promise<string[]>;
  /** Hooks of one leader (the `leader` label is its configured name). */
  forLeader(leader: string): LeaderSelfMetrics;
  /** Drops every series of a leader that is no longer monitored. */
  removeLeader(leader: string): void;
  setShard(index: number, total: number): void;
  setWebConfigReloadSuccessful(ok: boolean): void;
  /** Records a body build (see createBodyCache's onBuild). */
  bodyBuilt(stats: { durationMs: number; bytes: number; gzipBytes: number }): void;
  /** Records that the body worker stopped (see createBodyCache's onBuilderLost). */
  bodyWorkerLost(): void;
  /** Renders every self-metric in the given format (no `# EOF`). */
  render(format: Format): Promise<string>;
}

/**
 * Sampling interval of the event-loop delay behind prom-client's `nodejs_eventloop_lag_*` (its default is 10 ms).
 * Each sample is a timer that wakes the process: at 10 ms the exporter used 0.009–0.011 cores with one node and
 * 0.004–0.005 with 100 ms (30 s of /proc per run on the 2-core bench VM, where a wake-up from idle costs about
 * 0.1 ms), a tenth of its whole CPU at 1,000–2,000 nodes. At 50 ms a block of 50 ms or more
 * (the longest any of its work is meant to take) is always seen; a shorter one with a chance of its length / 50 ms.
 */
export const EVENT_LOOP_MONITORING_MS = 50;

/**
 * Left out of the exposition: prom-client's gauges named like counters (promtool rejects them; their per-type
 * siblings nodejs_active_handles{type} etc. carry the same numbers), and the shard gauges until sharding is on
 * (`cribl_exporter_shard_total` is a contract name that promtool would flag).
 */
const ROTATION = 'cribl_exporter_health_rotation_seconds';

const HIDDEN = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
  'cribl_exporter_shard_index',
  'cribl_exporter_shard_total',
  // Until a leader has HA hosts: the default output has no family that cannot have a series.
  'cribl_exporter_leader_failovers_total',
  // Until a product's health polls rotate (node detail basic or minimal).
  ROTATION,
];

/** Creates the self-metrics with every metric of docs/ARCHITECTURE.md. */
export function createSelfMetrics(options: SelfMetricsOptions): SelfMetrics {
  const registry = new Registry();
  const h = selfFamilies();
  if (options.defaultMetrics ?? true)
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_MONITORING_MS });
  h.buildInfo.set(
    { version: options.version, revision: options.revision || 'unknown', nodejs_version: options.nodejsVersion },
    1,
  );
  const families = Object.values(h) as OwnFamily[];
  const hidden = new Set(HIDDEN);
  // The exporter's own families first, in the table's order, then prom-client's default metrics.
  const all = async (): Promise<JsonMetric[]> => [
    ...families.map((f) => f.json()),
    ...((await registry.getMetricsAsJSON()) as unknown as JsonMetric[]),
  ];

  return {
    names: async () => (await all()).map((f) => f.name),
    forLeader: (leader) =>
      leaderHooks(h, leader, (name) => hidden.delete(name ?? 'cribl_exporter_leader_failovers_total')),
    removeLeader(leader: string) {
      for (const f of families) if (f.labelNames.includes('leader')) f.removeWhere('leader', leader);
    },
    setShard(index: number, total: number) {
      h.shardIndex.set({}, index);
      h.shardTotal.set({}, total);
      for (const name of ['cribl_exporter_shard_index', 'cribl_exporter_shard_total']) {
        if (total > 1) hidden.delete(name);
        else hidden.add(name);
      }
    },
    setWebConfigReloadSuccessful(ok: boolean) {
      h.webConfigReloadSuccessful.set({}, ok ? 1 : 0);
    },
    bodyWorkerLost() {
      h.bodyWorkerRestarts.inc({});
    },
    bodyBuilt(stats) {
      h.bodyBuildDuration.set({}, stats.durationMs / 1000);
      h.bodyBytes.set({ encoding: 'identity' }, stats.bytes);
      h.bodyBytes.set({ encoding: 'gzip' }, stats.gzipBytes);
    },
    async render(format: Format): Promise<string> {
      return (await all())
        .filter((f) => !hidden.has(f.name))
        .map((f) => renderJsonFamily(f, format))
        .join('');
    },
  };
}

/** One leader's hooks: what its client, budget, poller, discovery, credentials and collectors report. */
function leaderHooks(h: SelfFamilies, leader: string, show: (name?: string) => void): LeaderSelfMetrics {
  /** A hook that sets this leader's series of a gauge. */
  const set = (g: OwnGauge<'leader'>) => (value: number) => g.set({ leader }, value);
  return {
    ...clientHooks(h, leader, () => show()),
    healthCycle(targetSeconds: number, durationSeconds: number) {
      h.healthCycleTarget.set({ leader }, targetSeconds);
      h.healthCycleDuration.set({ leader }, durationSeconds);
    },
    overrun(active: boolean) {
      h.healthCycleOverrun.set({ leader }, active ? 1 : 0);
    },
    rotation(product: Product, seconds: number | undefined) {
      if (seconds === undefined) return h.healthRotation.remove({ leader, product });
      show(ROTATION);
      h.healthRotation.set({ leader, product }, seconds);
    },
    pollAgeMax: set(h.healthPollAgeMax),
    slowNodes: set(h.slowNodes),
    onRateChange: set(h.leaderRateLimit),
    onTokenExpiry(mode: AuthMode, epochMs: number | undefined) {
      if (epochMs === undefined) h.authTokenExpiry.remove({ leader, mode });
      else h.authTokenExpiry.set({ leader, mode }, epochMs / 1000);
    },
    onFailure(mode, reason) {
      h.authFailures.inc({ leader, mode, reason });
    },
    discovery: set(h.discoveryDuration),
    nodes(exported: number, overLimit: number) {
      h.nodes.set({ leader }, exported);
      h.nodesOverLimit.set({ leader }, overLimit);
    },
    nodeDetail(levels) {
      for (const product of PRODUCTS) {
        for (const level of NODE_DETAILS) {
          const at = levels[product];
          if (at === undefined) h.nodeDetail.remove({ leader, product, level });
          else h.nodeDetail.set({ leader, product, level }, at === level ? 1 : 0);
        }
      }
    },
    ...collectorHooks(h, leader),
  };
}

/** What the leader's client and budget report: every request, throttling, pauses, failovers, concurrency. */
function clientHooks(h: SelfFamilies, leader: string, onHaHosts: () => void): LeaderClientMetrics {
  // Each (endpoint, code)'s series, found once: the hooks of every request go straight to them.
  const requestSeries = new Map<string, { count: (n: number) => void; time: (s: number) => void }>();
  const inFlight = h.leaderInFlight.child({ leader });
  // A counter from 0, so that increase() sees the first capped pause.
  h.leaderPauseCapped.inc({ leader }, 0);
  return {
    onRequest(endpoint: Endpoint, code: string, seconds: number) {
      const key = `${endpoint}\u0000${code}`;
      let c = requestSeries.get(key);
      if (!c) {
        c = {
          count: h.leaderRequests.child({ leader, endpoint, code }),
          time: h.leaderRequestDuration.child({ leader, endpoint }),
        };
        requestSeries.set(key, c);
      }
      c.count(1);
      c.time(seconds);
    },
    onPauseCapped() {
      h.leaderPauseCapped.inc({ leader });
    },
    onFailovers(n: 0 | 1) {
      onHaHosts();
      h.leaderFailovers.inc({ leader }, n);
    },
    onThrottled(code: ThrottleCode) {
      h.leaderThrottled.inc({ leader, code });
    },
    onConcurrencyChange: (value: number) => h.leaderConcurrencyLimit.set({ leader }, value),
    onInFlight: inFlight,
    onPauseChange(paused: boolean, untilMs: number) {
      h.leaderPaused.set({ leader }, paused ? 1 : 0);
      h.leaderPauseUntil.set({ leader }, paused ? untilMs / 1000 : 0);
    },
  };
}

/** What the collectors report: on or off, failures, refused routes, their own gauges and counters. */
function collectorHooks(h: SelfFamilies, leader: string): CollectorMetrics {
  // The collectors' own gauges (Collector.gauges), by name; one series per leader.
  const own = COLLECTORS.flatMap((c) => c.gauges ?? []);
  const byName = h as unknown as Record<string, unknown>;
  const gauges = new Map(own.filter((g) => !g.counter).map((g) => [g.name, byName[g.name] as OwnGauge<'leader'>]));
  const counters = new Map(own.filter((g) => g.counter).map((g) => [g.name, byName[g.name] as OwnCounter<'leader'>]));
  return {
    collectorEnabled(collector: string, on: boolean) {
      h.collectorEnabled.set({ leader, collector }, on ? 1 : 0);
    },
    collectorFailure(collector: string, reason: string) {
      h.collectorFailures.inc({ leader, collector, reason });
    },
    collectorAnswered(collector: string, epochMs: number) {
      h.collectorAnswered.set({ leader, collector }, epochMs / 1000);
    },
    endpointRefused(collector: string, endpoint: string, refused: boolean) {
      h.endpointRefused.set({ leader, collector, endpoint }, refused ? 1 : 0);
    },
    collectorGauge(name: string, value: number) {
      gauges.get(name)?.set({ leader }, value);
    },
    collectorCount(name: string, n: number) {
      counters.get(name)?.inc({ leader }, n);
    },
  };
}
