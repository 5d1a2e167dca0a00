// Over 400 lines: the self-metric families as one table (name, HELP, labels) with their per-leader handles and fast
// paths; split, the table would have two owners.
/**
 * The exporter's own metrics: prom-client on our own Registry (never the global one), rendered per
 * scrape in the negotiated format by our renderer. prom-client renders one format per registry and
 * renames counters in place when asked for OpenMetrics, so we read its values and write the text
 * ourselves instead.
 */

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AuthMetrics, AuthMode } from '../auth/types.js';
import type { LeaderClientMetrics, ThrottleCode } from '../leader/client.js';
import type { Endpoint } from '../api/routes.js';
import { COLLECTORS } from '../collectors/registry.js';
import type { CollectorMetrics } from '../polling/collector-runs.js';
import type { DiscoveryMetrics } from '../polling/discovery-step.js';
import type { PollerMetrics } from '../polling/poller.js';
import { escapeHelp, escapeLabelValue, formatValue, labelText } from '../format/escape.js';
import type { Format } from '../format/format.js';

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

/** Buckets of `cribl_exporter_leader_request_duration_seconds`. */
const REQUEST_BUCKETS: readonly number[] = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

// prom-client's labelled children validate and hash their label set again on every inc(), set() and observe():
// about 9 µs per leader request (3.7 % of the exporter's CPU in its start-up burst at 10,000 nodes, and the
// in-flight gauge, set twice per request, another 1.4 %).
// The updates of every request go straight to the entry prom-client keeps for the label set, found once
// through the child; each call checks that the metric still holds that entry (remove() or reset() drop it) and
// otherwise goes through the child again, which makes a new one.
interface CounterEntry {
  value: number;
  labels: object;
}
interface HistogramEntry {
  sum: number;
  count: number;
  bucketValues: Record<number, number>;
  labels: object;
}
interface HashMapOf<E> {
  hashMap?: Record<string, E>;
}
interface LabelledMetric extends HashMapOf<{ labels: Record<string, string> }> {
  labelNames: string[];
  remove(labels: Record<string, string>): void;
}

/** The key and entry prom-client holds for exactly these labels (compared by value), if any. */
function entryOf<E extends { labels: object }>(
  metric: HashMapOf<E>,
  labels: Readonly<Record<string, string>>,
): [string, E] | undefined {
  const map = metric.hashMap;
  if (map === undefined) return undefined;
  const names = Object.keys(labels);
  for (const [key, e] of Object.entries(map)) {
    const l = e.labels as Record<string, unknown>;
    if (Object.keys(l).length === names.length && names.every((n) => l[n] === labels[n])) return [key, e];
  }
  return undefined;
}

/** A counter's inc(n) or a gauge's set(n), through the entry once found. */
function direct<L extends string>(metric: Counter<L> | Gauge<L>, labels: Record<L, string>): (value: number) => void {
  const add = metric instanceof Counter;
  const child = metric.labels(labels);
  const m = metric as unknown as HashMapOf<CounterEntry>;
  let found: [string, CounterEntry] | undefined;
  return (value) => {
    if (found !== undefined && m.hashMap?.[found[0]] === found[1]) {
      found[1].value = add ? found[1].value + value : value;
      return;
    }
    if (add) child.inc(value);
    else (child as Gauge.Internal<L>).set(value);
    found = entryOf(m, labels);
  };
}

function directHistogram<L extends string>(
  histogram: Histogram<L>,
  labels: Record<L, string>,
  bounds: readonly number[],
): (seconds: number) => void {
  const child = histogram.labels(labels);
  const m = histogram as unknown as HashMapOf<HistogramEntry>;
  let found: [string, HistogramEntry] | undefined;
  return (seconds) => {
    const e = found?.[1];
    if (e !== undefined && Number.isFinite(seconds) && m.hashMap?.[found![0]] === e) {
      e.sum += seconds;
      e.count += 1;
      for (const b of bounds) {
        if (seconds <= b) {
          e.bucketValues[b] = (e.bucketValues[b] ?? 0) + 1;
          break;
        }
      }
      return;
    }
    child.observe(seconds);
    found = entryOf(m, labels);
  };
}

function createHandles(registry: Registry) {
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> =>
    new Counter({ name, help, labelNames, registers });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> =>
    new Gauge({ name, help, labelNames, registers });
  /** A gauge with one child per leader. */
  const leaderGauge = (name: string, help: string): Gauge<'leader'> => gauge(name, help, ['leader']);
  return {
    buildInfo: gauge(
      'cribl_exporter_build_info',
      'Build of this exporter (value 1): its version, source revision and Node.js version.',
      ['version', 'revision', 'nodejs_version'],
    ),
    leaderRequests: counter(
      'cribl_exporter_leader_requests_total',
      'Requests sent to the leader, by route template and HTTP status (one the API defines, else other; or the ' +
        'failure reason when there was no status; too_large when the body was over --leader.max-response-size).',
      ['leader', 'endpoint', 'code'],
    ),
    leaderRequestDuration: new Histogram({
      name: 'cribl_exporter_leader_request_duration_seconds',
      help: 'Duration of requests to the leader, by route template.',
      labelNames: ['leader', 'endpoint'] as const,
      buckets: [...REQUEST_BUCKETS],
      registers,
    }),
    leaderThrottled: counter(
      'cribl_exporter_leader_throttled_total',
      'Answers of the leader that paused the request budget (429, 503, 420).',
      ['leader', 'code'],
    ),
    leaderPauseCapped: counter(
      'cribl_exporter_leader_pause_capped_total',
      'Pauses the leader asked for (Retry-After of a 429, 503 or 420) that were longer than --leader.max-pause and ' +
        'were cut to it.',
      ['leader'],
    ),
    leaderFailovers: counter(
      'cribl_exporter_leader_failovers_total',
      'Failovers of the leader seen in its HA hosts (--leader.ha-url): the primary is another host than the last ' +
        'primary seen. Read every discovery and every probe of a 420 hold.',
      ['leader'],
    ),
    leaderPaused: leaderGauge(
      'cribl_exporter_leader_paused',
      '1 while requests to the leader are paused (Retry-After, or the leader not serving).',
    ),
    leaderPauseUntil: leaderGauge(
      'cribl_exporter_leader_pause_until_timestamp_seconds',
      'When the current pause ends; +Inf while the leader is not serving; 0 when not paused.',
    ),
    leaderConcurrencyLimit: leaderGauge(
      'cribl_exporter_leader_concurrency_limit',
      'Current adaptive limit of concurrent requests to the leader.',
    ),
    leaderInFlight: leaderGauge('cribl_exporter_leader_in_flight_requests', 'Requests to the leader in flight now.'),
    healthCycleTarget: leaderGauge(
      'cribl_exporter_health_cycle_target_seconds',
      'Target duration of one health poll cycle over all nodes.',
    ),
    healthCycleDuration: leaderGauge(
      'cribl_exporter_health_cycle_duration_seconds',
      'Time the last complete round took to refresh every node once (each node is polled on its own schedule); ' +
        'set at the end of each round.',
    ),
    healthCycleOverrun: leaderGauge(
      'cribl_exporter_health_cycle_overrun',
      '1 while the request budget (rate, concurrency or a pause the leader asked for) keeps nodes from being ' +
        'refreshed every health interval; 0 otherwise, slow nodes included. Checked every second.',
    ),
    healthPollAgeMax: leaderGauge(
      'cribl_exporter_health_poll_age_max_seconds',
      'Age of the oldest successful health refresh among nodes that answered their last poll; updated every ' +
        'second.',
    ),
    slowNodes: leaderGauge(
      'cribl_exporter_slow_nodes',
      'Nodes whose last health poll took longer than --leader.timeout.headers or timed out; updated after each ' +
        'poll.',
    ),
    leaderRateLimit: leaderGauge(
      'cribl_exporter_leader_rate_limit_requests_per_second',
      'Request rate in force for the leader: --leader.max-rps (auto: what the fleet needs, set at each discovery), ' +
        'lowered while the leader throttles; updated when it changes by 1 % or more.',
    ),
    discoveryDuration: leaderGauge('cribl_exporter_discovery_duration_seconds', 'Duration of the last discovery.'),
    nodes: leaderGauge('cribl_exporter_nodes', 'Nodes exported by this process.'),
    nodesOverLimit: leaderGauge('cribl_exporter_nodes_over_limit', 'Nodes not exported because of --max-nodes.'),
    authTokenExpiry: gauge(
      'cribl_exporter_auth_token_expiry_timestamp_seconds',
      'Expiry of the token in use, when known.',
      ['leader', 'mode'],
    ),
    authFailures: counter('cribl_exporter_auth_failures_total', 'Failed attempts to obtain a token, by reason.', [
      'leader',
      'mode',
      'reason',
    ]),
    shardIndex: gauge('cribl_exporter_shard_index', 'Shard of this process (0-based).'),
    shardTotal: gauge('cribl_exporter_shard_total', 'Number of shards.'),
    webConfigReloadSuccessful: gauge(
      'cribl_exporter_web_config_last_reload_successful',
      '1 if the last read of the web configuration file (--web.config.file) succeeded.',
    ),
    bodyBuildDuration: gauge(
      'cribl_exporter_body_build_duration_seconds',
      'Wall time of the last build of the cached /metrics body (rebuilt after the snapshot changes, not per ' +
        'scrape).',
    ),
    bodyBytes: gauge(
      'cribl_exporter_body_bytes',
      'Size of the cached /metrics body without self-metrics, by encoding.',
      ['encoding'],
    ),
    collectorEnabled: gauge(
      'cribl_exporter_collector_enabled',
      '1 while a collector runs for the leader, 0 while it is off because the leader refused (401, 403) or does ' +
        'not know (404) its requests; tried again at its next run. Collectors off by configuration have no series.',
      ['leader', 'collector'],
    ),
    endpointRefused: gauge(
      'cribl_exporter_endpoint_refused',
      '1 while the leader refuses (401, 403) a route a collector reads (for one group at least), 0 once it answers ' +
        'every request there; per route, so a collector refused on some of its routes only (it stays enabled) says ' +
        'which. Set at each run of the collector.',
      ['leader', 'collector', 'endpoint'],
    ),
    collectorFailures: counter(
      'cribl_exporter_collector_failures_total',
      'Failed requests of a collector, by reason (unauthorized, forbidden, not_found, or the request failure ' +
        'reason).',
      ['leader', 'collector', 'reason'],
    ),
    ...Object.fromEntries(
      COLLECTORS.flatMap((c) => c.gauges ?? []).map(
        (g) => [g.name, g.counter ? counter(g.name, g.help, ['leader']) : leaderGauge(g.name, g.help)] as const,
      ),
    ),
    bodyWorkerRestarts: counter(
      'cribl_exporter_body_worker_restarts_total',
      'Times the worker thread that assembles the /metrics body stopped (the build in flight failed; the next ' +
        'build starts a new worker).',
    ),
  };
}

/** Every label name the exporter's own metrics use (read off the metrics themselves). */
export const SELF_METRIC_LABELS: ReadonlySet<string> = new Set(
  (Object.values(createHandles(new Registry())) as unknown as LabelledMetric[]).flatMap((m) => m.labelNames),
);

/** The exporter's self-metrics registry and the hooks that feed it. */
export interface SelfMetrics {
  readonly registry: Registry;
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

// prom-client's typings declare `type` as a numeric enum; at runtime it is the string we need.
interface JsonMetric {
  name: string;
  help: string;
  type: unknown;
  values: { value: number; labels: Record<string, unknown>; metricName?: string }[];
}

/** Renders prom-client's JSON view of one family in either format. */
export function renderJsonFamily(metric: JsonMetric, format: Format): string {
  const type = String(metric.type);
  const counter = type === 'counter';
  // OpenMetrics: the family of a counter is named without `_total`; its sample keeps the suffix.
  const family = format === 'openmetrics' && counter ? metric.name.replace(/_total$/, '') : metric.name;
  let out = `# HELP ${family} ${escapeHelp(metric.help, format)}\n# TYPE ${family} ${type}\n`;
  for (const v of metric.values) {
    let name = v.metricName ?? metric.name;
    if (counter && !name.endsWith('_total')) name += '_total';
    const pairs = Object.entries(v.labels).map(([k, l]) => `${k}="${escapeLabelValue(labelText(l))}"`);
    out += `${name}${pairs.length ? `{${pairs.join(',')}}` : ''} ${formatValue(v.value)}\n`;
  }
  return out;
}

/**
 * Sampling interval of the event-loop delay behind prom-client's `nodejs_eventloop_lag_*` (its default is 10 ms).
 * Each sample is a timer that wakes the process: at 10 ms the exporter used 0.009–0.011 cores with one node and
 * 0.004–0.005 with 100 ms (30 s of /proc per run on the 2-core bench VM, where a wake-up from idle costs about
 * 0.1 ms), a tenth of its whole CPU at 1,000–2,000 nodes. At 50 ms a block of 50 ms or more
 * (the longest any of its work is meant to take) is always seen; a shorter one with a chance of its length / 50 ms.
 */
export const EVENT_LOOP_MONITORING_MS = 50;

/** Creates the self-metrics registry with every metric of docs/ARCHITECTURE.md. */
export function createSelfMetrics(options: SelfMetricsOptions): SelfMetrics {
  const registry = new Registry();
  const h = createHandles(registry);
  if (options.defaultMetrics ?? true)
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_MONITORING_MS });
  h.buildInfo.set(
    { version: options.version, revision: options.revision || 'unknown', nodejs_version: options.nodejsVersion },
    1,
  );

  // The collectors' own gauges (Collector.gauges), by name; one child per leader.
  const own = COLLECTORS.flatMap((c) => c.gauges ?? []);
  const collectorGauges = new Map(
    own.filter((g) => !g.counter).map((g) => [g.name, (h as Record<string, unknown>)[g.name] as Gauge<'leader'>]),
  );
  const collectorCounters = new Map(
    own.filter((g) => g.counter).map((g) => [g.name, (h as Record<string, unknown>)[g.name] as Counter<'leader'>]),
  );
  // Every metric with a `leader` label: prom-client removes a series by its full label set only, so removeLeader
  // reads each series' labels off the metric's entries.
  const perLeader = (Object.values(h) as unknown as LabelledMetric[]).filter((m) => m.labelNames.includes('leader'));

  // Left out of the exposition: prom-client's gauges named like counters (promtool rejects them; their
  // per-type siblings nodejs_active_handles{type} etc. carry the same numbers), and the shard gauges until
  // sharding is on (`cribl_exporter_shard_total` is a contract name that promtool would flag).
  const hidden = new Set([
    'nodejs_active_handles_total',
    'nodejs_active_requests_total',
    'nodejs_active_resources_total',
    'cribl_exporter_shard_index',
    'cribl_exporter_shard_total',
    // Until a leader has HA hosts: the default output has no family that cannot have a series.
    'cribl_exporter_leader_failovers_total',
  ]);

  return {
    registry,
    forLeader(leader: string): LeaderSelfMetrics {
      // Children per (endpoint, code), looked up once: labelling on every request (hashing the label set, plus
      // the bookkeeping for removeLeader it had then) cost about 3 % of the CPU at 5,000 leader requests/s.
      const requestChildren = new Map<string, { count: (n: number) => void; time: (s: number) => void }>();
      let inFlight: ((n: number) => void) | undefined;
      /** A hook that sets this leader's child of a gauge. */
      const set = (g: Gauge<'leader'>) => (value: number) => g.set({ leader }, value);
      // A counter from 0, so that increase() sees the first capped pause.
      h.leaderPauseCapped.inc({ leader }, 0);
      return {
        onRequest(endpoint: Endpoint, code: string, seconds: number) {
          const key = `${endpoint}\u0000${code}`;
          let c = requestChildren.get(key);
          if (!c) {
            c = {
              count: direct(h.leaderRequests, { leader, endpoint, code }),
              time: directHistogram(h.leaderRequestDuration, { leader, endpoint }, REQUEST_BUCKETS),
            };
            requestChildren.set(key, c);
          }
          c.count(1);
          c.time(seconds);
        },
        onPauseCapped() {
          h.leaderPauseCapped.inc({ leader });
        },
        onFailovers(n: 0 | 1) {
          hidden.delete('cribl_exporter_leader_failovers_total');
          h.leaderFailovers.inc({ leader }, n);
        },
        onThrottled(code: ThrottleCode) {
          h.leaderThrottled.inc({ leader, code });
        },
        onConcurrencyChange: set(h.leaderConcurrencyLimit),
        onInFlight(n: number) {
          (inFlight ??= direct(h.leaderInFlight, { leader }))(n);
        },
        onPauseChange(paused: boolean, untilMs: number) {
          h.leaderPaused.set({ leader }, paused ? 1 : 0);
          h.leaderPauseUntil.set({ leader }, paused ? untilMs / 1000 : 0);
        },
        healthCycle(targetSeconds: number, durationSeconds: number) {
          h.healthCycleTarget.set({ leader }, targetSeconds);
          h.healthCycleDuration.set({ leader }, durationSeconds);
        },
        overrun(active: boolean) {
          h.healthCycleOverrun.set({ leader }, active ? 1 : 0);
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
        collectorEnabled(collector: string, on: boolean) {
          h.collectorEnabled.set({ leader, collector }, on ? 1 : 0);
        },
        collectorFailure(collector: string, reason: string) {
          h.collectorFailures.inc({ leader, collector, reason });
        },
        endpointRefused(collector: string, endpoint: string, refused: boolean) {
          h.endpointRefused.set({ leader, collector, endpoint }, refused ? 1 : 0);
        },
        collectorGauge(name: string, value: number) {
          collectorGauges.get(name)?.set({ leader }, value);
        },
        collectorCount(name: string, n: number) {
          collectorCounters.get(name)?.inc({ leader }, n);
        },
      };
    },
    removeLeader(leader: string) {
      for (const m of perLeader) {
        for (const e of Object.values(m.hashMap ?? {})) if (e.labels.leader === leader) m.remove(e.labels);
      }
    },
    setShard(index: number, total: number) {
      h.shardIndex.set(index);
      h.shardTotal.set(total);
      for (const name of ['cribl_exporter_shard_index', 'cribl_exporter_shard_total']) {
        if (total > 1) hidden.delete(name);
        else hidden.add(name);
      }
    },
    setWebConfigReloadSuccessful(ok: boolean) {
      h.webConfigReloadSuccessful.set(ok ? 1 : 0);
    },
    bodyWorkerLost() {
      h.bodyWorkerRestarts.inc();
    },
    bodyBuilt(stats) {
      h.bodyBuildDuration.set(stats.durationMs / 1000);
      h.bodyBytes.set({ encoding: 'identity' }, stats.bytes);
      h.bodyBytes.set({ encoding: 'gzip' }, stats.gzipBytes);
    },
    async render(format: Format): Promise<string> {
      const families = (await registry.getMetricsAsJSON()) as unknown as JsonMetric[];
      return families
        .filter((f) => !hidden.has(f.name))
        .map((f) => renderJsonFamily(f, format))
        .join('');
    },
  };
}
