// Recording rules: fleet roll-ups that are cheap to graph and to alert on over long ranges. Names follow
// level:metric:operations. `without` keeps job, instance, the cluster label and any leader target labels
// (e.g. workspace), so several clusters, leaders or exporter replicas never get summed into one series.
// Each one needs a promql_expr_test in deploy/prometheus/tests/recording.test.yaml.
{
  prometheusRules+:: {
    groups+: [
      {
        name: 'cribl-exporter.recording',
        rules: [
          {
            record: 'group:cribl_node_info:count',
            expr: 'count without (node_id, hostname, version, platform, arch) (cribl_node_info)',
          },
          {
            record: 'group:cribl_node_connected:sum',
            expr: 'sum without (node_id) (cribl_node_connected)',
          },
          {
            record: 'group:cribl_node_healthy:sum',
            expr: 'sum without (node_id) (cribl_node_healthy)',
          },
          {
            record: 'group:cribl_node_health_up:sum',
            expr: 'sum without (node_id) (cribl_node_health_up)',
          },
          {
            record: 'version:cribl_node_info:count',
            expr: 'count without (node_id, hostname, platform, arch) (cribl_node_info)',
          },
          {
            record: 'leader:cribl_exporter_leader_requests:rate5m',
            expr: 'sum without (endpoint, code) (rate(cribl_exporter_leader_requests_total[5m]))',
          },
          {
            record: 'leader:cribl_exporter_leader_throttled:rate5m',
            expr: 'sum without (code) (rate(cribl_exporter_leader_throttled_total[5m]))',
          },
          {
            record: 'leader_endpoint:cribl_exporter_leader_request_duration_seconds:p99_5m',
            expr: 'histogram_quantile(0.99, rate(cribl_exporter_leader_request_duration_seconds_bucket[5m]))',
          },
          // Events per second in, out and dropped per group or fleet (the throughput collector, issue 48). Its
          // counters step once per window (60s by default): 5 minutes hold about five steps, and in and out step
          // together, so their ratio (CriblGroupThroughputImbalance) does not jitter with the window's phase.
          {
            record: 'group:cribl_group_received_events:rate5m',
            expr: 'rate(cribl_group_received_events_total[5m])',
          },
          {
            record: 'group:cribl_group_sent_events:rate5m',
            expr: 'rate(cribl_group_sent_events_total[5m])',
          },
          {
            record: 'group:cribl_group_dropped_events:rate5m',
            expr: 'rate(cribl_group_dropped_events_total[5m])',
          },
        ],
      },
    ],
  },
}
