import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { leftToFirstRun } from '../helpers/repeat.js';
import { loadRuleGroups, repositoryUrl, ROOT, RUNBOOK_URL, type RuleGroup } from './prometheusrule.js';
import { run, runAsync, skipWithout, toolTimeouts } from './tools.js';

// Debian's jsonnet takes seconds per evaluation of the mixin: see TOOL_TIMEOUT_MS.
toolTimeouts();

const MIXIN = 'deploy/mixin';

/** Every jsonnet source of the mixin, relative to the repository root. */
function sources(dir = join(ROOT, MIXIN)): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : /\.(lib)?sonnet$/.test(e.name)
        ? [relative(ROOT, join(dir, e.name))]
        : [],
  );
}

/** Evaluates a jsonnet expression with deploy/mixin on the import path; `mixin` is the mixin with `config`. */
async function evaluate<T>(expr: string, config = '{}'): Promise<T> {
  const code = `local mixin = (import 'mixin.libsonnet') + { _config+:: ${config} }; ${expr}`;
  const r = await runAsync('jsonnet', ['-J', MIXIN, '-e', code], ROOT);
  if (r.status !== 0) throw new Error(`jsonnet: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

interface Dashboard {
  templating: { list: { name: string; query?: string | { query: string } }[] };
  panels: { type: string; targets?: { expr: string }[] }[];
}
const dashboardOf = (config = '{}'): Promise<Dashboard> =>
  evaluate<Dashboard>("mixin.grafanaDashboards['cribl-exporter.json']", config);
const alertsOf = async (config = '{}'): Promise<RuleGroup[]> =>
  (await evaluate<{ groups: RuleGroup[] }>('mixin.prometheusAlerts', config)).groups;
const exprs = (d: Dashboard): string[] => d.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
const variable = (d: Dashboard, name: string): string | undefined => {
  const q = d.templating.list.find((v) => v.name === name)?.query;
  return typeof q === 'string' ? q : q?.query;
};

const noJsonnet = skipWithout('jsonnet');
if (noJsonnet) console.warn('mixin tests skipped: jsonnet is not installed (apt-get install jsonnet)');
const missing = noJsonnet || leftToFirstRun('mixin tests (jsonnet)');

describe.skipIf(missing)('monitoring mixin (deploy/mixin)', () => {
  const out = mkdtempSync(join(tmpdir(), 'mixin-build-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it(
    'generates exactly the committed rules, PrometheusRule and ' + 'dashboard (npm run mixin regenerates them)',
    async () => {
      const r = await runAsync('node', ['scripts/mixin-build.mjs', out], ROOT);
      expect(r.status, r.stderr).toBe(0);
      const written = [...r.stdout.matchAll(/^mixin-build: wrote (\S+)$/gm)].map((m) => m[1]!).sort();
      expect(written).toEqual([
        'deploy/grafana/cribl-exporter.json',
        'deploy/kubernetes/common/prometheusrule.yaml',
        'deploy/prometheus/alerts.yaml',
        'deploy/prometheus/rules.yaml',
      ]);
      for (const file of written) {
        expect(readFileSync(join(ROOT, file), 'utf8'), `${file} differs from a fresh \`npm run mixin\``).toBe(
          readFileSync(join(out, file), 'utf8'),
        );
      }
    },
  );

  it.each(sources())('%s is formatted as jsonnetfmt formats it', (file) => {
    const r = run('jsonnetfmt', ['--test', file], ROOT);
    expect(r.status, `run: jsonnetfmt -i ${file}`).toBe(0);
  });

  it('points runbook_url at the repository package.json names, by default', async () => {
    expect(await evaluate<string>('mixin._config.repositoryURL')).toBe(repositoryUrl());
    const urls = (await alertsOf()).flatMap((g) => g.rules.map((r) => r.annotations?.runbook_url));
    expect(urls.length).toBe(loadRuleGroups().flatMap((g) => g.rules.filter((r) => r.alert)).length);
    for (const u of urls) expect(u).toMatch(new RegExp(`^${RUNBOOK_URL.replace(/[.]/g, '\\.')}#[a-z]+$`));
  });

  it('takes the runbook base, the job selector and the cluster label from _config', async () => {
    const groups =
      await alertsOf(`{ repositoryURL: 'https://git.example.com/mirror', criblExporterSelector: 'job="cribl"',
      clusterLabel: 'k8s_cluster' }`);
    const rules = groups.flatMap((g) => g.rules);
    for (const r of rules) {
      const anchor = r.alert!.toLowerCase();
      expect(r.annotations?.runbook_url).toBe(`https://git.example.com/mirror/blob/main/docs/runbook.md#${anchor}`);
    }
    expect(rules.find((r) => r.alert === 'CriblExporterDown')?.expr).toBe('up{job="cribl"} == 0');
    const expr = (name: string): string | undefined => rules.find((r) => r.alert === name)?.expr;
    expect(expr('CriblExporterShardingMismatch')).toContain('by (k8s_cluster, namespace, job)');
    expect(expr('CriblExporterShardsMissing')).toContain('on (k8s_cluster, namespace, job)');

    const pattern = (await alertsOf(`{ runbookURLPattern: 'https://wiki.example.com/cribl/%s' }`)).flatMap(
      (g) => g.rules,
    )[0];
    expect(pattern?.annotations?.runbook_url).toBe('https://wiki.example.com/cribl/criblexporterdown');
  });

  it(
    'gives the dashboard a cluster variable that every query honours, ' + 'or none with showMultiCluster: false',
    async () => {
      const multi = await dashboardOf(`{ clusterLabel: 'k8s_cluster' }`);
      expect(variable(multi, 'cluster')).toBe('label_values(cribl_leader_up, k8s_cluster)');
      expect(variable(multi, 'job')).toBe('label_values(cribl_leader_up{k8s_cluster=~"$cluster"}, job)');
      expect(exprs(multi).length).toBeGreaterThan(40);
      for (const e of exprs(multi)) expect(e).toContain('k8s_cluster=~"$cluster"');

      const single = await dashboardOf('{ showMultiCluster: false }');
      expect(variable(single, 'cluster')).toBeUndefined();
      for (const e of exprs(single)) expect(e).not.toContain('$cluster');
      // The shipped dashboard is the multi-cluster one.
      const shipped = JSON.parse(readFileSync(join(ROOT, 'deploy/grafana/cribl-exporter.json'), 'utf8')) as Dashboard;
      expect(variable(shipped, 'cluster')).toBe('label_values(cribl_leader_up, cluster)');
    },
  );

  it(
    'gives an alert added to a group of alerts.libsonnet its runbook_url: ' + 'adding one needs no other jsonnet',
    async () => {
      const groups = await evaluate<RuleGroup[]>(`(import 'lib/util.libsonnet').withRunbookURLs([{ name: 'g', rules: [
      { alert: 'CriblNodeExample', expr: 'vector(1)' },
      { record: 'a:b:c', expr: 'vector(1)' }] }], 'https://x/rb#%s')`);
      expect(groups[0]?.rules).toEqual([
        { alert: 'CriblNodeExample', expr: 'vector(1)', annotations: { runbook_url: 'https://x/rb#criblnodeexample' } },
        { record: 'a:b:c', expr: 'vector(1)' },
      ]);
    },
  );
});

describe.skipIf(missing || skipWithout('promtool'))('deploy/mixin/README.md', () => {
  it('renders the mixin with your own settings as its example shows', async () => {
    const readme = readFileSync(join(ROOT, MIXIN, 'README.md'), 'utf8');
    const block = /## Rendering it with your own settings[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toContain('jsonnet -m out cribl.jsonnet');
    const dir = mkdtempSync(join(tmpdir(), 'mixin-readme-'));
    try {
      const r = await runAsync('bash', ['-euo', 'pipefail', '-c', block!], dir, { ...process.env, JSONNET_PATH: ROOT });
      expect(r.status, r.stderr).toBe(0);
      const shipped = loadRuleGroups().flatMap((g) => g.rules);
      const alerts = shipped.filter((x) => x.alert !== undefined).length;
      const records = shipped.length - alerts;
      expect(r.stdout).toMatch(new RegExp(`SUCCESS: ${alerts} rules found[\\s\\S]*SUCCESS: ${records} rules found`));
      const out = (file: string): unknown => JSON.parse(readFileSync(join(dir, 'out', file), 'utf8'));
      const rules = (out('cribl-exporter-alerts.yaml') as { groups: RuleGroup[] }).groups.flatMap((g) => g.rules);
      expect(rules.find((x) => x.alert === 'CriblExporterDown')?.expr).toBe('up{job="cribl"} == 0');
      for (const x of rules) {
        expect(x.annotations?.runbook_url).toMatch(/^https:\/\/wiki\.example\.com\/runbooks\/cribl-exporter#[a-z]+$/);
      }
      expect(out('cribl-exporter.json')).toHaveProperty('uid', 'cribl-exporter');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
