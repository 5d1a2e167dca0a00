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
    // Group alerts the same way: one leader outage pages once.
    local unlessLeaderDownGroup = 'unless ignoring (product, group) (cribl_leader_up == 0)',
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
          {
            alert: 'CriblNodeConfigOutdated',
            expr: |||
              (cribl_node_config_outdated == 1)
              %s
            ||| % unlessLeaderDown,
            'for': c.nodeConfigOutdatedFor,
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Cribl node {{ $labels.node_id }} ({{ $labels.group }}) does not run its group’s config.',
              description: fold(|||
                {{ $labels.product }} node {{ $labels.node_id }} has run a config version other than the one
                group {{ $labels.group }} deployed for %s, longer than a deploy takes: the deploy did not land
                on it (see cribl_node_config_info and cribl_group_info for the two versions).
              ||| % c.nodeConfigOutdatedFor),
            },
          },
          {
            alert: 'CriblNodeRestartLoop',
            expr: |||
              (increase(cribl_node_restarts_total[1h]) >= %d)
              %s
            ||| % [c.nodeRestartLoopCount, unlessLeaderDown],
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Cribl node {{ $labels.node_id }} ({{ $labels.group }}) keeps restarting.',
              description: fold(|||
                {{ $labels.product }} node {{ $labels.node_id }} in group {{ $labels.group }} restarted
                {{ $value | printf "%.0f" }} times in the last hour (changes of its start time in the leader's
                listing).
              |||),
            },
          },
          {
            alert: 'CriblNodeUpgradeFailed',
            expr: |||
              (cribl_node_upgrade_status{state="failed"} == 1)
              %s
            ||| % unlessLeaderDown,
            'for': '5m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'The upgrade of Edge node {{ $labels.node_id }} ({{ $labels.group }}) failed.',
              description: fold(|||
                The leader reports the last upgrade of {{ $labels.product }} node {{ $labels.node_id }} in
                fleet {{ $labels.group }} as failed (nodeUpgradeStatus), for 5 minutes.
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
      {
        name: 'cribl-groups',
        rules: [
          {
            alert: 'CriblGroupNodesUnhealthy',
            expr: |||
              (
                count without (node_id) (cribl_node_healthy == 0)
                / count without (node_id) (cribl_node_healthy)
              ) > %s
              %s
            ||| % [c.groupUnhealthyShare, unlessLeaderDownGroup],
            'for': '5m',
            labels: { severity: 'critical' },
            annotations: {
              summary: 'Most nodes of {{ $labels.product }} group {{ $labels.group }} are not healthy.',
              description: fold(|||
                {{ $value | humanizePercentage }} of the nodes of {{ $labels.product }} group {{ $labels.group }}
                have not answered their health check healthy for 5 minutes: a bad deploy or an outage of the
                group, paged once for the group (Alertmanager holds back its node alerts).
              |||),
            },
          },
          {
            alert: 'CriblGroupUndeployedCommits',
            expr: |||
              (cribl_group_undeployed_commits > 0)
              %s
            ||| % unlessLeaderDownGroup,
            'for': c.undeployedCommitsFor,
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Group {{ $labels.group }} has config committed but not deployed.',
              description: fold(|||
                {{ $value }} commits of {{ $labels.product }} group {{ $labels.group }} have waited for a deploy
                for over %s: the config that runs is not the config that was committed.
              ||| % c.undeployedCommitsFor),
            },
          },
        ],
      },
      {
        name: 'cribl-leader',
        rules: [
          {
            alert: 'CriblLeaderNotPrimaryOrUnhealthy',
            expr: |||
              (cribl_leader_health_status{status="healthy"} == 0)
              or
              (cribl_leader_role_info{role!="primary"} == 1)
            |||,
            'for': '5m',
            labels: { severity: 'critical' },
            annotations: {
              summary: 'The Cribl leader watched by {{ $labels.instance }} is not a healthy primary.',
              description: fold(|||
                The leader's own /health has answered standby or shutting down, or its role is not primary, for
                5 minutes (see cribl_leader_health_status and cribl_leader_role_info): it does not serve the
                control plane, so node discovery fails too.
              |||),
            },
          },
          {
            alert: 'CriblLeaderAuthFailing',
            expr: 'cribl_leader_discovery_failure_info{reason=~"unauthorized|forbidden"} == 1',
            'for': '5m',
            labels: { severity: 'critical' },
            annotations: {
              summary: 'The Cribl leader watched by {{ $labels.instance }} refuses the exporter’s credentials.',
              description: fold(|||
                Node discovery has failed with {{ $labels.reason }} (HTTP 401 or 403) for 5 minutes: the leader is
                up, but the exporter's token, password or client secret is wrong, expired or lacks rights.
              |||),
            },
          },
          {
            alert: 'CriblGitRemoteMissing',
            expr: 'cribl_leader_git_remote_configured == 0',
            'for': '1h',
            labels: { severity: 'info' },
            annotations: {
              summary: 'The Cribl leader watched by {{ $labels.instance }} backs its config up to no remote git.',
              description: fold(|||
                The leader's git settings have no remote: its config is versioned on the leader only and is lost
                with it. Cribl.Cloud does not support remotes: turn this off there (--no-collector.git-settings).
              |||),
            },
          },
          {
            alert: 'CriblSearchProbeFailing',
            expr: 'cribl_search_probe_success == 0',
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Cribl Search does not complete the probe search of {{ $labels.instance }}.',
              description: fold(|||
                The search probe has failed for 15 minutes (last reason: see cribl_search_probe_failure_info):
                Cribl Search jobs do not complete in time, or cannot be started.
              |||),
            },
          },
          {
            alert: 'CriblWorkspaceNotActive',
            expr: 'cribl_workspace_info{state!="Active"} == 1',
            'for': '30m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Cribl.Cloud workspace {{ $labels.workspace }} is {{ $labels.state }}.',
              description: fold(|||
                The management plane has listed workspace {{ $labels.workspace }} as {{ $labels.state }} for 30
                minutes; the exporter monitors Active workspaces only, so its nodes are not watched.
              |||),
            },
          },
        ],
      },
    ], c.runbookURLPattern),
  },
}
