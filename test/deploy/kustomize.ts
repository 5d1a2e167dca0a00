import { parseAllDocuments } from 'yaml';
import type { Manifest } from './k8s-validate.js';
import { loadRuleGroups, ROOT } from './prometheusrule.js';
import { run } from './tools.js';

/**
 * The Secret the manifests mount and the user creates (docs/deploy.md shows the `kubectl create secret` command),
 * and the key CRIBL_TOKEN_FILE names in it.
 */
export const CREDENTIALS_SECRET = 'cribl-exporter-credentials';
export const CREDENTIALS_KEY = 'token';

/** The objects of a multi-document YAML text, empty documents dropped. */
export function loadDocs(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Manifest | null)
    .filter((d): d is Manifest => d !== null);
}

/** `kubectl kustomize dir` (relative to the repository root, or absolute): the objects, or an Error with stderr. */
export function kustomize(dir: string, cwd = ROOT): { docs: Manifest[]; stderr: string } {
  const r = run('kubectl', ['kustomize', dir], cwd);
  if (r.status !== 0) throw new Error(`kubectl kustomize ${dir}: ${r.stderr}`);
  return { docs: loadDocs(r.stdout), stderr: r.stderr };
}

/** The job names CriblExporterDown watches: the regular expression of the shipped alert's `job=~"…"`. */
export function alertJobPattern(): RegExp {
  const expr = loadRuleGroups()
    .flatMap((g) => g.rules)
    .find((r) => r.alert === 'CriblExporterDown')?.expr;
  const re = /job=~"((?:[^"\\]|\\.)*)"/.exec(expr ?? '')?.[1];
  if (re === undefined) throw new Error(`CriblExporterDown has no job=~ selector: ${String(expr)}`);
  return new RegExp(`^(?:${re.replace(/\\\\/g, '\\')})$`);
}

/** Whether a label selector's matchLabels select these labels. */
export function selects(matchLabels?: Record<string, string>, labels?: Record<string, string>): boolean {
  const wanted = Object.entries(matchLabels ?? {});
  return wanted.length > 0 && wanted.every(([k, v]) => labels?.[k] === v);
}
