// Alerting rules. To add an alert: add it to a group below (alert, expr, 'for', labels.severity,
// annotations.summary and .description; runbook_url is added for you), a `## AlertName` section to
// docs/runbook.md, promtool cases in deploy/prometheus/tests/ (firing and quiet), a row to the alert table of
// README.md ("Alerts"), then `npm run mixin`. deploy/mixin/README.md has the details.
//
// Conventions the rules rely on (docs/deploy.md, "Prometheus rules"):
// - per-node series carry product, group and node_id on top of the labels cribl_leader_up has, so
//   `ignoring(product, group, node_id)` pairs a node with its leader and node alerts stay quiet while the
//   whole leader is unreachable (one page per outage, not one per node);
// - an alert on the families of an optional collector (git settings, search, group versions, groups, workspaces,
//   data flow, throughput, licence, leader info, leader messages) ends in `unlessCollectorOff(collector)`: an off
//   collector (refused, absent, or off by configuration) never pages by what it last exported (issue 40);
// - data-flow and throughput alerts end in `unlessGroupDown` and `unlessLeaderDownFlow`, as node alerts in
//   `unlessLeaderDown` (CriblWorkerHeartbeatLag, per node, in `unlessLeaderDown`);
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
    // Node detail levels (docs/node-detail.md): a node alert whose families a product exports only in `full`, or
    // whose meaning changes when health polls rotate, ends with `unlessNotFull`; its per-group equivalent in the
    // cribl-fleets group ends with `unlessFull` and fires instead, where the product is not in `full`.
    // cribl_exporter_node_detail carries `leader`, a leader's families its target labels: they meet as in
    // unlessCollectorOff (one leader: on the exporter; several: on the exporter and `leader`).
    local unlessDetail(cmp) =
      local sel = 'cribl_exporter_node_detail{level="full"} %s' % cmp;
      local one = 'count by (%s, job, instance, product) (cribl_exporter_node_detail{level="full"}) == 1'
                  % c.clusterLabel;
      'unless on (%(c)s, job, instance, product) ((%(sel)s) and on (%(c)s, job, instance, product) (%(one)s))\n'
      % { c: c.clusterLabel, sel: sel, one: one }
      + 'unless on (%s, job, instance, leader, product) (%s)' % [c.clusterLabel, sel],
    local unlessNotFull = unlessDetail('== 0'),
    local unlessFull = unlessDetail('== 1'),
    // Labels that identify one set of shards: the same job in the same namespace of the same cluster.
    local shardSet = '%s, namespace, job' % c.clusterLabel,
    // Why a node's health poll failed, when the cause is the leader or the exporter's credentials, not the node:
    // the leader throttled us or was unavailable, or it refused the token, or the exporter has no usable credential
    // file (`settings`: CriblLeaderAuthFailing speaks for those).
    local leaderSideReasons = 'throttled|leader_unavailable|unauthorized|forbidden|settings',
    // An alert on an optional collector's families ends with this: silent while the collector is off (refused,
    // absent, or off by configuration, as git settings on Cribl.Cloud). cribl_exporter_collector_enabled carries
    // `leader`; a leader's families carry its target labels instead (none for a single leader, `leader="<name>"` by
    // default for `leaders:` entries). On an exporter with one leader they meet on the exporter (job, instance);
    // with several, on the exporter and `leader`, so a collector off for one leader never silences the others.
    local unlessCollectorOff(collector) =
      local off = 'cribl_exporter_collector_enabled{collector="%s"} == 0' % collector;
      local one = 'count by (%s, job, instance) (cribl_exporter_collector_enabled{collector="%s"}) == 1'
                  % [c.clusterLabel, collector];
      'unless on (%(c)s, job, instance) ((%(off)s) and on (%(c)s, job, instance) (%(one)s))\n' % { c: c.clusterLabel, off: off, one: one }
      + 'unless on (%s, job, instance, leader) (%s)' % [c.clusterLabel, off],
    // Data-flow alerts end with these: silent while their group has no node connected to the leader (the leader's
    // roll-up then says nothing about data) and while the leader is unreachable, as node alerts are.
    local unlessGroupDown =
      'unless ignoring (destination, source, type, state) (max without (node_id) (cribl_node_connected) == 0)',
    local unlessLeaderDownFlow =
      'unless ignoring (product, group, destination, source, type, state) (cribl_leader_up == 0)',
    // The last paid or trial licence's expiry (a free licence never expires, and would hide it).
    local licenseExpiry = |||
      max without (license_id) (
        cribl_license_expiry_timestamp_seconds
        and ignoring (type, title) cribl_license_info{type!="free"}
      )
    |||,
    // The daily quota in force: the paid or trial licences not expired, or else the free one. Quotas of several
    // licences add up; a quota of 0 (unreported or unlimited) counts as none.
    local licenseQuota = |||
      sum without (license_id) (
        (cribl_license_quota_bytes_per_day > 0)
        and ignoring (type, title) cribl_license_info{type!="free"}
        and (cribl_license_expiry_timestamp_seconds > time())
      )
      or
      sum without (license_id) (
        (cribl_license_quota_bytes_per_day > 0)
        and ignoring (type, title) cribl_license_info{type="free"}
      )
    |||,
    // A ||| block inside another, indented by `n` spaces after its first line.
    local nest(text, n) = std.strReplace(std.rstripChars(text, '\n'), '\n', '\n' + std.repeat(' ', n)),

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
                all of them took more than 1.5 times its target; the exporter's status page and log name the cause
                (what the leader allows against what the fleet needs).
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
              unless ignoring (reason) (cribl_node_poll_failure_info{reason=~"%s"} == 1)
              %s
              %s
            ||| % [leaderSideReasons, unlessNotFull, unlessLeaderDown],
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
              %s
            ||| % [c.nodeHealthDataStaleSeconds, unlessNotFull, unlessLeaderDown],
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
            // A node whose poll the leader throttled or refused is not counted as unhealthy: that is the
            // leader's or the credentials' doing, and other alerts say so.
            expr: |||
              (
                count without (node_id) (
                  (cribl_node_healthy == 0)
                  unless ignoring (reason) (cribl_node_poll_failure_info{reason=~"%s"} == 1)
                )
                / count without (node_id) (cribl_node_healthy)
              ) > %s
              %s
            ||| % [leaderSideReasons, c.groupUnhealthyShare, unlessLeaderDownGroup],
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
              %s
            ||| % [unlessLeaderDownGroup, unlessCollectorOff('group_version')],
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
            // Refused on the listing (discovery fails), or on the health checks sent through the leader
            // (/w/{id}/health: every node reads the refusal, the polls the exporter holds back meanwhile too, and the
            // node alerts exclude it), or no request sent because a credential file of the exporter cannot be used
            // (`settings`). One alert per leader, not one per node.
            expr: |||
              (cribl_leader_discovery_failure_info{reason=~"unauthorized|forbidden|settings"} == 1)
              or
              count without (product, group, node_id) (cribl_node_poll_failure_info{reason=~"unauthorized|forbidden|settings"} == 1)
            |||,
            'for': '5m',
            labels: { severity: 'critical' },
            annotations: {
              summary: 'The Cribl leader watched by {{ $labels.instance }} refuses the exporter’s credentials.',
              description: fold(|||
                The leader has answered node discovery or the health checks sent through it with
                {{ $labels.reason }} (HTTP 401 or 403; settings: nothing was sent, a token, password or secret file of
                the exporter cannot be used) for 5 minutes: the exporter's token, password or client secret is
                missing, wrong, expired or lacks rights.
              |||),
            },
          },
          {
            alert: 'CriblGitRemoteMissing',
            expr: |||
              (cribl_leader_git_remote_configured == 0)
              %s
            ||| % unlessCollectorOff('git_settings'),
            'for': '1h',
            labels: { severity: 'info' },
            annotations: {
              summary: 'The Cribl leader watched by {{ $labels.instance }} backs its config up to no remote git.',
              description: fold(|||
                The leader's git settings have no remote: its config is versioned on the leader only and is lost
                with it. (Cribl.Cloud manages git itself: the git-settings collector is off there, and this alert
                with it.)
              |||),
            },
          },
          {
            alert: 'CriblSearchProbeFailing',
            expr: |||
              (cribl_search_probe_success == 0)
              %s
            ||| % unlessCollectorOff('search'),
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
            expr: |||
              (cribl_workspace_info{state!="Active"} == 1)
              %s
            ||| % unlessCollectorOff('workspaces'),
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
      // Data flow (issue 39): the leader's roll-up of each destination's and source's health over the worker
      // processes of its group (GET /m/{group}/system/status/outputs and …/inputs).
      {
        name: 'cribl-dataflow',
        rules: [
          {
            alert: 'CriblDestinationRed',
            expr: |||
              (cribl_destination_health{state="red"} == 1)
              %s
              %s
              %s
            ||| % [unlessGroupDown, unlessLeaderDownFlow, unlessCollectorOff('dataflow')],
            'for': c.destinationRedFor,
            labels: { severity: 'critical' },
            annotations: {
              summary: 'Destination {{ $labels.destination }} of {{ $labels.group }} is red.',
              description: fold(|||
                The leader has rolled up the health of {{ $labels.product }} destination {{ $labels.destination }}
                {{ with $labels.type }}({{ . }}) {{ end }}in group {{ $labels.group }} as red for %s: data is not
                leaving through it, and backpressure may block or drop it upstream
                (cribl_destination_worker_processes says how many worker processes report red).
              ||| % c.destinationRedFor),
            },
          },
          {
            alert: 'CriblDestinationYellow',
            expr: |||
              (cribl_destination_health{state="yellow"} == 1)
              %s
              %s
              %s
            ||| % [unlessGroupDown, unlessLeaderDownFlow, unlessCollectorOff('dataflow')],
            'for': c.destinationYellowFor,
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Destination {{ $labels.destination }} of {{ $labels.group }} has been degraded for long.',
              description: fold(|||
                The leader has rolled up the health of {{ $labels.product }} destination {{ $labels.destination }}
                {{ with $labels.type }}({{ . }}) {{ end }}in group {{ $labels.group }} as yellow for %s: some of
                its worker processes report problems (cribl_destination_worker_processes by state).
              ||| % c.destinationYellowFor),
            },
          },
          {
            alert: 'CriblSourceRed',
            expr: |||
              (cribl_source_health{state="red"} == 1)
              %s
              %s
              %s
            ||| % [unlessGroupDown, unlessLeaderDownFlow, unlessCollectorOff('dataflow')],
            'for': c.sourceRedFor,
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Source {{ $labels.source }} of {{ $labels.group }} is red.',
              description: fold(|||
                The leader has rolled up the health of {{ $labels.product }} source {{ $labels.source }}
                {{ with $labels.type }}({{ . }}) {{ end }}in group {{ $labels.group }} as red for %s: data from it
                is not arriving (cribl_source_worker_processes says how many worker processes report red).
              ||| % c.sourceRedFor),
            },
          },
          {
            alert: 'CriblPersistentQueueNotGreen',
            // Green at 0 rather than yellow or red at 1: a queue going from yellow to red keeps its `for`.
            expr: |||
              (
                (max without (state) (cribl_destination_pq_health{state="green"}) == 0)
                or
                (max without (state) (cribl_source_pq_health{state="green"}) == 0)
              )
              %s
              %s
              %s
            ||| % [unlessGroupDown, unlessLeaderDownFlow, unlessCollectorOff('dataflow')],
            'for': c.persistentQueueNotGreenFor,
            labels: { severity: 'warning' },
            annotations: {
              summary: fold(|||
                The persistent queue of {{ if $labels.destination }}destination {{ $labels.destination }}{{ else
                }}source {{ $labels.source }}{{ end }} ({{ $labels.group }}) is not green.
              |||),
              description: fold(|||
                The leader has rolled up the persistent queue of {{ $labels.product }}
                {{ if $labels.destination }}destination {{ $labels.destination }}{{ else }}source
                {{ $labels.source }}{{ end }} in group {{ $labels.group }} as other than green for %s: the queue is
                engaged or filling, or its state is unknown (cribl_destination_pq_health and cribl_source_pq_health
                by state).
              ||| % c.persistentQueueNotGreenFor),
            },
          },
        ],
      },
      // Data in motion (issue 48): events and bytes through each group, source and destination, drops, blocked
      // destinations, queue sizes and worker heartbeat lag, from the leader's metrics store (the throughput
      // collector). Its counters step once per window (60s by default): every rate and increase spans several.
      // Each alert ends as the data-flow ones do: silent while the group has no node connected, while the leader
      // is unreachable and while the collector is off, joined on the exporter and the leader's target labels.
      {
        name: 'cribl-throughput',
        rules: [
          {
            alert: 'CriblSourceSilent',
            // A counter reads flat, not absent, once its source stops: increase() is 0, not missing. The lookback
            // keeps quiet a source that never receives (an idle listener, a collector that runs once a day). While
            // the metrics store fails (the leader up, its queries not answered) every counter reads flat: silent
            // until a window has answered and the next query caught up on the gap.
            expr: |||
              (
                increase(cribl_source_received_events_total[%(window)s]) == 0
                and
                increase(cribl_source_received_events_total[%(lookback)s] offset %(window)s) > 0
              )
              %(groupDown)s
              %(leaderDown)s
              %(off)s
              unless on (%(c)s, job, instance) (sum by (%(c)s, job, instance) (increase(cribl_exporter_collector_failures_total{collector="throughput"}[%(window)s])) > 0)
            ||| % {
              c: c.clusterLabel,
              window: c.sourceSilentWindow,
              lookback: c.sourceSilentLookback,
              groupDown: unlessGroupDown,
              leaderDown: unlessLeaderDownFlow,
              off: unlessCollectorOff('throughput'),
            },
            'for': c.sourceSilentFor,
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Source {{ $labels.source }} of {{ $labels.group }} has stopped receiving events.',
              description: fold(|||
                {{ $labels.product }} source {{ $labels.source }} {{ with $labels.type }}({{ . }}) {{ end }}in group
                {{ $labels.group }} received events in the %s before, and none in the last %s plus %s
                (cribl_source_received_events_total has not moved): whatever sends to it stopped, or cannot reach it.
              ||| % [c.sourceSilentLookback, c.sourceSilentWindow, c.sourceSilentFor]),
            },
          },
          {
            alert: 'CriblDestinationDropping',
            expr: |||
              (rate(cribl_destination_dropped_events_total[5m]) > 0)
              %s
              %s
              %s
            ||| % [unlessGroupDown, unlessLeaderDownFlow, unlessCollectorOff('throughput')],
            'for': c.destinationDroppingFor,
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Destination {{ $labels.destination }} of {{ $labels.group }} is dropping events.',
              description: fold(|||
                {{ $labels.product }} destination {{ $labels.destination }} {{ with $labels.type }}({{ . }}) {{ end
                }}in group {{ $labels.group }} has dropped events for %s ({{ printf "%%.2f" $value }} per second over
                the last 5 minutes, cribl_destination_dropped_events_total): they are lost, not queued.
              ||| % c.destinationDroppingFor),
            },
          },
          {
            alert: 'CriblDestinationBlocked',
            expr: |||
              (cribl_destination_blocked == 1)
              %s
              %s
              %s
            ||| % [unlessGroupDown, unlessLeaderDownFlow, unlessCollectorOff('throughput')],
            'for': c.destinationBlockedFor,
            labels: { severity: 'critical' },
            annotations: {
              summary: 'Destination {{ $labels.destination }} of {{ $labels.group }} is blocked.',
              description: fold(|||
                Worker processes of {{ $labels.product }} group {{ $labels.group }} have reported destination
                {{ $labels.destination }} {{ with $labels.type }}({{ . }}) {{ end }}as blocked (blocked.outputs) in
                every window for %s: it accepts nothing, so its sources are held back, its persistent queue fills
                or its events are dropped, as its backpressure setting says.
              ||| % c.destinationBlockedFor),
            },
          },
          {
            alert: 'CriblPersistentQueueGrowing',
            // The largest queue a worker process reported in each window; its slope over 10 minutes, positive
            // throughout the `for`. A full queue stops growing: CriblDestinationBlocked or …Dropping speak then.
            expr: |||
              (
                deriv(cribl_destination_pq_queue_size_bytes[10m]) > 0
                or
                deriv(cribl_source_pq_queue_size_bytes[10m]) > 0
              )
              %s
              %s
              %s
            ||| % [unlessGroupDown, unlessLeaderDownFlow, unlessCollectorOff('throughput')],
            'for': c.persistentQueueGrowingFor,
            labels: { severity: 'warning' },
            annotations: {
              summary: fold(|||
                The persistent queue of {{ if $labels.destination }}destination {{ $labels.destination }}{{ else
                }}source {{ $labels.source }}{{ end }} ({{ $labels.group }}) keeps growing.
              |||),
              description: fold(|||
                The persistent queue of {{ $labels.product }} {{ if $labels.destination }}destination
                {{ $labels.destination }}{{ else }}source {{ $labels.source }}{{ end }} in group {{ $labels.group }}
                has grown for %s ({{ $value | humanize1024 }}B per second over the last 10 minutes,
                cribl_destination_pq_queue_size_bytes and cribl_source_pq_queue_size_bytes): data comes in faster
                than it leaves, and the queue's disk fills.
              ||| % c.persistentQueueGrowingFor),
            },
          },
          {
            alert: 'CriblWorkerHeartbeatLag',
            // Per Stream worker: silent while the node is disconnected (and so while its whole group is), and
            // while its leader is unreachable, as the node alerts are.
            expr: |||
              (cribl_node_worker_process_heartbeat_lag_seconds > %g)
              unless (cribl_node_connected == 0)
              %s
              %s
            ||| % [c.workerHeartbeatLagSeconds, unlessLeaderDown, unlessCollectorOff('throughput')],
            'for': c.workerHeartbeatLagFor,
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Worker processes of Cribl node {{ $labels.node_id }} ({{ $labels.group }}) lag on heartbeats.',
              description: fold(|||
                The slowest worker process of {{ $labels.product }} node {{ $labels.node_id }} in group
                {{ $labels.group }} has answered its heartbeat {{ $value | humanizeDuration }} late
                (system.max_worker_process_heartbeat_lag), over %g s for %s: it is overloaded or stalled, and
                the node may restart it.
              ||| % [c.workerHeartbeatLagSeconds, c.workerHeartbeatLagFor]),
            },
          },
          {
            alert: 'CriblGroupThroughputImbalance',
            // The recording rules of rules/rules.libsonnet (deploy/prometheus/rules.yaml): load both files.
            expr: |||
              (
                group:cribl_group_sent_events:rate5m / group:cribl_group_received_events:rate5m < %g
                and
                group:cribl_group_received_events:rate5m > 0
              )
              %s
              %s
              %s
            ||| % [
              c.groupThroughputImbalanceRatio,
              unlessGroupDown,
              unlessLeaderDownFlow,
              unlessCollectorOff('throughput'),
            ],
            'for': c.groupThroughputImbalanceFor,
            labels: { severity: 'warning' },
            annotations: {
              summary: '{{ $labels.product }} group {{ $labels.group }} sends much less than it receives.',
              description: fold(|||
                For %s {{ $labels.product }} group {{ $labels.group }} has sent {{ $value | humanizePercentage }} as
                many events as it received (total.out_events against total.in_events, under %g %%): events are
                dropped, queued or held back inside the group, unless its pipelines drop, sample or aggregate
                them by design.
              ||| % [c.groupThroughputImbalanceFor, c.groupThroughputImbalanceRatio * 100]),
            },
          },
        ],
      },
      // Config that does not run, and nodes the leader forgets (the groups listing with git.localChanges).
      {
        name: 'cribl-group-config',
        rules: [
          {
            alert: 'CriblGroupUncommittedChanges',
            expr: |||
              (cribl_group_uncommitted_changes > 0)
              %s
              %s
            ||| % [unlessLeaderDownGroup, unlessCollectorOff('groups')],
            'for': c.uncommittedChangesFor,
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Group {{ $labels.group }} has config changes that nobody committed.',
              description: fold(|||
                The leader has counted {{ $value }} local config changes of {{ $labels.product }} group
                {{ $labels.group }} that are not committed for over %s: they cannot be deployed, and a commit of
                anything else would carry them along unreviewed.
              ||| % c.uncommittedChangesFor),
            },
          },
          {
            alert: 'CriblGroupDeployStuck',
            expr: |||
              (cribl_group_deploying_workers > 0)
              %s
              %s
            ||| % [unlessLeaderDownGroup, unlessCollectorOff('groups')],
            'for': c.deployStuckFor,
            labels: { severity: 'warning' },
            annotations: {
              summary: 'A deploy to group {{ $labels.group }} does not finish.',
              description: fold(|||
                The leader has counted nodes of {{ $labels.product }} group {{ $labels.group }} as deploying for
                %s ({{ $value }} now): the deploy does not land on them.
              ||| % c.deployStuckFor),
            },
          },
          {
            alert: 'CriblGroupIncompatibleWorkers',
            expr: |||
              (cribl_group_incompatible_workers > 0)
              %s
              %s
            ||| % [unlessLeaderDownGroup, unlessCollectorOff('groups')],
            'for': c.incompatibleWorkersFor,
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Group {{ $labels.group }} has nodes incompatible with the leader.',
              description: fold(|||
                The leader has counted {{ $value }} nodes of {{ $labels.product }} group {{ $labels.group }} as
                incompatible with it (incompatibleWorkerCount) for %s: their Cribl version does not match the
                leader's, so they get no config.
              ||| % c.incompatibleWorkersFor),
            },
          },
          {
            alert: 'CriblGroupNodesRemoved',
            // The second half catches a counter that appears at its first removal: increase() needs two samples.
            expr: |||
              (
                increase(cribl_group_nodes_removed_total[1h]) > 0
                or
                (cribl_group_nodes_removed_total > 0 unless cribl_group_nodes_removed_total offset 1h)
              )
            |||,
            labels: { severity: 'warning' },
            annotations: {
              summary: 'The leader dropped nodes of {{ $labels.group }} that were disconnected.',
              description: fold(|||
                In the last hour the leader dropped {{ $value | printf "%.0f" }} disconnected node(s) of
                {{ $labels.product }} group {{ $labels.group }} from its listing (after maxWorkerAge): their own
                alerts resolved without them coming back.
              |||),
            },
          },
        ],
      },
      // The licence, and the leader's own disk and system messages (GET /system/licenses, /system/info,
      // /system/messages).
      {
        name: 'cribl-license-and-leader',
        rules: [
          {
            alert: 'CriblLicenseExpiringSoon',
            expr: |||
              (
                %s
                - time()
              ) < %d * 86400
              %s
            ||| % [nest(licenseExpiry, 2), c.licenseExpiryWarningDays, unlessCollectorOff('license')],
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'The Cribl licence of the leader watched by {{ $labels.instance }} expires soon.',
              description: fold(|||
                The last paid or trial licence of the leader {{ if lt $value 0.0 }}has expired{{ else }}expires in
                {{ $value | humanizeDuration }}{{ end }} (under %d days): when it does, the leader falls back to a
                free licence, or blocks incoming data.
              ||| % c.licenseExpiryWarningDays),
            },
          },
          {
            alert: 'CriblLicenseExpiryImminent',
            expr: |||
              (
                %s
                - time()
              ) < %d * 86400
              %s
            ||| % [nest(licenseExpiry, 2), c.licenseExpiryCriticalDays, unlessCollectorOff('license')],
            'for': '15m',
            labels: { severity: 'critical' },
            annotations: {
              summary: 'The Cribl licence of the leader watched by {{ $labels.instance }} is about to expire.',
              description: fold(|||
                The last paid or trial licence of the leader {{ if lt $value 0.0 }}has expired{{ else }}expires in
                {{ $value | humanizeDuration }}{{ end }} (under %d days): when it does, the leader falls back to a
                free licence, or blocks incoming data.
              ||| % c.licenseExpiryCriticalDays),
            },
          },
          {
            alert: 'CriblLicenseIngestNearQuota',
            expr: |||
              (
                cribl_license_usage_in_bytes
                / (
                  %s
                )
              ) > %g
              and (time() - cribl_license_usage_timestamp_seconds < 2 * 86400)
              %s
            ||| % [nest(licenseQuota, 4), c.licenseQuotaShare, unlessCollectorOff('license')],
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Cribl ingest of the leader watched by {{ $labels.instance }} nears its licence quota.',
              description: fold(|||
                The last complete day's billed ingest (inBytes minus exemptedLicenseInBytes) was
                {{ $value | humanizePercentage }} of the daily quota of the licences in force (more than %g %%).
              ||| % (c.licenseQuotaShare * 100)),
            },
          },
          {
            alert: 'CriblLeaderDiskLow',
            expr: |||
              (cribl_leader_disk_available_bytes / cribl_leader_disk_total_bytes < %g)
              %s
            ||| % [c.leaderDiskFreeShare, unlessCollectorOff('leader_info')],
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'The disk of the Cribl leader watched by {{ $labels.instance }} is almost full.',
              description: fold(|||
                Only {{ $value | humanizePercentage }} of the leader's disk (its config, git history and state) has
                been free for 15 minutes: when it fills, commits, deploys and the leader itself fail.
              |||),
            },
          },
          {
            alert: 'CriblLeaderErrorMessages',
            // The message's own severity moves to message_severity: `severity` is the alert's.
            expr: |||
              max without (severity) (
                label_replace(
                  time() - cribl_leader_message_last_timestamp_seconds{severity=~"error|fatal"},
                  "message_severity", "$1", "severity", "(.+)"
                )
              ) < %d
              %s
            ||| % [c.leaderMessageRecentSeconds, unlessCollectorOff('leader_messages')],
            labels: { severity: 'warning' },
            annotations: {
              summary: 'The Cribl leader watched by {{ $labels.instance }} posted a message of severity '
                       + '{{ $labels.message_severity }}.',
              description: fold(|||
                The leader's newest {{ $labels.message_severity }} system message (bulletin) is
                {{ $value | humanizeDuration }} old: read it among the leader's system messages in Cribl.
                cribl_leader_messages counts the messages it lists by severity.
              |||),
            },
          },
        ],
      },
      // The exporter's own collectors: what it cannot see.
      {
        name: 'cribl-exporter-collectors',
        rules: [
          {
            alert: 'CriblExporterCollectorRefused',
            // A collector refused on every route is off (one alert for it; not the licence, which Cribl.Cloud
            // refuses by design); one refused on some routes only stays on: one alert per refused route.
            expr: |||
              (
                (cribl_exporter_collector_enabled{collector!~"%s"} == 0)
                and ignoring (reason) (cribl_exporter_collector_failures_total{reason=~"unauthorized|forbidden"} > 0)
              )
              or
              (
                (cribl_exporter_endpoint_refused == 1)
                and ignoring (endpoint) (cribl_exporter_collector_enabled == 1)
              )
            ||| % c.collectorRefusedIgnored,
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Leader {{ $labels.leader }} refuses the {{ $labels.collector }} collector of cribl-exporter'
                       + '{{ if $labels.endpoint }} on {{ $labels.endpoint }}{{ end }}.',
              description: fold(|||
                {{ if $labels.endpoint }}The leader {{ $labels.leader }} answers the {{ $labels.collector }}
                collector's requests to {{ $labels.endpoint }} with 401 or 403: the collector stays on and exports
                what its other routes answer, but the metrics of that route are missing and the alerts on them
                cannot fire.{{ else }}The leader {{ $labels.leader }} answered the {{ $labels.collector }}
                collector's request with 401 or 403, so the exporter turned that collector off (it retries at the
                collector's interval): its metrics are missing and the alerts on them cannot fire.{{ end }} The
                exporter log names the endpoint and the permission it needs.
              |||),
            },
          },
          {
            alert: 'CriblExporterDataflowOverLimit',
            expr: 'cribl_exporter_dataflow_over_limit == 1',
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'cribl-exporter cuts the data-flow metrics of leader {{ $labels.leader }}.',
              description: fold(|||
                The destinations and sources of leader {{ $labels.leader }} need more series than
                --dataflow.max-series allows: {{ $labels.instance }} exports only part of them, so some
                destination and source alerts cannot fire.
              |||),
            },
          },
        ],
      },
      // Leader high availability (issue 49): the HA hosts' own /health (--leader.ha-url). The host families carry
      // the leader's target labels and `host`; the failover counter carries `leader`.
      {
        name: 'cribl-leader-ha',
        rules: [
          {
            alert: 'CriblLeaderNoPrimary',
            // Every watched host, answering or not, against those that say primary.
            expr: |||
              (
                count without (host, status) (cribl_leader_host_health_status == 1)
                or
                count without (host, reason) (cribl_leader_host_failure_info == 1)
              )
              unless
              count without (host, role) (cribl_leader_host_role_info{role="primary"} == 1)
            |||,
            'for': '2m',
            labels: { severity: 'critical' },
            annotations: {
              summary: 'No HA host of the Cribl leader watched by {{ $labels.instance }} is primary.',
              description: fold(|||
                For 2 minutes none of the leader's HA hosts has said it is primary (their /health answers standby,
                or they do not answer: cribl_leader_host_health_status, cribl_leader_host_failure_info): the
                control plane serves nobody, and the exporter holds its requests until a primary serves.
              |||),
            },
          },
          {
            alert: 'CriblLeaderMultiplePrimaries',
            expr: |||
              count without (host, role) (cribl_leader_host_role_info{role="primary"} == 1) > 1
            |||,
            'for': '1m',
            labels: { severity: 'critical' },
            annotations: {
              summary: 'Several HA hosts of the Cribl leader watched by {{ $labels.instance }} are primary.',
              description: fold(|||
                {{ $value }} HA hosts of the leader have said they are primary for a minute (split brain): they
                share one storage, and two primaries may write config and state over each other.
              |||),
            },
          },
          {
            alert: 'CriblLeaderFailover',
            expr: |||
              increase(cribl_exporter_leader_failovers_total[15m]) > 0
            |||,
            labels: { severity: 'warning' },
            annotations: {
              summary: 'The Cribl leader {{ $labels.leader }} failed over in the last 15 minutes.',
              description: fold(|||
                Another HA host of leader {{ $labels.leader }} became primary within the last 15 minutes
                (cribl_exporter_leader_failovers_total, as {{ $labels.instance }} saw it): find out why the old
                primary stopped, and check that it is a healthy standby now.
              |||),
            },
          },
          {
            alert: 'CriblLeaderHostUnavailable',
            expr: |||
              (cribl_leader_host_failure_info == 1)
              or
              (cribl_leader_host_health_status{status="shutting_down"} == 1)
            |||,
            'for': '10m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'HA host {{ $labels.host }} of the Cribl leader watched by {{ $labels.instance }} is not ready.',
              description: fold(|||
                Leader host {{ $labels.host }} has not answered its /health, or has answered shutting down, for
                10 minutes: it could not take over if the primary failed.
              |||),
            },
          },
        ],
      },
      {
        // Per-group equivalents of the node alerts, from the group aggregates every detail level exports
        // (docs/node-detail.md): the shares fire at every level, the counts only where a product is not in `full`
        // (there the node alerts name the nodes).
        name: 'cribl-fleets',
        rules: [
          {
            alert: 'CriblGroupNodesDisconnected',
            expr: |||
              (
                cribl_group_nodes{state="disconnected"}
                / ignoring (state) sum without (state) (cribl_group_nodes)
              ) > %s
              %s
            ||| % [c.groupDisconnectedShare, unlessLeaderDownGroup],
            'for': '10m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Many nodes of {{ $labels.product }} group {{ $labels.group }} are disconnected.',
              description: fold(|||
                The leader has listed {{ $value | humanizePercentage }} of the nodes of {{ $labels.product }}
                group {{ $labels.group }} as disconnected for 10 minutes (cribl_group_nodes).
              |||),
            },
          },
          {
            alert: 'CriblGroupNodesSilent',
            expr: |||
              (
                cribl_group_nodes_silent
                / ignoring (state) cribl_group_nodes{state="connected"}
              ) > %s
              %s
            ||| % [c.groupSilentShare, unlessLeaderDownGroup],
            'for': '5m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Many nodes of {{ $labels.product }} group {{ $labels.group }} are not heard from.',
              description: fold(|||
                {{ $value | humanizePercentage }} of the connected nodes of {{ $labels.product }} group
                {{ $labels.group }} have sent the leader no heartbeat for 3 heartbeat periods, for 5 minutes
                (cribl_group_nodes_silent).
              |||),
            },
          },
          {
            alert: 'CriblGroupNodesHealthFailing',
            expr: |||
              (
                sum without (status) (cribl_group_nodes_health{status=~"shutting_down|standby|unreachable"})
                / sum without (status) (cribl_group_nodes_health{status!="unknown"})
              ) > %s
              %s
              %s
            ||| % [c.groupUnhealthyShare, unlessFull, unlessLeaderDownGroup],
            'for': '10m',
            labels: { severity: 'critical' },
            annotations: {
              summary: 'Most polled nodes of {{ $labels.product }} group {{ $labels.group }} are not healthy.',
              description: fold(|||
                {{ $value | humanizePercentage }} of the nodes of {{ $labels.product }} group {{ $labels.group }}
                whose health was polled last answered other than healthy, or did not answer, for 10 minutes
                (cribl_group_nodes_health; the product's node detail is not full, so no node is named).
              |||),
            },
          },
          {
            alert: 'CriblGroupNodesConfigOutdated',
            expr: |||
              (cribl_group_nodes_config_outdated > 0)
              %s
              %s
            ||| % [unlessFull, unlessLeaderDownGroup],
            'for': c.nodeConfigOutdatedFor,
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Nodes of {{ $labels.product }} group {{ $labels.group }} do not run its config.',
              description: fold(|||
                {{ $value }} nodes of {{ $labels.product }} group {{ $labels.group }} have run another config
                version than the one the group deployed for %s (cribl_group_nodes_config_outdated).
              ||| % c.nodeConfigOutdatedFor),
            },
          },
          {
            alert: 'CriblGroupNodeUpgradesFailed',
            expr: |||
              (sum without (state) (cribl_group_nodes_upgrade_status{state="failed"}) > 0)
              %s
              %s
            ||| % [unlessFull, unlessLeaderDownGroup],
            'for': '5m',
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Upgrades of nodes of {{ $labels.product }} group {{ $labels.group }} failed.',
              description: fold(|||
                The leader reports the last upgrade of {{ $value }} nodes of {{ $labels.product }} group
                {{ $labels.group }} as failed, for 5 minutes (cribl_group_nodes_upgrade_status).
              |||),
            },
          },
          {
            alert: 'CriblGroupNodesRestarting',
            expr: |||
              (increase(cribl_group_node_restarts_total[1h]) >= %d)
              %s
              %s
            ||| % [c.groupRestartsPerHour, unlessFull, unlessLeaderDownGroup],
            labels: { severity: 'warning' },
            annotations: {
              summary: 'Nodes of {{ $labels.product }} group {{ $labels.group }} keep restarting.',
              description: fold(|||
                Nodes of {{ $labels.product }} group {{ $labels.group }} restarted {{ $value | printf "%.0f" }}
                times in the last hour (cribl_group_node_restarts_total).
              |||),
            },
          },
        ],
      },
    ], c.runbookURLPattern),
  },
}
