// The Grafana dashboard: fleet overview, groups and fleets, one node, the exporter and its leader budget.
// Every query uses only metric names of the contract in docs/ARCHITECTURE.md (test/deploy/metric-names.test.ts).
local g = import '../lib/grafana.libsonnet';

{
  grafanaDashboards+:: {
    local c = $._config,

    // Label matchers, from the widest to the narrowest selection.
    local clusterMatcher = if c.showMultiCluster then '%s=~"$cluster", ' % c.clusterLabel else '',
    local exporter = clusterMatcher + 'job=~"$job"',
    local fleet = exporter + ', product=~"$product", group=~"$group"',
    local node = exporter + ', node_id="$node_id"',
    local leader = exporter + ', leader=~"$leader"',
    local upDown = { up: { text: 'UP', color: 'green' }, down: { text: 'DOWN', color: 'red' } },
    local jobScope = if c.showMultiCluster then '{%s=~"$cluster"}' % c.clusterLabel else '',

    'cribl-exporter.json': {
      title: c.dashboardTitle,
      uid: c.dashboardUID,
      description: 'Cribl Stream and Edge fleet health through cribl-exporter: fleet overview, groups and fleets, '
                   + 'one node, and the exporter with its leader request budget.',
      tags: c.dashboardTags,
      editable: true,
      graphTooltip: 1,
      schemaVersion: 39,
      version: 1,
      refresh: c.dashboardRefresh,
      time: { from: c.dashboardPeriod, to: 'now' },
      timezone: '',
      annotations: {
        list: [{
          builtIn: 1,
          datasource: { type: 'grafana', uid: '-- Grafana --' },
          enable: true,
          hide: true,
          iconColor: 'rgba(0, 211, 255, 1)',
          name: 'Annotations & Alerts',
          type: 'dashboard',
        }],
      },
      links: [],

      templating: {
        list: [g.datasourceVariable]
              + (if c.showMultiCluster
                 then [g.queryVariable('cluster', 'Cluster', 'label_values(cribl_leader_up, %s)' % c.clusterLabel)]
                 else [])
              + [
                g.queryVariable('job', 'Job', 'label_values(cribl_leader_up%s, job)'
                                              % jobScope),
                g.queryVariable('product', 'Product', 'label_values(cribl_node_info{%s}, product)' % exporter),
                g.queryVariable('group',
                                'Group / fleet',
                                'label_values(cribl_node_info{%s, product=~"$product"}, group)' % exporter),
                g.queryVariable('node_id',
                                'Node',
                                'label_values(cribl_node_info{%s, product=~"$product", group=~"$group"}, node_id)'
                                % exporter,
                                multi=false),
                g.queryVariable('leader', 'Leader', 'label_values(cribl_exporter_nodes{%s}, leader)' % exporter),
              ],
      },

      panels: g.layout([
        g.row('Fleet overview'),
        g.stat('Leaders up',
               'min(cribl_leader_up{%s})' % exporter,
               mappings=[{ type: 'value', options: { '0': upDown.down, '1': upDown.up } }],
               description='Whether the last node discovery through each leader succeeded '
                           + '(the lowest of all selected leaders).'),
        g.stat('Nodes', 'count(cribl_node_info{%s})' % fleet, description='Worker and Edge nodes the leaders list.'),
        g.stat('Connected', 'sum(cribl_node_connected{%s})' % fleet),
        g.stat('Healthy',
               'sum(cribl_node_healthy{%s})' % fleet,
               description='Nodes whose last health check answered 200 healthy.'),
        g.stat('Disconnected', 'count(cribl_node_connected{%s} == 0) or vector(0)' % fleet, redFrom=1),
        g.stat('Not healthy',
               'count(cribl_node_healthy{%s} == 0) or vector(0)' % fleet,
               redFrom=1,
               description='Nodes that answered shutting down or standby, or did not answer.'),
        g.timeseries('Nodes', [
          ['count(cribl_node_info{%s})' % fleet, 'listed'],
          ['sum(cribl_node_connected{%s})' % fleet, 'connected'],
          ['sum(cribl_node_health_up{%s})' % fleet, 'answering health checks'],
          ['sum(cribl_node_healthy{%s})' % fleet, 'healthy'],
        ], w=12),
        g.timeseries('Versions',
                     [['count by (version) (cribl_node_info{%s})' % fleet, '{{version}}']],
                     w=12,
                     stacked=true,
                     description='Cribl version of the nodes.'),
        g.table('Nodes needing attention',
                [
                  '(cribl_node_healthy{%s} == 0) or (cribl_node_connected{%s} == 0)' % [fleet, fleet],
                  'cribl_node_poll_failure_info{%s}' % fleet,
                ],
                rename={ 'Value #A': 'healthy / connected', 'Value #B': 'poll failing' },
                description='Nodes not healthy or disconnected, and why their last health poll failed (reason).'),

        g.row('Groups and fleets'),
        g.table('Groups and fleets',
                [
                  'cribl_group_workers{%s}' % fleet,
                  'sum by (job, product, group) (cribl_node_healthy{%s})' % fleet,
                  'cribl_group_deploying_workers{%s}' % fleet,
                  'cribl_group_info{%s}' % fleet,
                ],
                hide={ 'Value #D': true },
                rename={ 'Value #A': 'workers', 'Value #B': 'healthy', 'Value #C': 'deploying', 'Value #D': 'info' }),
        g.timeseries('Healthy nodes per group',
                     [['sum by (product, group) (cribl_node_healthy{%s})' % fleet, '{{product}} / {{group}}']],
                     w=12),
        g.timeseries('Deploying workers per group',
                     [['cribl_group_deploying_workers{%s}' % fleet, '{{product}} / {{group}}']],
                     w=12,
                     description='Workers receiving a configuration deployment, as the leader reports.'),

        g.row('Node $node_id'),
        g.table('Node', [
          'cribl_node_info{%s}' % node,
          'cribl_node_config_info{%s}' % node,
          'cribl_node_metadata_info{%s}' % node,
        ], h=5, hide={ 'Value #A': true, 'Value #B': true, 'Value #C': true }),
        g.stateTimeline('Connected, answering, healthy', [
          ['cribl_node_connected{%s}' % node, 'connected'],
          ['cribl_node_health_up{%s}' % node, 'answering health checks'],
          ['cribl_node_healthy{%s}' % node, 'healthy'],
          ['cribl_node_deployable{%s}' % node, 'deployable'],
        ]),
        g.stateTimeline('Health status',
                        [['cribl_node_health_status{%s}' % node, '{{status}}']],
                        h=5,
                        description='The state the node reported: healthy, shutting_down or standby.'),
        g.stat('Uptime', 'time() - cribl_node_start_timestamp_seconds{%s}' % node, unit='s'),
        g.stat('Last heartbeat',
               'time() - cribl_node_last_heartbeat_timestamp_seconds{%s}' % node,
               unit='s',
               description='Seconds since the leader last heard from the node.'),
        g.stat('First heartbeat',
               'cribl_node_first_heartbeat_timestamp_seconds{%s} * 1000' % node,
               unit='dateTimeFromNow'),
        g.stat('Health data age', 'time() - cribl_node_health_last_success_timestamp_seconds{%s}' % node, unit='s'),
        g.stat('Metadata age', 'time() - cribl_node_metadata_last_success_timestamp_seconds{%s}' % node, unit='s'),
        g.stat('Worker processes', 'cribl_node_worker_processes{%s}' % node),
        g.stat('CPUs', 'cribl_node_cpus{%s}' % node),
        g.stat('Memory', 'cribl_node_memory_bytes{%s}' % node, unit='bytes'),
        g.timeseries('Disk', [
          ['cribl_node_disk_free_bytes{%s}' % node, 'free'],
          ['cribl_node_disk_total_bytes{%s}' % node, 'total'],
        ], w=8, h=4, unit='bytes'),
        g.table('Last health poll failure', ['cribl_node_poll_failure_info{%s}' % node], w=8, h=4),

        g.row('Exporter and leader budget'),
        g.timeseries('Requests to the leader', [[
          'sum by (leader, endpoint) (rate(cribl_exporter_leader_requests_total{%s}[$__rate_interval]))' % leader,
          '{{leader}} {{endpoint}}',
        ]], w=8, unit='reqps', stacked=true),
        g.timeseries('Answers by code', [[
          'sum by (leader, code) (rate(cribl_exporter_leader_requests_total{%s}[$__rate_interval]))' % leader,
          '{{leader}} {{code}}',
        ]], w=8, unit='reqps', stacked=true),
        g.timeseries('Throttled by the leader', [[
          'sum by (leader, code) (rate(cribl_exporter_leader_throttled_total{%s}[$__rate_interval]))' % leader,
          '{{leader}} {{code}}',
        ]], w=8, unit='reqps', description='Answers 429, 503 or 420: the exporter backs off.'),
        g.timeseries('Leader latency', [
          [
            'histogram_quantile(%s, sum by (leader, endpoint, le) ' % q[0]
            + '(rate(cribl_exporter_leader_request_duration_seconds_bucket{%s}[$__rate_interval])))' % leader,
            '%s {{leader}} {{endpoint}}' % q[1],
          ]
          for q in [['0.5', 'p50'], ['0.99', 'p99']]
        ], w=8, unit='s'),
        g.timeseries('Concurrency', [
          ['cribl_exporter_leader_concurrency_limit{%s}' % leader, 'limit {{leader}}'],
          ['cribl_exporter_leader_in_flight_requests{%s}' % leader, 'in flight {{leader}}'],
          ['cribl_exporter_leader_paused{%s}' % leader, 'paused {{leader}}'],
        ], w=8, description='AIMD concurrency limit against requests in flight; '
                          + 'paused is 1 while the leader asked us to wait.'),
        g.timeseries('Pause remaining', [
          ['clamp_min(cribl_exporter_leader_pause_until_timestamp_seconds{%s} - time(), 0)' % leader, '{{leader}}'],
        ], w=8, unit='s'),
        g.timeseries('Health cycle',
                     [
                       ['cribl_exporter_health_cycle_duration_seconds{%s}' % leader, 'last cycle {{leader}}'],
                       ['cribl_exporter_health_cycle_target_seconds{%s}' % leader, 'target {{leader}}'],
                     ],
                     w=8,
                     unit='s',
                     description='Time one round of health polls over all nodes took, '
                                 + 'against its target (--health.interval).'),
        g.timeseries('Discovery duration',
                     [['cribl_exporter_discovery_duration_seconds{%s}' % leader, '{{leader}}']],
                     w=8,
                     unit='s'),
        g.timeseries('Nodes exported', [
          ['cribl_exporter_nodes{%s}' % leader, 'exported {{leader}}'],
          ['cribl_exporter_nodes_over_limit{%s}' % leader, 'over --max-nodes {{leader}}'],
        ], w=8),
        g.timeseries('Token lifetime left', [
          ['cribl_exporter_auth_token_expiry_timestamp_seconds{%s} - time()' % leader, '{{leader}} {{mode}}'],
        ], w=8, unit='s'),
        g.timeseries('Authentication failures', [[
          'sum by (leader, mode, reason) (rate(cribl_exporter_auth_failures_total{%s}[$__rate_interval]))' % leader,
          '{{leader}} {{mode}} {{reason}}',
        ]], w=8, unit='reqps'),
        g.timeseries('Exporter process', [
          ['process_resident_memory_bytes{%s}' % exporter, 'memory {{instance}}'],
          ['nodejs_heap_size_used_bytes{%s}' % exporter, 'heap {{instance}}'],
        ], w=8, unit='bytes'),
        g.timeseries('Exporter CPU',
                     [['rate(process_cpu_seconds_total{%s}[$__rate_interval])' % exporter, '{{instance}}']],
                     w=8,
                     unit='percentunit'),
        g.timeseries('Event loop lag p99',
                     [['nodejs_eventloop_lag_p99_seconds{%s}' % exporter, '{{instance}}']],
                     w=8,
                     unit='s'),
        g.timeseries('Scrape', [
          ['scrape_duration_seconds{%s}' % exporter, 'duration {{instance}}'],
          ['up{%s}' % exporter, 'up {{instance}}'],
        ], w=8, unit='s'),
        g.table('Exporters',
                [
                  'cribl_exporter_build_info{%s}' % exporter,
                  'cribl_exporter_shard_index{%s}' % exporter,
                  'cribl_exporter_shard_total{%s}' % exporter,
                  'cribl_exporter_web_config_last_reload_successful{%s}' % exporter,
                ],
                h=6,
                hide={ 'Value #A': true },
                rename={ 'Value #B': 'shard index', 'Value #C': 'shard total', 'Value #D': 'web config loaded' }),
      ]),
    },
  },
}
