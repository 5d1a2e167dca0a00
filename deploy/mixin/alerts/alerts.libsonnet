// Alerting rules. To add an alert: add it to a group below (alert, expr, 'for', labels.severity,
// annotations.summary and .description; runbook_url is added for you), a `## AlertName` section to
// docs/runbook.md, promtool cases in deploy/prometheus/tests/ (firing and quiet), a row to the alert table in
// docs/deploy.md, then `npm run mixin`. deploy/mixin/README.md has the details.
//
// Conventions the rules rely on (docs/deploy.md, "Prometheus rules"):
// - per-node series carry product, group and node_id on top of the labels cribl_leader_up has, so
//   `ignoring(product, group, node_id)` pairs a node with its leader and node alerts stay quiet while the
//   whole leader is unreachable (one page per outage, not one per node);
// - thresholds assume the default intervals (config.libsonnet); raise them if you poll less often.
local util = import '../lib/util.libsonnet';
local fold = util.fold;

{
  prometheusAlerts+:: {
    local c = $._config,
    // Node alerts end with this, so that one leader outage pages once, as CriblLeaderUnreachable.
    local unlessLeaderDown = 'unless ignoring (product, group, node_id) (cribl_leader_up == 0)',
    // Labels that identify one set of shards: the same job in the same namespace of the same cluster.
    local shardSet = '%s, namespace, job' % c.clusterLabel,

    groups+: util.withRunbookURLs([
      {
        name: 'cribl-exporter',
        rules: [
          {
            alert: 'CriblExporterDown',
            expr: 'up{%s} == 0' % c.criblExporterSelector,
            'for': '5m',
            labels: { severity: 'critical' },
            annotations: {
              summary: 'cribl-exporter {{ $labels.instance }} cannot be scraped.',
              description: fold(|||
                Prometheus has failed to scrape {{ $labels.instance }} (job {{ $labels.job }}) for 5 minutes.
                While it is down, no Cribl node alert can fire for the leaders it watches.
              |||),
            },
          },
          {
            alert: 'CriblLeaderUnreachable',
            expr: 'cribl_leader_up == 0',
            'for': '5m',
            labels: { severity: 'critical' },
            annotations: {
              summary: 'The Cribl leader watched by {{ $labels.instance }} cannot be reached.',
              description: fold(|||
                Node discovery through the leader API has failed for 5 minutes (exporter {{ $labels.instance }}).
                Node data is frozen at its last known values and node alerts for this leader are held back.
              |||),
            },
          },
          {
            alert: 'CriblLeaderThrottling',
            expr: 'sum without (code) (rate(cribl_exporter_leader_throttled_total[5m])) > 0',
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Leader {{ $labels.leader }} keeps throttling cribl-exporter.',
              description: fold(|||
                The leader {{ $labels.leader }} has answered {{ printf "%.2f" $value }} requests per second with
                429, 503 or 420 for 15 minutes; the exporter backs off, so node data gets older.
              |||),
            },
          },
          {
            alert: 'CriblExporterHealthCycleOverrun',
            expr: |||
              (cribl_exporter_health_cycle_overrun == 1)
              or
              (cribl_exporter_health_cycle_duration_seconds > 1.5 * cribl_exporter_health_cycle_target_seconds)
            |||,
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Health polling of leader {{ $labels.leader }} cannot keep its cycle target.',
              description: fold(|||
                For 15 minutes the request budget (rate, concurrency, or pauses the leader asked for) has kept
                the nodes of leader {{ $labels.leader }} from being refreshed every health interval, or a round over
                all of them took more than 1.5 times its target; the exporter log names the cause.
              |||),
            },
          },
          {
            alert: 'CriblExporterNodesOverLimit',
            expr: 'cribl_exporter_nodes_over_limit > 0',
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'cribl-exporter leaves {{ $value }} nodes of leader {{ $labels.leader }} unmonitored.',
              description: fold(|||
                The leader reports more nodes than --max-nodes allows; {{ $value }} nodes are not exported
                by {{ $labels.instance }} and none of their alerts can fire.
              |||),
            },
          },
          {
            alert: 'CriblExporterWebConfigReloadFailed',
            expr: 'cribl_exporter_web_config_last_reload_successful == 0',
            'for': '5m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'cribl-exporter {{ $labels.instance }} cannot load its web configuration file.',
              description: fold(|||
                The last change to the --web.config.file of {{ $labels.instance }} was rejected; the exporter
                keeps serving with the previous TLS and basic-auth settings.
              |||),
            },
          },
          {
            alert: 'CriblExporterBodyWorkerRestarting',
            expr: 'increase(cribl_exporter_body_worker_restarts_total[15m]) > 0',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'cribl-exporter {{ $labels.instance }} keeps losing its /metrics body worker.',
              description: fold(|||
                The worker thread that assembles /metrics on {{ $labels.instance }} stopped and was started again
                in the last 15 minutes; each restart re-sends every node's text and /metrics may lag meanwhile.
              |||),
            },
          },
        ],
      },
      {
        name: 'cribl-nodes',
        rules: [
          {
            alert: 'CriblNodeDisconnected',
            expr: |||
              (cribl_node_connected == 0)
              %s
            ||| % unlessLeaderDown,
            'for': '5m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Cribl node {{ $labels.node_id }} ({{ $labels.group }}) is disconnected from its leader.',
              description: fold(|||
                The leader has reported {{ $labels.product }} node {{ $labels.node_id }} in group
                {{ $labels.group }} as disconnected for 5 minutes.
              |||),
            },
          },
          {
            alert: 'CriblNodeUnhealthy',
            expr: |||
              (cribl_node_healthy == 0 and cribl_node_health_up == 1)
              %s
            ||| % unlessLeaderDown,
            'for': '10m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Cribl node {{ $labels.node_id }} ({{ $labels.group }}) is unhealthy or shutting down.',
              description: fold(|||
                {{ $labels.product }} node {{ $labels.node_id }} in group {{ $labels.group }} has answered its
                health check with a status other than healthy for 10 minutes (see cribl_node_health_status).
              |||),
            },
          },
          {
            alert: 'CriblNodeHealthUnreachable',
            expr: |||
              (cribl_node_health_up == 0)
              unless (cribl_node_connected == 0)
              unless ignoring (reason) (cribl_node_poll_failure_info{reason=~"throttled|leader_unavailable"} == 1)
              %s
            ||| % unlessLeaderDown,
            'for': '10m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Cribl node {{ $labels.node_id }} ({{ $labels.group }}) does not answer health checks.',
              description: fold(|||
                Health checks of {{ $labels.product }} node {{ $labels.node_id }} in group {{ $labels.group }},
                sent through the leader, have failed for 10 minutes although the leader lists it as connected
                (see cribl_node_poll_failure_info for the reason).
              |||),
            },
          },
          {
            alert: 'CriblNodeHeartbeatStale',
            expr: |||
              (time() - cribl_node_last_heartbeat_timestamp_seconds > %d)
              unless (cribl_node_connected == 0)
              %s
            ||| % [c.nodeHeartbeatStaleSeconds, unlessLeaderDown],
            'for': '5m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Cribl node {{ $labels.node_id }} ({{ $labels.group }}) has not sent a heartbeat recently.',
              description: fold(|||
                The leader received the last heartbeat of {{ $labels.product }} node {{ $labels.node_id }}
                {{ $value | humanizeDuration }} ago, yet still lists it as connected.
              |||),
            },
          },
          {
            alert: 'CriblNodeHealthDataStale',
            expr: |||
              (time() - cribl_node_health_last_success_timestamp_seconds > %d)
              unless (cribl_node_health_up == 0)
              unless (cribl_node_connected == 0)
              %s
            ||| % [c.nodeHealthDataStaleSeconds, unlessLeaderDown],
            'for': '5m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Health data of Cribl node {{ $labels.node_id }} ({{ $labels.group }}) is stale.',
              description: fold(|||
                The last answered health check of {{ $labels.product }} node {{ $labels.node_id }} is
                {{ $value | humanizeDuration }} old: the exporter is not polling it as often as configured.
              |||),
            },
          },
          {
            alert: 'CriblNodeMetadataStale',
            expr: |||
              (time() - cribl_node_metadata_last_success_timestamp_seconds > %d)
              unless (cribl_node_connected == 0)
              %s
            ||| % [c.nodeMetadataStaleSeconds, unlessLeaderDown],
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Metadata of Cribl node {{ $labels.node_id }} ({{ $labels.group }}) is stale.',
              description: fold(|||
                The last answered metadata poll of {{ $labels.product }} node {{ $labels.node_id }} is
                {{ $value | humanizeDuration }} old.
              |||),
            },
          },
        ],
      },
      {
        name: 'cribl-exporter-sharding',
        rules: [
          {
            alert: 'CriblExporterShardingMismatch',
            expr: 'stdvar by (%s) (cribl_exporter_shard_total) != 0' % shardSet,
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'cribl-exporter shards of job {{ $labels.job }} disagree on the number of shards.',
              description: fold(|||
                Not every exporter of job {{ $labels.job }} runs with the same --shard.total, so some nodes
                are exported twice and others not at all.
              |||),
            },
          },
          // KSM's formula: each live shard adds 2^index; a full set sums to 2^total - 1. A positive difference
          // is the bit mask of the missing indices, a negative one means an index runs twice.
          {
            alert: 'CriblExporterShardsMissing',
            expr: |||
              (
                2 ^ max by (%(set)s) (cribl_exporter_shard_total) - 1
                - sum by (%(set)s) (2 ^ cribl_exporter_shard_index)
              ) != 0
              and on (%(set)s) (max by (%(set)s) (cribl_exporter_shard_total) > 1)
            ||| % { set: shardSet },
            'for': '15m',
            labels: { severity: 'critical' },
            annotations: {
              summary: 'cribl-exporter shards of job {{ $labels.job }} are missing or duplicated.',
              description: fold(|||
                The live shards of job {{ $labels.job }} do not cover every index exactly once, so some
                Cribl nodes are not monitored (difference {{ $value }}; unless an index runs twice, it is the
                bit mask of the missing indices).
              |||),
            },
          },
        ],
      },
    ], c.runbookURLPattern),
  },
}
