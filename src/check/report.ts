/**
 * The report of `cribl-exporter check`: one line per check, with ✓ (ok), ! (works, but worth a look), ✗ (a
 * problem: the exporter would not work, or not fully) or - (not checked, and why), and for ! and ✗ the fix.
 */

/** ok: works; warn: works, but look; fail: will not work (exit 1); skip: not checked (said why). */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

/** One check's outcome. */
export interface CheckResult {
  /** The leader's name, or `management` for the Cribl.Cloud management plane. */
  target: string;
  /** Stable identifier (`dns`, `tls`, `permission`, …) for machines. */
  check: string;
  status: CheckStatus;
  /** One line: what was found. Never a secret. */
  message: string;
  /** What to do about it (warn and fail). */
  fix?: string;
}

/** Everything checked, in order, with the targets' URLs. */
export interface CheckReport {
  targets: { name: string; url: string }[];
  results: CheckResult[];
}

export const DAY_MS = 86_400_000;
/** A time in ISO 8601 to the second, as the messages show it. */
export const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

const MARK: Readonly<Record<CheckStatus, string>> = { ok: '✓', warn: '!', fail: '✗', skip: '-' };

/** The names of the checks in the text report, where they differ from the identifier. */
const TITLES: Readonly<Record<string, string>> = { dns: 'DNS', tcp: 'TCP', tls: 'TLS', ha: 'HA' };

/** 0 when nothing failed, 1 when something did. */
export function exitCode(report: CheckReport): 0 | 1 {
  return report.results.some((r) => r.status === 'fail') ? 1 : 0;
}

function counts(report: CheckReport): Record<CheckStatus, number> {
  const c: Record<CheckStatus, number> = { ok: 0, warn: 0, fail: 0, skip: 0 };
  for (const r of report.results) c[r.status]++;
  return c;
}

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The report as text lines. */
export function formatText(report: CheckReport): string[] {
  const out: string[] = [];
  // One width for every report (the longest check, `permission` or `workspaces`), so that the messages line up the
  // same way whatever was checked.
  const width = Math.max('workspaces'.length, ...report.results.map((r) => r.check.length));
  for (const t of report.targets) {
    out.push(t.name === 'management' ? `Cribl.Cloud management plane ${t.url}` : `leader ${t.name} (${t.url})`);
    for (const r of report.results.filter((x) => x.target === t.name)) {
      out.push(`  ${MARK[r.status]} ${(TITLES[r.check] ?? r.check).padEnd(width)}  ${r.message}`);
      if (r.fix && (r.status === 'fail' || r.status === 'warn')) out.push(`${' '.repeat(width + 6)}fix: ${r.fix}`);
    }
    out.push('');
  }
  const c = counts(report);
  const problems = c.fail === 0 ? 'no problem found' : plural(c.fail, 'problem');
  out.push(`${problems}, ${plural(c.warn, 'warning')}, ${c.ok} ok${c.skip ? `, ${c.skip} not checked` : ''}`);
  return out;
}

/** The report as one JSON document (`--output json`). */
export function formatJson(report: CheckReport): string {
  const c = counts(report);
  return JSON.stringify({
    ok: c.fail === 0,
    counts: c,
    targets: report.targets,
    results: report.results.map((r) => ({ ...r, fix: r.fix ?? null })),
  });
}
