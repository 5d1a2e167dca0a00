import { GROUP_FAMILIES, LEADER_FAMILIES, MANAGEMENT_FAMILIES, NODE_FAMILIES } from '../src/collectors/index.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FLAG_TABLE } from '../src/config/flags.js';
import { createSelfMetrics } from '../src/telemetry/self-metrics.js';
import { loadRuleGroups, RULE_FILES } from './deploy/prometheusrule.js';

const README = new URL('../README.md', import.meta.url);
const INCLUDE = /<!-- BEGIN INCLUDE (docs\/[\w.-]+\.md) -->\n[\s\S]*?<!-- END INCLUDE -->/g;

/** A docs file as a README section: headings one level down, relative links rebased on the repo root. */
function asSection(path: string): string {
  const text = readFileSync(new URL(`../${path}`, import.meta.url), 'utf8').trimEnd();
  let fenced = false;
  const lines = text.split('\n').map((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced || !/^#{1,5} /.test(line)) return line;
    return `#${line}`;
  });
  return lines
    .join('\n')
    .replace(/\]\((?!https?:|#|\/)([\w.-]+\.md)(#[\w-]*)?\)/g, '](docs/$1$2)')
    .replace(/\]\(\.\.\/([^)]+)\)/g, ']($1)');
}

function expected(readme: string): string {
  return readme.replace(
    INCLUDE,
    (_m, path: string) => `<!-- BEGIN INCLUDE ${path} -->\n${asSection(path)}\n<!-- END INCLUDE -->`,
  );
}

describe('README', () => {
  const readme = readFileSync(README, 'utf8');

  it('carries the docs sections it includes, as they are now', () => {
    const want = expected(readme);
    if (process.env.UPDATE_DOCS === '1' && want !== readme) writeFileSync(README, want);
    else expect(readme).toBe(want);
    expect([...readme.matchAll(INCLUDE)].map((m) => m[1])).toEqual([
      'docs/configuration.md',
      'docs/deployments.md',
      'docs/deploy.md',
      'docs/simulator.md',
    ]);
  });

  it('opens with the two commands: the demo and the tests', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock).toMatch(/^npm ci && npm run demo/m);
    expect(firstBlock).toMatch(/^npm test/m);
  });

  it('lists every flag and environment variable', () => {
    for (const f of FLAG_TABLE) {
      expect(readme, f.name).toContain(`--${f.name}`);
      expect(readme, f.env).toContain(f.env);
    }
  });

  it('has a metrics table row for every family the exporter exports, and none it does not', async () => {
    const table = new Set(
      readme
        .slice(readme.indexOf('## Metrics'), readme.indexOf('## Pointing it at a real leader'))
        .split('\n')
        .map((l) => /^\| `([a-z_]+)` \|/.exec(l)?.[1])
        .filter((n): n is string => n !== undefined),
    );
    const self = createSelfMetrics({ version: 'x', nodejsVersion: 'v0', defaultMetrics: false });
    self.setShard(1, 2);
    const selfNames = (await self.registry.getMetricsAsJSON()).map((m) => m.name);
    const snapshotNames: string[] = [
      ...MANAGEMENT_FAMILIES,
      ...LEADER_FAMILIES,
      ...GROUP_FAMILIES,
      ...NODE_FAMILIES,
    ].map((f) => f.name);
    const exported = new Set([...snapshotNames, ...selfNames]);
    expect([...table].sort()).toEqual([...exported].sort());
  });

  it('step 3 of "Pointing it at a real leader" loads both rule files', () => {
    const section = readme.slice(
      readme.indexOf('## Pointing it at a real leader'),
      readme.indexOf('\n## ', readme.indexOf('## Pointing')),
    );
    const step3 = /^3\. [\s\S]*?(?=^\d\. |(?![\s\S]))/m.exec(section)?.[0] ?? '';
    expect(step3).toMatch(/Prometheus/);
    for (const file of RULE_FILES) expect(step3, file).toContain(`\`${file}\``);
  });

  it('has an alert table row for every alert of the rules, in order, with its severity, runbook and for:', () => {
    const rules = readme.slice(readme.indexOf('### Prometheus rules'), readme.indexOf('#### Alertmanager inhibition'));
    const rows = rules
      .split('\n')
      .map((l) => /^\| \[(\w+)\]\(docs\/runbook\.md#([\w-]+)\) \| (\w+) \| (.*) \|$/.exec(l))
      .filter((m) => m !== null)
      .map(([, name, anchor, severity, when]) => ({ name, anchor, severity, when }));
    const alerts = loadRuleGroups().flatMap((g) => g.rules.filter((r) => r.alert !== undefined));
    expect(rows.map((r) => r.name)).toEqual(alerts.map((a) => a.alert));
    for (const [i, a] of alerts.entries()) {
      const row = rows[i]!;
      expect(row.anchor).toBe(a.alert!.toLowerCase());
      expect(row.severity, a.alert).toBe(a.labels?.severity);
      // "… for 5m" names the alert's for:, when it has one.
      if (a.for !== undefined) expect(/for (\d+[smhd])$/.exec(row.when!)?.[1], a.alert).toBe(a.for);
    }
  });
});
