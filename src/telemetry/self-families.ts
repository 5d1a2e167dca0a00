/**
 * The table of the exporter's own metric families (name, HELP, labels), in the order /metrics shows them, grouped by
 * what feeds them: the leader's client and budget, the health rounds, discovery and credentials, the process, the
 * collectors. src/telemetry/self-metrics.ts turns them into hooks.
 */
import { COLLECTORS } from '../collectors/registry.js';
import { OwnCounter, OwnGauge, OwnHistogram } from './families.js';

/** Buckets of `cribl_exporter_leader_request_duration_seconds`. */
export const REQUEST_BUCKETS: readonly number[] = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const counter = <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): OwnCounter<L> =>
  new OwnCounter<L>(name, help, labelNames);
const gauge = <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): OwnGauge<L> =>
  new OwnGauge<L>(name, help, labelNames);
/** A gauge with one series per leader. */
const leaderGauge = (name: string, help: string): OwnGauge<'leader'> => gauge(name, help, ['leader']);

/** The build, and what the leader's client and budget report (every request, pauses, concurrency). */
function requestFamilies() {
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
    leaderRequestDuration: new OwnHistogram(
      'cribl_exporter_leader_request_duration_seconds',
      'Duration of requests to the leader, by route template.',
      ['leader', 'endpoint'] as const,
      REQUEST_BUCKETS,
    ),
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
  };
}

/** The health rounds and the rate in force. */
function roundFamilies() {
  return {
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
    healthRotation: gauge(
      'cribl_exporter_health_rotation_seconds',
      'Seconds to poll every node of a product whose node detail is basic or minimal once, at the rate its ' +
        'rotating health polls go (oldest first): how old its oldest health answer gets. Set at each discovery; ' +
        'absent for products at full, whose nodes are polled every --health.interval.',
      ['leader', 'product'],
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
  };
}

/** Discovery, the nodes exported, and the credentials. */
function fleetFamilies() {
  return {
    discoveryDuration: leaderGauge('cribl_exporter_discovery_duration_seconds', 'Duration of the last discovery.'),
    nodes: leaderGauge('cribl_exporter_nodes', 'Nodes exported by this process.'),
    nodesOverLimit: leaderGauge('cribl_exporter_nodes_over_limit', 'Nodes not exported because of --max-nodes.'),
    nodeDetail: gauge(
      'cribl_exporter_node_detail',
      'Node detail level in force per product the leader lists (state set: level is full, basic or minimal, the ' +
        'one in force 1): pinned by --edge.node-detail / --stream.node-detail, or auto by the fleet size; set at ' +
        'each discovery.',
      ['leader', 'product', 'level'],
    ),
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
  };
}

/** This process: its shard, its web config, the /metrics body. */
function processFamilies() {
  return {
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
  };
}

/** The collectors: on or off, refused routes, failures, and each collector's own gauges (Collector.gauges). */
function collectorFamilies() {
  return {
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
    collectorAnswered: gauge(
      'cribl_exporter_collector_last_success_timestamp_seconds',
      "When a read of the collector last got an answer from the leader (the groups listing: when every product's " +
        'answered). Its series keep their last answered values through failed reads, until an answer says ' +
        'otherwise: time() minus this is how old they are. Absent until the first answer.',
      ['leader', 'collector'],
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
  };
}

/** Every family, in the order of /metrics (the body worker's restarts last, after the collectors' gauges). */
export function selfFamilies() {
  return {
    ...requestFamilies(),
    ...roundFamilies(),
    ...fleetFamilies(),
    ...processFamilies(),
    ...collectorFamilies(),
    bodyWorkerRestarts: counter(
      'cribl_exporter_body_worker_restarts_total',
      'Times the worker thread that assembles the /metrics body stopped (the build in flight failed; the next ' +
        'build starts a new worker).',
    ),
  };
}

/** The families, by the names the hooks use. */
export type SelfFamilies = ReturnType<typeof selfFamilies>;
