/**
 * The metric contract, generated: every registered collector's families (declared in its folder,
 * src/collectors/<name>/) and the exporter's own (src/telemetry/self-metrics.ts), with type, labels, HELP, how fresh
 * they are and whether their collector is on by default. docs/metrics.md and the README's metrics table are made of
 * it (UPDATE_DOCS=1 npx vitest run test/docs/metrics.test.ts regenerates them); the test checks the contract against
 * what the exporter exports with every collector on, against the simulator.
 */
import { endpointTemplates } from '@cribl-exporter/api/routes';
import { API_STATUSES, OTHER_STATUS } from '@cribl-exporter/api/statuses';
import type { Collector, Intervals, Scope, Target } from '../collectors/collector.js';
import { COLLECTORS } from '../collectors/registry.js';
import type { Family } from '../format/family.js';
import { FAILURE_REASONS } from '../http/failure.js';
import { selfFamilies } from '../telemetry/self-families.js';
import { DISCOVERY } from './flags.js';
import { Settings } from './settings.js';

/** One family of the contract. */
export interface MetricRow {
  readonly name: string;
  readonly type: 'gauge' | 'counter' | 'histogram';
  /** What one series is of: a scope's item, or the exporter (`leader`: per leader, `process`: one). */
  readonly per: Scope | 'process';
  /** Every label name of its series but the target labels (a histogram's `le` left out). */
  readonly labels: readonly string[];
  /** Whether its series carry the leader's target labels (the snapshot's leader, group and node families). */
  readonly targetLabels: boolean;
  /** A self-metric (prom-client's registry), a collector's own (Collector.gauges) or the exporter's. */
  readonly self: boolean;
  /** The collector that declares it; undefined for the exporter's own. */
  readonly collector: string | undefined;
  /** Its HELP text with the default settings. */
  readonly help: string;
  /** A node family's node detail tag: `basic` when the basic level keeps it (docs/node-detail.md). */
  readonly detail?: 'basic';
}

const SCOPES: readonly Scope[] = ['management', 'leader', 'group', 'node'];

/** The labels every series of a scope carries (src/exposition/body/render.ts sets them; the test checks). */
export const SCOPE_LABELS: Readonly<Record<Scope, readonly string[]>> = {
  management: [],
  leader: [],
  group: ['product', 'group'],
  node: ['product', 'group', 'node_id'],
};

/** The settings' defaults, for a collector's freshness and whether it is on. */
function defaults(): { settingsOf: (c: Collector) => unknown; intervals: Intervals } {
  const g = new Settings([], (flag) => `--${flag}`);
  return {
    settingsOf: (c) => g.section(c.settings ?? {}),
    intervals: { discoveryMs: g.section(DISCOVERY).discoveryMs },
  };
}

/** The families of the collectors given (the registry's by default), then the exporter's own. */
export function metricContract(collectors: readonly Collector[] = COLLECTORS): MetricRow[] {
  const { settingsOf, intervals } = defaults();
  const rows: MetricRow[] = SCOPES.flatMap((scope) =>
    collectors.flatMap((c) =>
      ((c.families[scope] ?? []) as readonly Family<unknown>[]).map((f) => ({
        name: f.name,
        type: f.type ?? 'gauge',
        per: scope,
        labels: [...SCOPE_LABELS[scope], ...f.labels],
        targetLabels: scope !== 'management',
        self: false,
        collector: c.name,
        help: `${f.what} ${c.freshness(settingsOf(c), intervals, scope)}`,
        ...((f as { detail?: 'basic' }).detail ? { detail: 'basic' as const } : {}),
      })),
    ),
  );
  const declaredBy = new Map(collectors.flatMap((c) => (c.gauges ?? []).map((g) => [g.name, c.name] as const)));
  for (const m of Object.values(selfFamilies())) {
    const labels: string[] = [...m.labelNames];
    rows.push({
      name: m.name,
      type: m.json().type as MetricRow['type'],
      per: labels.includes('leader') ? 'leader' : 'process',
      labels,
      targetLabels: false,
      self: true,
      collector: declaredBy.get(m.name),
      help: m.help,
    });
  }
  return rows;
}

/** Whether a collector runs by default, and where. */
function runs(c: Collector, settingsOf: (c: Collector) => unknown): string {
  if (c.schedule.kind === 'management') return 'with workspace discovery';
  const on = (t: Target): boolean => c.enabled?.(settingsOf(c), t) ?? true;
  const onPrem = on({ cloud: false });
  const cloud = on({ cloud: true });
  if (onPrem && cloud) return 'on';
  if (onPrem) return 'on, not on Cribl.Cloud';
  if (cloud) return 'on Cribl.Cloud only';
  return on({ cloud: false, ha: true }) ? 'with HA hosts' : 'off';
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');
const code = (names: readonly string[]): string => names.map((n) => `\`${n}\``).join(', ');
const flags = (c: Collector): string[] => Object.values(c.settings ?? {}).map((r) => `--${r.name}`);

/** The freshness of a collector's families (its sentence per scope, the scopes named when they differ). */
function freshnessOf(c: Collector, settingsOf: (c: Collector) => unknown, intervals: Intervals): string {
  const scopes = SCOPES.filter((s) => (c.families[s] ?? []).length > 0);
  const byText = new Map<string, Scope[]>();
  for (const s of scopes) {
    const text = c.freshness(settingsOf(c), intervals, s);
    byText.set(text, [...(byText.get(text) ?? []), s]);
  }
  if (byText.size === 1) return [...byText.keys()][0]!;
  return [...byText].map(([text, s]) => `${s.join(' and ')} families: ${text}`).join(' ');
}

/** A family's own sentence, the HELP without the collector's freshness (that heads its collector's table). */
function what(row: MetricRow, c: Collector | undefined): string {
  if (!c || row.self) return row.help;
  const { settingsOf, intervals } = defaults();
  const fresh = c.freshness(settingsOf(c), intervals, row.per as Scope); // not a self-metric: a scope
  return row.help.endsWith(` ${fresh}`) ? row.help.slice(0, -fresh.length - 1) : row.help;
}

/** One family's table row: name, type, per, labels it adds to its scope's, meaning. */
function rowLine(r: MetricRow, c: Collector | undefined): string {
  const own = r.per === 'process' ? r.labels : r.labels.slice(SCOPE_LABELS[r.per].length);
  // A collector's own self-metric (Collector.gauges): no target labels, `leader` instead.
  const self = r.collector !== undefined && r.self ? 'Self-metric: ' : '';
  // A node family the basic node detail level keeps (the others only at full: docs/node-detail.md).
  const per = r.detail === 'basic' ? `${r.per} (basic)` : r.per;
  return `| \`${r.name}\` | ${r.type} | ${per} | ${code(own)} | ${self}${cell(what(r, c))} |`;
}

const HEADER = ['| name | type | per | labels | meaning |', '|---|---|---|---|---|'];

/** The generated part of docs/metrics.md: a table per collector, then the exporter's own. */
export function metricsMarkdown(collectors: readonly Collector[] = COLLECTORS): string {
  const { settingsOf, intervals } = defaults();
  const rows = metricContract(collectors);
  const out: string[] = [];
  for (const c of collectors) {
    const mine = rows.filter((r) => r.collector === c.name);
    if (mine.length === 0) continue;
    const settings = flags(c);
    out.push(
      `### \`${c.name}\``,
      '',
      `- runs: ${runs(c, settingsOf)}`,
      ...(settings.length ? [`- settings: ${code(settings)}`] : []),
      `- fresh: ${cell(freshnessOf(c, settingsOf, intervals))}`,
      '',
      ...HEADER,
      ...mine.map((r) => rowLine(r, c)),
      '',
    );
  }
  out.push(
    "### The exporter's own",
    '',
    "Self-metrics (src/telemetry/self-metrics.ts, prom-client on the exporter's own registry): they carry no target " +
      "labels; `leader` is the leader's configured name. prom-client's `process_*`, `nodejs_*` families follow them.",
    '',
    ...HEADER,
    ...rows.filter((r) => r.collector === undefined).map((r) => rowLine(r, undefined)),
    '',
    'Their bounded label values: `endpoint` is a route template the exporter calls ' +
      `(${code([...endpointTemplates()])}); \`code\` a status the API defines ` +
      `(${code(API_STATUSES.map(String))}), \`${OTHER_STATUS}\` for any other, or, when there was no status, the ` +
      `request's failure reason (${code(FAILURE_REASONS)}), as in the \`reason\` of most failure families ` +
      '(their HELP names theirs).',
    '',
  );
  return out.join('\n');
}

/** The generated table of the README: one row per collector, its families, and whether it runs by default. */
export function readmeMetricsTable(collectors: readonly Collector[] = COLLECTORS): string {
  const { settingsOf } = defaults();
  const rows = metricContract(collectors);
  const lines = ['| collector | runs | settings | families |', '|---|---|---|---|'];
  for (const c of collectors) {
    const names = rows.filter((r) => r.collector === c.name).map((r) => r.name);
    if (names.length) lines.push(`| \`${c.name}\` | ${runs(c, settingsOf)} | ${code(flags(c))} | ${code(names)} |`);
  }
  const own = rows.filter((r) => r.collector === undefined).map((r) => r.name);
  lines.push(`| the exporter's own | always | | ${code(own)}, \`process_*\`, \`nodejs_*\` |`);
  return `${lines.join('\n')}\n`;
}

/** The markers around a generated block of a document. */
export function markers(what: string): { begin: string; end: string } {
  return {
    begin: `<!-- BEGIN GENERATED ${what} (UPDATE_DOCS=1 npx vitest run test/docs/metrics.test.ts) -->`,
    end: `<!-- END GENERATED ${what} -->`,
  };
}

/** `doc` with the text between the markers of `what` replaced by `content`; throws without the markers. */
export function replaceGenerated(doc: string, what: string, content: string): string {
  const { begin, end } = markers(what);
  const start = doc.indexOf(begin);
  const stop = doc.indexOf(end);
  if (start < 0 || stop < start) throw new Error(`markers not found: ${begin} … ${end}`);
  return `${doc.slice(0, start + begin.length)}\n${content}${doc.slice(stop)}`;
}
