/**
 * The status page at `/`: per leader, up or down with the reason, the last discovery, nodes by state and the
 * request budget; then the worst nodes with their reasons. Plain server-rendered HTML with inline CSS: no script,
 * no external asset. It answers from the cached state (the snapshots and the budgets), never from a leader, and
 * shows no secret: names, URLs (which cannot carry credentials), auth modes, node ids, failure reasons.
 *
 * Cost: one O(nodes) pass per leader, time-sliced, at most once per `maxAgeMs` whatever the request rate (requests
 * in between get the same page); the page itself is bounded (one row per leader, `worstLimit` node rows).
 */
import { discoveryFacts, listedNode, type DiscoveryFacts } from '../../collectors/listing/index.js';
import type { BudgetState } from '../../leader/budget.js';
import type { LeaderSnapshot } from '../../store/snapshot.js';
import type { Clock } from '../../util/clock.js';
import { escapeHtml } from '../landing.js';
import { NODE_CONDITIONS } from './conditions.js';
import { compareWorst, summarizeNodes, type NodeSummary, type WorstNode } from './summary.js';
import { formatAge, formatInstant } from './time.js';

/** A leader's request budget as the page shows it: its state (the rate in force and its bound, the window). */
export type BudgetView = BudgetState;

/** The health rounds: the target (the interval), how long the last complete one took, overrun and its cause. */
export interface CycleView {
  targetMs: number;
  lastMs?: number;
  overrun: boolean;
  /** What keeps nodes from their interval while overrun (rate, concurrency, pause). */
  cause?: string;
  /** Requests per second the fleet needs (every node once per interval of each node collector, and discovery). */
  neededRps?: number;
}

/** What the page reads of one monitored leader. */
export interface LeaderStatusSource {
  readonly name: string;
  /** Base URL (never carries credentials: the config refuses them). */
  readonly url: string;
  /** `token`, `login`, `cloud` or `none`: the mode, never the credential. */
  readonly authMode: string;
  readonly snapshot: Pick<LeaderSnapshot, 'labels' | 'leader' | 'nodes'>;
  budget(): BudgetView;
  cycle(): CycleView;
}

/** Options of createStatusPage. */
export interface StatusPageOptions {
  leaders: () => readonly LeaderStatusSource[];
  version: string;
  telemetryPath: string;
  clock: Clock;
  /** A page is reused for this long. @default 2000 */
  maxAgeMs?: number;
  /** Rows of the worst-nodes table. @default 50 */
  worstLimit?: number;
}

/** The status page, rendered at most once per maxAgeMs. */
export interface StatusPage {
  html(): Promise<string>;
}

interface LeaderView {
  source: LeaderStatusSource;
  state: DiscoveryFacts | undefined;
  nodes: NodeSummary;
  budget: BudgetView;
  cycle: CycleView;
}

/** Creates the status page over the leaders monitored now. */
export function createStatusPage(o: StatusPageOptions): StatusPage {
  const maxAgeMs = o.maxAgeMs ?? 2000;
  const limit = o.worstLimit ?? 50;
  let cached: { at: number; html: Promise<string> } | undefined;

  const render = async (now: number): Promise<string> => {
    const views: LeaderView[] = [];
    for (const source of o.leaders()) {
      views.push({
        source,
        state: discoveryFacts.of(source.snapshot.leader()),
        nodes: await summarizeNodes(source.snapshot.nodes(), now, limit),
        budget: source.budget(),
        cycle: source.cycle(),
      });
    }
    return page(views, now, o, limit);
  };

  return {
    html() {
      const now = o.clock.now();
      if (!cached || now - cached.at >= maxAgeMs) {
        const html = render(now);
        cached = { at: now, html };
        // A failed render is not kept: the next request tries again.
        html.catch(() => {
          if (cached?.html === html) cached = undefined;
        });
      }
      return cached.html;
    },
  };
}

const e = escapeHtml;
const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;
const NO_LEADER = '<p>No leader is monitored yet (workspace discovery may not have run).</p>';

const CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1f24;background:#fff}
h1{font-size:1.4em;margin:0 0 .2em}h2{font-size:1.1em;margin:1.6em 0 .4em}
table{border-collapse:collapse;margin:.3em 0}th,td{border:1px solid #d0d7de;padding:.25em .6em;text-align:left;
vertical-align:top}th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}
.up{color:#1a7f37;font-weight:600}.down{color:#cf222e;font-weight:600}.warn{color:#9a6700;font-weight:600}
.muted{color:#57606a}code{font-size:.95em}`;

function page(views: LeaderView[], now: number, o: StatusPageOptions, limit: number): string {
  const metrics = e(o.telemetryPath);
  const worst = views
    .flatMap((v) => v.nodes.worst.map((w) => ({ leader: v.source.name, w })))
    .sort((a, b) => compareWorst(a.w, b.w))
    .slice(0, limit);
  const nodesTotal = views.reduce((n, v) => n + v.nodes.total, 0);
  const down = views.filter((v) => v.state?.up !== true).length;
  const summary =
    `${plural(views.length, 'leader')}${down ? `, <span class="down">${down} down</span>` : ''}, ` +
    `${plural(nodesTotal, 'node')}.`;
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>cribl-exporter status</title><style>${CSS}</style></head>
<body>
<h1>cribl-exporter</h1>
<p class="muted">Prometheus exporter for the control plane of Cribl Stream and Cribl Edge, version ${e(o.version)}.
As of ${formatInstant(now)}, from the exporter's cached state (this page never calls a leader).
<a href="${metrics}">${metrics}</a> · <a href="/healthz">/healthz</a> · <a href="/readyz">/readyz</a></p>
<p id="summary">${summary}</p>
<h2>Leaders</h2>
${views.length === 0 ? NO_LEADER : leadersTable(views, now)}
<h2>Request budget</h2>
${views.length === 0 ? '' : budgetTable(views, now)}
<h2>Worst nodes</h2>
${worst.length === 0 ? '<p id="worst">No node needs attention.</p>' : worstTable(worst, limit)}
</body>
</html>
`;
}

function leaderCell(v: LeaderView): string {
  const labels = Object.entries(v.source.snapshot.labels)
    .map(([k, val]) => `${e(k)}="${e(val)}"`)
    .join(', ');
  return `<td><strong>${e(v.source.name)}</strong>${labels ? ` <span class="muted">{${labels}}</span>` : ''}<br>
<code>${e(v.source.url)}</code> <span class="muted">(auth: ${e(v.source.authMode)})</span></td>`;
}

function stateCell(state: DiscoveryFacts | undefined): string {
  // The leader's own /health may be known before the first discovery ended (up is absent until then).
  if (state?.up === undefined) return '<td class="warn">starting (no discovery yet)</td>';
  if (state.up) return '<td class="up">up</td>';
  const f = state.failure;
  const why = f ? `${e(f.reason)}${f.status !== undefined ? ` (HTTP ${f.status})` : ''}: ${e(f.message)}` : '';
  return `<td><span class="down">down</span>${why ? `<br>${why}` : ''}</td>`;
}

function leadersTable(views: LeaderView[], now: number): string {
  const head = NODE_CONDITIONS.map((c) => `<th>${e(c.label)}</th>`).join('');
  const rows = views.map((v) => {
    const last = v.state?.lastDiscoveryMs;
    const discovery =
      last === undefined
        ? '<td class="muted">never</td>'
        : `<td>${formatAge(now - last)} ago<br><span class="muted">${formatInstant(last)}</span></td>`;
    const counts = v.nodes.counts.map((n, i) => `<td class="n ${NODE_CONDITIONS[i]!.key}">${n}</td>`).join('');
    return `<tr>${leaderCell(v)}${stateCell(v.state)}${discovery}<td class="n">${v.nodes.total}</td>${counts}</tr>`;
  });
  return `<table id="leaders"><thead><tr><th>leader</th><th>state</th><th>last discovery</th><th>nodes</th>${head}</tr>
</thead><tbody>
${rows.join('\n')}
</tbody></table>
<p class="muted">A node can be in more than one state (for example disconnected and unreachable).</p>`;
}

/** Why a health round overruns, in words: what the leader allows against what the fleet needs. */
function overrunWhy(b: BudgetView, c: CycleView): string {
  const cause = e(c.cause ?? 'budget');
  return c.neededRps === undefined
    ? `the budget cannot cover the fleet (${cause})`
    : `the leader allows ${rps(b.rate)}/s, the fleet needs ${rps(c.neededRps)}/s (${cause})`;
}

function budgetTable(views: LeaderView[], now: number): string {
  const rows = views.map((v) => {
    const b = v.budget;
    const pause = b.held
      ? '<td class="down">paused: the leader is not serving (420), probing /health</td>'
      : b.paused
        ? `<td class="warn">paused for ${formatAge(b.pauseUntil - now)} (Retry-After or backoff)</td>`
        : '<td class="up">no</td>';
    const c = v.cycle;
    const cycle =
      c.lastMs === undefined
        ? `<td class="muted">no complete cycle yet (target ${formatAge(c.targetMs)})</td>`
        : `<td${c.overrun ? ' class="warn"' : ''}>${formatAge(c.lastMs)} (target ${formatAge(c.targetMs)})` +
          `${c.overrun ? `: overrun: ${overrunWhy(b, c)}` : ''}</td>`;
    const rate = b.rate < b.maxRps ? `<span class="warn">${rps(b.rate)}</span>` : rps(b.rate);
    return `<tr><td>${e(v.source.name)}</td><td class="n">${rate} of ${rps(b.maxRps)} requests/s</td>${pause}
<td class="n">${b.limit} of ${b.maxConcurrency} (${b.inFlight} in flight, ${b.waiting} waiting)</td>${cycle}</tr>`;
  });
  return `<table id="budget"><thead><tr><th>leader</th><th>rate in force</th><th>paused</th><th>concurrency</th>
<th>last health cycle</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`;
}

const rps = (x: number): string => (x >= 10 ? x.toFixed(0) : x.toFixed(1));

function worstTable(worst: { leader: string; w: WorstNode }[], limit: number): string {
  const rows = worst.map(({ leader, w }) => {
    const n = w.node;
    const host = listedNode.of(n)?.hostname ?? '';
    const { product, group, nodeId } = n.ident;
    return `<tr class="${w.condition.key}"><td>${e(leader)}</td><td>${e(product)}</td><td>${e(group)}</td>
<td><code>${e(nodeId)}</code></td><td>${e(host)}</td><td>${e(w.condition.label)}</td>
<td>${w.reasons.map(e).join('<br>')}</td></tr>`;
  });
  return `<p class="muted">The ${limit} worst at most: the worst state first, then the longest without an answer.</p>
<table id="worst"><thead><tr><th>leader</th><th>product</th><th>group</th><th>node</th><th>hostname</th><th>state</th>
<th>why</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`;
}
