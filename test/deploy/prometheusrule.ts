import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** Repository root, from this file's place in test/deploy/. */
export const ROOT = join(import.meta.dirname, '..', '..');

/** The Prometheus rule files, in the order their groups appear in the PrometheusRule. */
export const RULE_FILES = ['deploy/prometheus/alerts.yaml', 'deploy/prometheus/rules.yaml'] as const;

/** Where the generated PrometheusRule lives. */
export const PROMETHEUS_RULE_PATH = 'deploy/kubernetes/common/prometheusrule.yaml';

/** One rule of a Prometheus rule file (the fields our files use). */
export interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** One group of a Prometheus rule file. */
export interface RuleGroup {
  name: string;
  rules: Rule[];
}

/** The groups of every file in RULE_FILES, in order. */
export function loadRuleGroups(root = ROOT): RuleGroup[] {
  return RULE_FILES.flatMap(
    (file) => (parse(readFileSync(join(root, file), 'utf8')) as { groups: RuleGroup[] }).groups,
  );
}

/**
 * The repository's web address, from package.json's `repository` (npm's `git+https://….git` form or a plain URL):
 * the default base of every alert's runbook_url and the image's org.opencontainers.image.source.
 */
export function repositoryUrl(root = ROOT): string {
  type Pkg = { repository?: string | { url?: string } };
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Pkg;
  const url = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  if (url === undefined) throw new Error('package.json has no repository');
  return url.replace(/^git\+/, '').replace(/\.git$/, '');
}

/** Where the shipped alerts point: docs/runbook.md on the default branch; `#<alert in lower case>` follows. */
export const RUNBOOK_URL = `${repositoryUrl()}/blob/main/docs/runbook.md`;
