// Settings of the cribl-exporter mixin. Override any of them when you import the mixin:
//   (import 'mixin.libsonnet') + { _config+:: { criblExporterSelector: 'job="cribl"' } }
{
  _config+:: {
    // Selects the exporter's own scrape job(s) in `up` (CriblExporterDown). The cribl_* series need no selector:
    // only this exporter exports them. The default matches the ServiceMonitor's job (the Service name,
    // cribl-exporter or cribl-exporter-sidecar) and a PodMonitor's (<namespace>/cribl-exporter-sidecar).
    criblExporterSelector: 'job=~".*cribl-exporter.*"',

    // The label that tells clusters apart when one Prometheus (or Thanos, Mimir) sees several. Alerts that
    // aggregate across exporters group by it; the dashboard gets a variable for it. A label absent from every
    // series changes nothing: the grouping is as without it and the variable's "All" matches every series.
    clusterLabel: 'cluster',
    // false: no cluster variable on the dashboard and no cluster matcher in its queries.
    showMultiCluster: true,

    // Every alert's runbook_url is runbookURLPattern with the alert name in lower case (the heading anchor of
    // its section in docs/runbook.md). The default is the repository package.json names; point it at your own
    // copy of the runbook (a wiki, a fork) by overriding runbookURLPattern or repositoryURL.
    repositoryURL: 'https://github.com/cribl-exporter/cribl-exporter',
    runbookURLPattern: self.repositoryURL + '/blob/main/docs/runbook.md#%s',

    // Staleness thresholds of the node alerts, in seconds. They assume the default intervals (discovery 60s,
    // health 30s, metadata 10m): raise them if you poll less often.
    nodeHeartbeatStaleSeconds: 300,
    nodeHealthDataStaleSeconds: 900,
    nodeMetadataStaleSeconds: 3600,

    // Signals beyond "is the node up" (issue 12).
    // A node on another config than its group deployed pages after this: longer than a deploy takes. Not gated on
    // cribl_group_deploying_workers, which keeps counting a node that never takes the config (a stuck deploy).
    nodeConfigOutdatedFor: '30m',
    // Restarts seen within an hour that make a restart loop.
    nodeRestartLoopCount: 3,
    // Commits not deployed for this long page (info for the group's owner: config that does not run).
    undeployedCommitsFor: '24h',
    // Share of a group's nodes not healthy above which the group pages once (and its node alerts are inhibited).
    groupUnhealthyShare: 0.5,
    // Per-group equivalents of the node alerts (node detail basic or minimal; docs/node-detail.md): the share of a
    // group's nodes disconnected, the share of its connected nodes silent (no heartbeat for 3 periods), and the
    // restarts of its nodes within an hour, above which the group pages.
    groupDisconnectedShare: 0.1,
    groupSilentShare: 0.1,
    groupRestartsPerHour: 10,

    // Data flow, config, the licence and the leader's own vitals (issue 39).
    // How long a destination stays red (critical) or yellow (warning), a source red, a persistent queue not
    // green, before they page. Shorter than a deploy's restarts of worker processes would page on every deploy.
    destinationRedFor: '5m',
    destinationYellowFor: '30m',
    sourceRedFor: '10m',
    persistentQueueNotGreenFor: '15m',
    // Local config changes (git.localChanges) not committed for this long page the group's owner.
    uncommittedChangesFor: '24h',
    // A deploy that still counts deploying workers after this is stuck.
    deployStuckFor: '30m',
    // Nodes the leader counts as incompatible with it, for longer than an upgrade rollout takes.
    incompatibleWorkersFor: '30m',
    // Days before the last paid or trial licence expires: warning, then critical.
    licenseExpiryWarningDays: 14,
    licenseExpiryCriticalDays: 3,
    // Share of the daily quota that the last complete day's billed ingest may reach.
    licenseQuotaShare: 0.9,
    // Share of the leader's disk that must stay free.
    leaderDiskFreeShare: 0.1,
    // An error or fatal bulletin younger than this pages.
    leaderMessageRecentSeconds: 900,
    // Collectors whose refusal is expected somewhere and pages nowhere (a regular expression on `collector`):
    // Cribl.Cloud leaders refuse the licence endpoints by design.
    collectorRefusedIgnored: 'license',

    // Data in motion (issue 48): the leader's metrics store, read by the throughput collector. Its counters step
    // once per window (--throughput.interval, 60s by default), so every rate and increase spans several windows.
    // A source that received events in the `sourceSilentLookback` before the last `sourceSilentWindow` and none in
    // that window pages once the silence has lasted `sourceSilentFor` more (10m + 5m: 15 minutes without events;
    // the `for` also rides out the minute after a leader or a group comes back, before the next window lands).
    sourceSilentWindow: '10m',
    sourceSilentFor: '5m',
    sourceSilentLookback: '1h',
    // How long a destination drops events (a 5m rate above 0), or reports itself blocked, before it pages.
    destinationDroppingFor: '10m',
    destinationBlockedFor: '5m',
    // How long a persistent queue's size keeps a positive slope (deriv over 10m) before it pages.
    persistentQueueGrowingFor: '30m',
    // A Stream worker whose worker processes answer its heartbeat later than this, for that long, pages.
    workerHeartbeatLagSeconds: 10,
    workerHeartbeatLagFor: '5m',
    // A group that sends fewer events than this share of those it receives, for that long, pages. Pipelines that
    // drop, sample or aggregate by design send less than they receive: lower the share, or silence such groups.
    groupThroughputImbalanceRatio: 0.5,
    groupThroughputImbalanceFor: '15m',

    // The Grafana dashboard.
    dashboardUID: 'cribl-exporter',
    dashboardTitle: 'Cribl fleet (cribl-exporter)',
    dashboardTags: ['cribl', 'cribl-exporter'],
    dashboardRefresh: '1m',
    dashboardPeriod: 'now-6h',
  },
}
