import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { leftToFirstRun } from '../helpers/repeat.js';
import { loadRuleGroups, ROOT, RULE_FILES, RUNBOOK_URL, type Rule } from './prometheusrule.js';
import { runAsync, skipWithout, toolTimeouts } from './tools.js';

// promtool: see TOOL_TIMEOUT_MS.
toolTimeouts();

const TESTS_DIR = 'deploy/prometheus/tests';
const testFiles = readdirSync(join(ROOT, TESTS_DIR))
  .filter((f) => f.endsWith('.test.yaml'))
  .map((f) => `${TESTS_DIR}/${f}`);

const rules = loadRuleGroups().flatMap((g) => g.rules);
const alerts = rules.filter((r): r is Rule & { alert: string } => r.alert !== undefined);
const records = rules.filter((r) => r.record !== undefined).map((r) => r.record!);

interface UnitTests {
  tests: {
    alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[];
    promql_expr_test?: { expr: string }[];
  }[];
}
const unitTests = testFiles.flatMap((f) => (parse(readFileSync(join(ROOT, f), 'utf8')) as UnitTests).tests);
const alertCases = unitTests.flatMap((t) => t.alert_rule_test ?? []);

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to dashes. */
function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const runbook = readFileSync(join(ROOT, 'docs/runbook.md'), 'utf8');
const runbookAnchors = new Set([...runbook.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => githubSlug(m[1]!)));

describe('githubSlug', () => {
  it.each([
    ['CriblExporterDown', 'criblexporterdown'],
    ['Exporter down (CriblExporterDown)', 'exporter-down-criblexporterdown'],
    [' Leader: throttling us ', 'leader-throttling-us'],
  ])('%s → %s', (heading, slug) => expect(githubSlug(heading)).toBe(slug));
});

describe.each(alerts.map((a) => [a.alert, a] as const))('alert %s', (alertname, a) => {
  it('has a severity, a summary, a description and an absolute runbook_url to a section that exists', () => {
    expect(['critical', 'warning', 'info']).toContain(a.labels?.severity);
    expect(a.annotations?.summary).toMatch(/\S/);
    expect(a.annotations?.description).toMatch(/\S/);
    // Absolute, so that the link works from Alertmanager, Grafana and a pager: the repository's docs/runbook.md.
    expect(a.annotations?.runbook_url).toBe(`${RUNBOOK_URL}#${alertname.toLowerCase()}`);
    expect(new URL(a.annotations!.runbook_url!).protocol).toBe('https:');
    expect(runbookAnchors).toContain(alertname.toLowerCase());
  });

  it('has promtool cases where it fires and where it does not', () => {
    const cases = alertCases.filter((c) => c.alertname === alertname);
    expect(
      cases.some((c) => (c.exp_alerts ?? []).length > 0),
      'a firing case',
    ).toBe(true);
    expect(
      cases.some((c) => (c.exp_alerts ?? []).length === 0),
      'a quiet case',
    ).toBe(true);
  });

  if (alertname.startsWith('CriblNode')) {
    it('stays quiet while the leader is unreachable', () => {
      expect(a.expr).toMatch(/unless ignoring \(product, group, node_id\) \(cribl_leader_up == 0\)\s*$/);
    });
  }
});

// Where a family comes from, for the families of optional collectors (the ones a refusal or a 404 turns off).
const OPTIONAL_FAMILIES: readonly [RegExp, string][] = [
  [/^cribl_leader_git_/, 'git_settings'],
  [/^cribl_search_probe_/, 'search'],
  [/^cribl_group_(undeployed_commits|last_commit_timestamp_seconds)$/, 'group_version'],
  [/^cribl_group_(uncommitted_changes|deploying_workers|incompatible_workers)$/, 'groups'],
  [/^cribl_group_pack_/, 'packs'],
  [/^cribl_workspace_/, 'workspaces'],
  // The throughput collector's (the leader's metrics store), before the data-flow collector's prefixes.
  [/^cribl_group_(received|sent|dropped)_/, 'throughput'],
  [/^cribl_destination_(sent_|dropped_|blocked$|backpressure$|pq_queue_size_)/, 'throughput'],
  [/^cribl_source_(received_|pq_queue_size_)/, 'throughput'],
  [/^cribl_node_(memory_free_bytes|load_average|worker_process_heartbeat_lag_seconds|received_|sent_)/, 'throughput'],
  [/^cribl_(destination|source)_/, 'dataflow'],
  [/^cribl_license_limit$/, 'leader_info'],
  [/^cribl_license_/, 'license'],
  [/^cribl_leader_(info|disk_|memory_|uptime_)/, 'leader_info'],
  [/^cribl_leader_message/, 'leader_messages'],
];

describe('alerts on optional collectors', () => {
  const collectorOf = (family: string): string | undefined => OPTIONAL_FAMILIES.find(([re]) => re.test(family))?.[1];

  it.each(alerts.map((a) => [a.alert, a] as const))('%s is silent where a collector it reads is off', (_, a) => {
    const collectors = new Set([...a.expr.matchAll(/\bcribl_[a-z_]+\b/g)].flatMap((m) => collectorOf(m[0]) ?? []));
    for (const c of collectors) {
      const off = `cribl_exporter_collector_enabled{collector="${c}"} == 0`;
      // One leader: on the exporter. Several: on the exporter and the leader, never one leader's for another's.
      expect(a.expr, c).toContain(`unless on (cluster, job, instance) ((${off}) and on (cluster, job, instance) (`);
      expect(a.expr, c).toContain(`unless on (cluster, job, instance, leader) (${off})`);
    }
  });

  it('are held back by the collectors they read: these', () => {
    const read = new Set(alerts.flatMap((a) => [...a.expr.matchAll(/collector="(\w+)"\} == 0/g)].map((m) => m[1])));
    expect([...read].sort()).toEqual([
      'dataflow',
      'git_settings',
      'group_version',
      'groups',
      'leader_info',
      'leader_messages',
      'license',
      'search',
      'throughput',
      'workspaces',
    ]);
  });
});

describe('data-flow alerts', () => {
  it.each(
    alerts
      .filter((a) => /^Cribl(Destination|Source|PersistentQueue|GroupThroughput)/.test(a.alert))
      .map((a) => [a.alert, a] as const),
  )('%s stays quiet while its group has no node connected and while its leader is unreachable', (_, a) => {
    expect(a.expr).toContain(
      'unless ignoring (destination, source, type, state) (max without (node_id) (cribl_node_connected) == 0)',
    );
    expect(a.expr).toContain(
      'unless ignoring (product, group, destination, source, type, state) (cribl_leader_up == 0)',
    );
  });
});

describe('worker alerts', () => {
  it.each(alerts.filter((a) => a.alert.startsWith('CriblWorker')).map((a) => [a.alert, a] as const))(
    '%s stays quiet while its node is disconnected (so while its group has none connected) and its leader is down',
    (_, a) => {
      expect(a.expr).toContain('unless (cribl_node_connected == 0)');
      expect(a.expr).toContain('unless ignoring (product, group, node_id) (cribl_leader_up == 0)');
    },
  );
});

describe('recording rules', () => {
  it.each(records)('%s has a promtool case', (record) => {
    const tested = unitTests.flatMap((t) => t.promql_expr_test ?? []).map((c) => c.expr);
    expect(tested).toContain(record);
  });
});

describe('Alertmanager inhibition', () => {
  const file = 'deploy/alertmanager/inhibit-rules.yaml';
  interface Inhibit {
    source_matchers: string[];
    target_matchers: string[];
    equal: string[];
  }
  const inhibit = (parse(readFileSync(join(ROOT, file), 'utf8')) as { inhibit_rules: Inhibit[] }).inhibit_rules;
  const names = alerts.map((a) => a.alert);

  /** The alerts an `alertname` matcher selects (anchored like Alertmanager's). */
  const selected = (matchers: string[]): string[] => {
    const m = matchers.map((s) => /^alertname\s*(=~|=)\s*"?([^"]*)"?$/.exec(s.trim())).find((x) => x !== null);
    if (!m) return [];
    return m[1] === '=' ? names.filter((n) => n === m[2]) : names.filter((n) => new RegExp(`^(?:${m[2]})$`).test(n));
  };

  it.each(inhibit.map((r, i) => [i, r] as const))('rule %i names alerts that exist', (_, r) => {
    expect(selected(r.source_matchers)).toHaveLength(1);
    expect(selected(r.target_matchers).length).toBeGreaterThan(0);
    // Without a shared job, one exporter's alert would silence every other exporter's.
    expect(r.equal).toContain('job');
  });

  it('lets one leader outage hold back every node alert', () => {
    const rule = inhibit.find((r) => selected(r.source_matchers)[0] === 'CriblLeaderUnreachable');
    expect(selected(rule?.target_matchers ?? []).sort()).toEqual(names.filter((n) => n.startsWith('CriblNode')).sort());
  });

  it('lets a group that pages as a whole hold back the node alerts of that group only', () => {
    const rule = inhibit.find((r) => selected(r.source_matchers)[0] === 'CriblGroupNodesUnhealthy');
    expect(selected(rule?.target_matchers ?? [])).toEqual(
      expect.arrayContaining(['CriblNodeUnhealthy', 'CriblNodeHealthUnreachable', 'CriblNodeConfigOutdated']),
    );
    expect(rule?.equal).toEqual(expect.arrayContaining(['job', 'instance', 'product', 'group']));
  });

  // Data flow (issue 39) and data in motion (issue 48).
  const dataflow = names.filter((n) => /^Cribl(Destination|Source|PersistentQueue|Worker|GroupThroughput)/.test(n));
  /** The rule whose source is `source` and whose targets include a data-flow alert. */
  const dataflowRule = (source: string): Inhibit | undefined =>
    inhibit.find(
      (r) => selected(r.source_matchers)[0] === source && selected(r.target_matchers).some((t) => dataflow.includes(t)),
    );

  it('lets one leader outage hold back every data-flow alert of that leader', () => {
    expect(dataflow.length).toBe(10);
    const rule = dataflowRule('CriblLeaderUnreachable');
    expect(selected(rule?.target_matchers ?? []).sort()).toEqual([...dataflow].sort());
    expect(rule?.equal).toEqual(expect.arrayContaining(['job', 'instance', 'workspace', 'leader']));
  });

  it('lets a group that pages as a whole hold back the data-flow alerts of that group only', () => {
    const rule = dataflowRule('CriblGroupNodesUnhealthy');
    expect(selected(rule?.target_matchers ?? []).sort()).toEqual([...dataflow].sort());
    expect(rule?.equal).toEqual(expect.arrayContaining(['job', 'instance', 'workspace', 'leader', 'product', 'group']));
  });

  it('lets a blocked destination hold back its own drops and queue growth, and a red source its silence', () => {
    const blocked = inhibit.find((r) => selected(r.source_matchers)[0] === 'CriblDestinationBlocked');
    expect(selected(blocked?.target_matchers ?? []).sort()).toEqual([
      'CriblDestinationDropping',
      'CriblPersistentQueueGrowing',
    ]);
    expect(blocked?.equal).toEqual(expect.arrayContaining(['job', 'instance', 'leader', 'group', 'destination']));
    const red = inhibit.find(
      (r) => selected(r.source_matchers)[0] === 'CriblSourceRed' && selected(r.target_matchers).length === 1,
    );
    expect(selected(red?.target_matchers ?? [])).toEqual(['CriblSourceSilent']);
    expect(red?.equal).toEqual(expect.arrayContaining(['job', 'instance', 'leader', 'group', 'source']));
  });

  it('lets a licence about to expire page once, as critical', () => {
    const rule = inhibit.find((r) => selected(r.source_matchers)[0] === 'CriblLicenseExpiryImminent');
    expect(selected(rule?.target_matchers ?? [])).toEqual(['CriblLicenseExpiringSoon']);
    expect(rule?.equal).toEqual(expect.arrayContaining(['job', 'instance', 'workspace']));
  });

  it('is shown in docs/deploy.md as it is in the file', () => {
    const docs = readFileSync(join(ROOT, 'docs/deploy.md'), 'utf8');
    const blocks = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) =>
      parseAllDocuments(m[1]!).map((d) => d.toJS() as unknown),
    );
    expect(blocks.flat()).toContainEqual({ inhibit_rules: inhibit });
  });
});

describe.skipIf(skipWithout('promtool') || leftToFirstRun('promtool check/test rules'))('promtool', () => {
  it('check rules: every rule file is valid', async () => {
    const r = await runAsync('promtool', ['check', 'rules', ...RULE_FILES], ROOT);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`SUCCESS: ${alerts.length} rules found`);
    expect(r.stdout).toContain(`SUCCESS: ${records.length} rules found`);
  });

  // One promtool per file: the whole set takes about 35 s of CPU, a minute or more on a loaded machine.
  it('test rules: every unit test passes', async () => {
    for (const file of testFiles) {
      const r = await runAsync('promtool', ['test', 'rules', file], ROOT);
      expect(r.status, `${file}: ${r.stdout}${r.stderr}`).toBe(0);
      expect(r.stdout.match(/SUCCESS/g), file).toHaveLength(1);
    }
  });
});
