/**
 * The status page at `/`: leaders, request budgets, groups, data in motion (throughput.ts), licences, collectors and
 * the worst nodes, as server-rendered HTML with its CSS and one small script (SCRIPT) inline. It answers from the
 * cached state (the snapshots and the budgets), never from a leader, and shows no secret: names, URLs (which cannot
 * carry credentials), auth modes, node ids, failure reasons.
 *
 * Cost: one O(nodes) pass per leader, time-sliced, at most once per `maxAgeMs` whatever the request rate (requests
 * in between get the same page); the page itself is bounded (one row per leader and per group, at most WORST node
 * rows and CONCERNS destination and queue rows, sparklines of at most 60 windows).
 */
import { createHash } from 'node:crypto';
import type { ScopeItem } from '../../collectors/collector.js';
import { dataflowFacts, type IoHealth } from '../../collectors/dataflow/index.js';
import { groupsFacts } from '../../collectors/groups/index.js';
import { versionFacts } from '../../collectors/group-version/index.js';
import { leaderHealthFacts } from '../../collectors/leader-health/index.js';
import { leaderInfoFacts } from '../../collectors/leader-info/index.js';
import { licenseFacts } from '../../collectors/license/index.js';
import { discoveryFacts, listedNode, type DiscoveryFacts } from '../../collectors/listing/index.js';
import { healthFacts } from '../../collectors/node-health/index.js';
import { throughputView, type GroupThroughputView } from '../../collectors/throughput/view.js';
import { managementFacts } from '../../collectors/workspaces/index.js';
import type { BudgetState } from '../../leader/budget.js';
import type { LeaderSnapshot } from '../../store/snapshot.js';
import type { Clock } from '@cribl-exporter/api/clock';
import { NODE_CONDITIONS } from './conditions.js';
import { compareWorst, summarizeNodes, type GroupNodes, type NodeSummary, type WorstNode } from './summary.js';
import {
  compareConcerns,
  concernsOf,
  formatBytes,
  formatRate,
  groupRank,
  lastRates,
  sparkline,
  type FlowConcern,
} from './throughput.js';
import { formatAge, formatInstant } from './time.js';
import { pollingTable, type RotationView } from './polling.js';
import type { Product } from '@cribl-exporter/api/products';

/** The health rounds: the target (the interval), how long the last complete one took, overrun and its cause. */
export interface CycleView {
  targetMs: number;
  lastMs?: number;
  overrun: boolean;
  /** What keeps nodes from their interval while overrun (rate, concurrency, pause). */
  cause?: string;
  /** Requests per second the fleet needs (every node once per interval of each node collector, and discovery). */
  neededRps?: number;
  /** The discovery interval in force. */
  discoveryIntervalMs?: number;
  /** The health polls of each rotating product (node detail basic or minimal). */
  rotations?: Readonly<Partial<Record<Product, RotationView>>>;
}

/** A collector of a leader as the page shows it: on, or off and why, and its last answer. */
export interface CollectorView {
  readonly name: string;
  readonly on: boolean;
  readonly off?: { readonly reason: string; readonly endpoint: string; readonly sinceMs: number };
  readonly lastSuccessMs?: number;
}

/** What the page reads of one monitored leader. */
export interface LeaderStatusSource {
  readonly name: string;
  /** Base URL (never carries credentials: the config refuses them). */
  readonly url: string;
  /** `token`, `login`, `cloud` or `none`: the mode, never the credential. */
  readonly authMode: string;
  readonly snapshot: Pick<LeaderSnapshot, 'labels' | 'leader' | 'nodes'> & Partial<Pick<LeaderSnapshot, 'groups'>>;
  budget(): BudgetState;
  cycle(): CycleView;
  /** The collectors that run on a schedule of their own or per discovery. */
  collectors?(): readonly CollectorView[];
}

/** Options of createStatusPage. */
export interface StatusPageOptions {
  leaders: () => readonly LeaderStatusSource[];
  /** The Cribl.Cloud management plane (workspace discovery), when on. */
  management?: () => ScopeItem;
  version: string;
  telemetryPath: string;
  clock: Clock;
  /** A page is reused for this long. @default 2000 */
  maxAgeMs?: number;
}

/** Rows of the worst-nodes table. */
const WORST = 50;
/** Rows of the blocked destinations and persistent queues table. */
const CONCERNS = 50;

/** The status page, rendered at most once per maxAgeMs. */
export interface StatusPage {
  html(): Promise<string>;
}

interface LeaderView {
  source: LeaderStatusSource;
  state: DiscoveryFacts | undefined;
  nodes: NodeSummary;
  budget: BudgetState;
  cycle: CycleView;
}

/** Creates the status page over the leaders monitored now. */
export function createStatusPage(o: StatusPageOptions): StatusPage {
  const maxAgeMs = o.maxAgeMs ?? 2000;
  let cached: { at: number; html: Promise<string> } | undefined;

  const render = async (now: number): Promise<string> => {
    const views: LeaderView[] = [];
    for (const source of o.leaders()) {
      views.push({
        source,
        state: discoveryFacts.of(source.snapshot.leader()),
        nodes: await summarizeNodes(source.snapshot.nodes(), now, WORST, source.snapshot.groups?.()),
        budget: source.budget(),
        cycle: source.cycle(),
      });
    }
    return page(views, now, o);
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

/** Text safe inside HTML elements and quoted attributes. */
const e = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;
/** A table in its scrolling box: its id, its column headings (HTML) and one `<tr>` per row. */
const table = (id: string, heads: readonly string[], rows: readonly string[]): string =>
  `<div class="scroll"><table id="${id}"><thead><tr>${heads.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>
${rows.join('\n')}
</tbody></table></div>`;
const NO_LEADER = '<p>No leader is monitored yet (workspace discovery may not have run).</p>';

const CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1f24;background:#fff}
h1{font-size:1.4em;margin:0 0 .2em}h2{font-size:1.1em;margin:1.6em 0 .4em}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.3em 0}th,td{border:1px solid #d0d7de;padding:.25em .6em;text-align:left;
vertical-align:top}th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}
.up{color:#1a7f37;font-weight:600}.down{color:#cf222e;font-weight:600}.warn{color:#9a6700;font-weight:600}
.up::before{content:"\\2713  "}.down::before{content:"\\2717  "}.warn::before{content:"!  "}
.muted{color:#57606a}code{font-size:.95em}#filter{display:flex;flex-wrap:wrap;gap:.5em;margin:.4em 0}
#filter input,#filter select{font:inherit;padding:.2em .4em}
.spark{display:block}.spark polyline{fill:none;stroke-width:1.5;stroke-linejoin:round}
h3{font-size:1em;margin:1em 0 .3em}.s-in{stroke:#0969da;color:#0969da}
.s-out{stroke:#1a7f37;stroke-dasharray:4 2;color:#1a7f37}.s-dropped{stroke:#cf222e;stroke-dasharray:1 2;color:#cf222e}
@media (max-width:600px){body{margin:.6em;font-size:13px}th,td{padding:.2em .35em}}`;

/**
 * The page's one script: every 10 s, fetches the page again and swaps its <main> in place (the filter box sits
 * outside it, so what is typed stays, and so does the scroll position), then filters the worst nodes' rows by text,
 * group and state. Allowed by its hash in STATUS_CSP; the page is whole without it.
 */
const SCRIPT = `(function(){
var f=document.getElementById('filter');if(!f)return;f.hidden=false;
var q=document.getElementById('q'),g=document.getElementById('fgroup'),s=document.getElementById('fstate');
function rows(){return document.querySelectorAll('#worst tbody tr')}
function apply(){var t=q.value.toLowerCase(),gv=g.value,sv=s.value,rs=rows(),shown=0;
for(var i=0;i<rs.length;i++){var r=rs[i];
var ok=(!t||r.textContent.toLowerCase().indexOf(t)>=0)&&(!gv||r.dataset.group===gv)&&(!sv||r.dataset.state===sv);
r.hidden=!ok;if(ok)shown++}
var c=document.getElementById('shown');if(c)c.textContent=rs.length?shown+' of '+rs.length+' shown':''}
function options(){var keep=g.value,seen={},rs=rows();while(g.options.length>1)g.remove(1);
for(var i=0;i<rs.length;i++){var v=rs[i].dataset.group;if(v&&!seen[v]){seen[v]=1;
var op=document.createElement('option');op.value=v;op.textContent=v;g.appendChild(op)}}
if(keep&&!seen[keep]){var k=document.createElement('option');k.value=keep;k.textContent=keep;g.appendChild(k)}
g.value=keep}
q.addEventListener('input',apply);g.addEventListener('change',apply);s.addEventListener('change',apply);
options();apply();
setInterval(function(){fetch(location.pathname,{cache:'no-store'})
.then(function(r){return r.ok?r.text():null}).then(function(h){if(!h)return;
var m=new DOMParser().parseFromString(h,'text/html').querySelector('main');if(!m)return;
document.querySelector('main').replaceWith(m);options();apply()}).catch(function(){})},10000)})();`;

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The page's Content-Security-Policy: nothing but its own inline CSS and script (by hash) and fetches of itself. */
export const STATUS_CSP =
  `default-src 'none'; style-src ${sha256(CSS)}; script-src ${sha256(SCRIPT)}; connect-src 'self'; ` +
  "img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function page(views: LeaderView[], now: number, o: StatusPageOptions): string {
  const metrics = e(o.telemetryPath);
  const worst = views
    .flatMap((v) => v.nodes.worst.map((w) => ({ leader: v.source.name, w })))
    .sort((a, b) => compareWorst(a.w, b.w))
    .slice(0, WORST);
  const nodesTotal = views.reduce((n, v) => n + v.nodes.total, 0);
  const down = views.filter((v) => v.state?.up !== true).length;
  const overrun = views.filter((v) => v.cycle.overrun).length;
  const flows = groupFlows(views);
  const blocked = flows.reduce((n, f) => n + (f.view?.blocked.length ?? 0), 0);
  const summary =
    `${plural(views.length, 'leader')}${down ? `, <span class="down">${down} down</span>` : ''}, ` +
    `${plural(nodesTotal, 'node')}${overrun ? `, <span class="warn">${overrun} overrun</span>` : ''}` +
    `${blocked ? `, <span class="down">${plural(blocked, 'destination')} blocked</span>` : ''}.`;
  const states = NODE_CONDITIONS.filter((c) => c.severity > 0)
    .map((c) => `<option value="${e(c.key)}">${e(c.label)}</option>`)
    .join('');
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>cribl-exporter status</title><style>${CSS}</style></head>
<body>
<h1>cribl-exporter</h1>
<form id="filter" hidden><label>Filter the worst nodes
<input id="q" type="search" placeholder="node, host, reason"></label>
<label>Group <select id="fgroup"><option value="">every group</option></select></label>
<label>State <select id="fstate"><option value="">every state</option>${states}</select></label>
<span id="shown" class="muted"></span></form>
<main>
<p class="muted">Prometheus exporter for the control plane of Cribl Stream and Cribl Edge, version ${e(o.version)}.
As of ${formatInstant(now)}, from the exporter's cached state (this page never calls a leader; it refreshes itself
every 10 s). <a href="${metrics}">${metrics}</a> · <a href="/healthz">/healthz</a> · <a href="/readyz">/readyz</a></p>
<p id="summary">${summary}</p>
<h2>Leaders</h2>
${views.length === 0 ? NO_LEADER : leadersTable(views, now)}
${o.management ? workspacesTable(o.management()) : ''}
<h2>Request budget</h2>
${views.length === 0 ? '' : budgetTable(views, now)}
<h2>Node detail and polling</h2>
${pollingTable(views.map((v) => ({ name: v.source.name, leader: v.source.snapshot.leader(), ...v.cycle })))}
<h2>Groups and fleets</h2>
${groupsTable(views)}
<h2>Data in motion</h2>
${flowSection(flows)}
<h2>Licence and leader</h2>
${licenseTable(views, now)}
<h2>Collectors</h2>
${collectorsTable(views, now)}
<h2>Worst nodes</h2>
${worst.length === 0 ? '<p id="worst">No node needs attention.</p>' : worstTable(worst, now)}
</main>
<script>${SCRIPT}</script>
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
  const states = NODE_CONDITIONS.map((c) => e(c.label));
  const rows = views.map((v) => {
    const last = v.state?.lastDiscoveryMs;
    const discovery =
      last === undefined
        ? '<td class="muted">never</td>'
        : `<td>${formatAge(now - last)} ago<br><span class="muted">${formatInstant(last)}</span></td>`;
    const counts = v.nodes.counts.map((n, i) => `<td class="n ${NODE_CONDITIONS[i]!.key}">${n}</td>`).join('');
    return (
      `<tr>${leaderCell(v)}${stateCell(v.state)}${discovery}<td class="n">${v.nodes.total}</td>${counts}` +
      `${roleCell(v)}</tr>`
    );
  });
  return `${table('leaders', ['leader', 'state', 'last discovery', 'nodes', ...states, 'role and health'], rows)}
<p class="muted">A node can be in more than one state (for example disconnected and unreachable).</p>`;
}

/** The leader's own /health: its role and state, from the last answer. */
function roleCell(v: LeaderView): string {
  const h = leaderHealthFacts.of(v.source.snapshot.leader());
  const value = h?.value;
  if (!value) return '<td class="muted">unknown (no answer from its /health)</td>';
  const role = value.role ?? 'role not reported';
  const cls = value.status === 'healthy' && value.role !== 'standby' ? 'up' : 'down';
  const stale = h.failure ? ` <span class="muted">(last read failed: ${e(h.failure)})</span>` : '';
  return `<td class="role"><span class="${cls}">${e(role)}, ${e(value.status)}</span>${stale}</td>`;
}

/** Why a health round overruns, in words: what the leader allows against what the fleet needs. */
function overrunWhy(b: BudgetState, c: CycleView): string {
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
    const needed =
      c.neededRps === undefined ? '' : `<br><span class="muted">the fleet needs ${rps(c.neededRps)}/s</span>`;
    const allowed = `${rate} of ${rps(b.maxRps)} requests/s${needed}${learnedLine(b, now)}`;
    return `<tr><td>${e(v.source.name)}</td><td class="n">${allowed}</td>${pause}
<td class="n">${b.limit} of ${b.maxConcurrency} (${b.inFlight} in flight, ${b.waiting} waiting)</td>${cycle}</tr>`;
  });
  return table('budget', ['leader', 'rate in force', 'paused', 'concurrency', 'last health cycle'], rows);
}

/** The leader's limit learnt from its 429s: when the rate probes past it, and when it is dropped at the latest. */
function learnedLine(b: BudgetState, now: number): string {
  const l = b.learned;
  if (!l) return '';
  const probe = l.probeFrom > now ? `probing upward in ${formatAge(l.probeFrom - now)}` : 'probing upward';
  return (
    `<br><span class="warn">learnt from the leader's 429s: ${rps(l.rps)}/s ${formatAge(now - l.at)} ago; ${probe}; ` +
    `dropped once the leader takes the full rate, in ${formatAge(l.until - now)} at the latest</span>`
  );
}

const rps = (x: number): string => (x >= 10 ? x.toFixed(0) : x.toFixed(1));

function worstTable(worst: { leader: string; w: WorstNode }[], now: number): string {
  const rows = worst.map(({ leader, w }) => {
    const n = w.node;
    const listed = listedNode.of(n);
    const { product, group, nodeId } = n.ident;
    const last = healthFacts.of(n)?.lastSuccessMs;
    const age = last === undefined ? 'never' : `${formatAge(now - last)} ago`;
    return `<tr class="${w.condition.key}" data-state="${w.condition.key}" data-group="${e(`${product}/${group}`)}">
<td>${e(leader)}</td><td>${e(product)}</td><td>${e(group)}</td><td><code>${e(nodeId)}</code></td>
<td>${e(listed?.hostname ?? '')}</td><td>${e(w.condition.label)}</td><td>${w.reasons.map(e).join('<br>')}</td>
<td>${age}</td><td class="n">${listed?.restarts ?? ''}</td></tr>`;
  });
  const heads = ['leader', 'product', 'group', 'node', 'hostname', 'state', 'why', 'last answer', 'restarts'];
  return `<p class="muted">The ${WORST} worst at most: the worst state first, then the longest without an answer.</p>
${table('worst', heads, rows)}`;
}

const WORDS: Readonly<Record<string, string>> = { green: 'green', yellow: 'yellow', red: 'red', unknown: 'unknown' };

/** Destinations or sources not green, in words: "splunk_lb: red (1 of 4 processes red)". */
function notGreen(items: readonly IoHealth[] | undefined): string {
  if (!items) return '<span class="muted">not read</span>';
  const bad = items.filter((i) => i.id !== 'devnull' && (i.health !== 'green' || (i.pq && i.pq !== 'green')));
  if (bad.length === 0) return '<span class="up">all green</span>';
  return bad
    .slice(0, 5)
    .map((i) => {
      const cls = i.health === 'red' ? 'down' : 'warn';
      const red = i.processes[2] ?? 0;
      const procs = red > 0 ? ` (${red} of ${i.processes.reduce((a, b) => a + b, 0)} processes red)` : '';
      const pq = i.pq && i.pq !== 'green' ? `, persistent queue ${WORDS[i.pq] ?? i.pq}` : '';
      return `<span class="${cls}">${e(i.id)}: ${WORDS[i.health] ?? i.health}${procs}${pq}</span>`;
    })
    .join('<br>')
    .concat(bad.length > 5 ? `<br><span class="muted">and ${bad.length - 5} more</span>` : '');
}

const count = (n: number | undefined, bad = true): string =>
  n === undefined ? '<td class="n muted">?</td>' : `<td class="n${n > 0 && bad ? ' warn' : ''}">${n}</td>`;

function groupsTable(views: LeaderView[]): string {
  // Every group the leader lists (a fleet without nodes too), then any a node names that the listing did not.
  const rows = views.flatMap((v) =>
    v.nodes.groups.map((gn) => {
      const g = gn.item;
      const listed = groupsFacts.of(g);
      const flow = dataflowFacts.of(g);
      return `<tr data-group="${e(`${gn.product}/${gn.group}`)}"><td>${e(v.source.name)}</td><td>${e(gn.product)}</td>
<td>${e(gn.group)}</td><td class="n">${gn.total}</td>${count(gn.notHealthy)}${count(gn.drifted)}
${count(versionFacts.of(g)?.undeployed)}${count(listed?.git?.localChanges)}${count(listed?.deployingWorkerCount)}
${count(gn.upgradeFailed)}<td>${notGreen(flow?.destinations?.value)}</td>
<td>${notGreen(flow?.sources?.value)}</td></tr>`;
    }),
  );
  if (rows.length === 0) return '<p id="groups" class="muted">No group listed yet.</p>';
  const heads = [
    'leader',
    'product',
    'group',
    'nodes',
    'not healthy',
    'drifted',
    'undeployed commits',
    'uncommitted changes',
    'deploying',
    'failed upgrades',
    'destinations not green',
    'sources not green',
  ];
  return `${table('groups', heads, rows)}
<p class="muted">? : not known (the collector is off, or the leader does not say).</p>`;
}

const GB = 1e9;
const pct = (part: number, whole: number): string => `${((100 * part) / whole).toFixed(0)} %`;

function licenseTable(views: LeaderView[], now: number): string {
  const rows = views.map((v) => {
    const leader = v.source.snapshot.leader();
    const lic = licenseFacts.of(leader);
    const list = lic?.licenses?.value?.licenses ?? [];
    const paid = list.filter((l) => l.type !== 'free');
    const expiry = paid.reduce<number | undefined>(
      (m, l) => (l.expiresMs === undefined ? m : Math.max(m ?? 0, l.expiresMs)),
      undefined,
    );
    const expires =
      list.length === 0
        ? '<span class="muted">not known</span>'
        : expiry === undefined
          ? 'no paid or trial licence'
          : expiry < now
            ? `<span class="down">expired ${formatAge(now - expiry)} ago</span>`
            : `<span class="${expiry - now < 14 * 86_400_000 ? 'warn' : 'up'}">in ${formatAge(expiry - now)}</span>`;
    const quota = list.reduce((q, l) => q + (l.quotaBytesPerDay ?? 0), 0);
    const usage = lic?.usage?.value;
    const used =
      usage === undefined
        ? '<span class="muted">not known</span>'
        : quota > 0
          ? `<span class="${usage.billedBytes / quota > 0.9 ? 'warn' : 'up'}">` +
            `${(usage.billedBytes / GB).toFixed(1)} of ${(quota / GB).toFixed(0)} GB ` +
            `(${pct(usage.billedBytes, quota)})</span>`
          : `${(usage.billedBytes / GB).toFixed(1)} GB (no quota)`;
    const info = leaderInfoFacts.of(leader)?.value;
    const disk =
      info?.diskAvailableBytes === undefined || !info.diskTotalBytes
        ? '<span class="muted">not known</span>'
        : `<span class="${info.diskAvailableBytes / info.diskTotalBytes < 0.1 ? 'down' : 'up'}">` +
          `${pct(info.diskAvailableBytes, info.diskTotalBytes)} free</span> <span class="muted">` +
          `(${(info.diskAvailableBytes / GB).toFixed(1)} of ${(info.diskTotalBytes / GB).toFixed(1)} GB)</span>`;
    const version = info?.version ? e(info.version) : '<span class="muted">not known</span>';
    return `<tr><td>${e(v.source.name)}</td><td>${expires}</td><td>${used}</td><td>${disk}</td>
<td>${version}</td></tr>`;
  });
  if (rows.length === 0) return '';
  const heads = ['leader', 'licence expires', "last day's ingest against the quota", 'leader disk', 'leader version'];
  return table('license', heads, rows);
}

const OFF_WORDS: Readonly<Record<string, string>> = {
  forbidden: 'forbidden (403): the token may not read',
  unauthorized: 'refused (401)',
  not_found: 'absent (404): the leader does not have',
};

function collectorsTable(views: LeaderView[], now: number): string {
  const rows = views.flatMap((v) =>
    (v.source.collectors?.() ?? []).map((c) => {
      const state = c.on
        ? '<span class="up">on</span>'
        : c.off
          ? `<span class="down">off</span>: ${e(OFF_WORDS[c.off.reason] ?? c.off.reason)} ` +
            `<code>${e(c.off.endpoint)}</code>, since ${formatAge(now - c.off.sinceMs)} ago`
          : '<span class="warn">off</span>';
      const last =
        c.lastSuccessMs === undefined ? '<span class="muted">never</span>' : `${formatAge(now - c.lastSuccessMs)} ago`;
      return `<tr data-collector="${e(c.name)}"><td>${e(v.source.name)}</td><td>${e(c.name)}</td><td>${state}</td>
<td>${last}</td></tr>`;
    }),
  );
  if (rows.length === 0) return '<p id="collectors" class="muted">No collector has run yet.</p>';
  return table('collectors', ['leader', 'collector', 'state', 'last answer'], rows);
}

/** The Cribl.Cloud workspaces as the management plane lists them, with their state (only Active ones are leaders). */
function workspacesTable(plane: ScopeItem): string {
  const m = managementFacts.of(plane);
  if (!m) return '<p id="workspaces" class="muted">Workspaces: not listed yet.</p>';
  const rows = m.workspaces.map((w) => {
    const cls = w.state === 'Active' ? 'up' : 'warn';
    return `<tr><td>${e(w.workspaceId)}</td><td><span class="${cls}">${e(w.state)}</span></td></tr>`;
  });
  const failed = m.up ? '' : ' <span class="down">the last listing failed</span>';
  return `<h2>Cribl.Cloud workspaces</h2>${failed}
${table('workspaces', ['workspace', 'state'], rows)}`;
}

/** A group with its throughput view (undefined before the collector's first window, or while it is off). */
interface GroupFlow {
  readonly leader: string;
  readonly gn: GroupNodes;
  readonly view: GroupThroughputView | undefined;
}

const groupFlows = (views: LeaderView[]): GroupFlow[] =>
  views.flatMap((v) => v.nodes.groups.map((gn) => ({ leader: v.source.name, gn, view: throughputView(gn.item) })));

/** A concern's state in words: blocked, its queue growing, or only holding data. */
function concernState(f: FlowConcern<GroupFlow>): string {
  const queue = f.queue?.growing ? 'persistent queue growing' : f.queue ? 'persistent queue holds data' : '';
  if (f.blocked) return `<span class="down">blocked</span>${queue ? `, ${queue}` : ''}`;
  return f.queue?.growing ? `<span class="warn">${queue}</span>` : `<span class="muted">${queue}</span>`;
}

/** "1 blocked, 2 queues growing", or "none". */
function groupConcerns(view: GroupThroughputView): string {
  const growing = view.queues.filter((q) => q.growing).length;
  const words = [
    view.blocked.length ? `<span class="down">${view.blocked.length} blocked</span>` : '',
    growing ? `<span class="warn">${plural(growing, 'queue')} growing</span>` : '',
  ].filter(Boolean);
  return words.length ? words.join(', ') : '<span class="up">none</span>';
}

/**
 * Data in motion: the blocked destinations and the persistent queues that hold data (blocked first, then growing
 * queues, the fuller first), then per group its events in, out and dropped per second over the last window and a
 * sparkline of the last hour, the groups with a blocked destination or a growing queue first.
 */
function flowSection(flows: readonly GroupFlow[]): string {
  if (!flows.some((f) => f.view)) {
    return '<p id="throughput" class="muted">No throughput window yet (its collector is off, or has not run).</p>';
  }
  const concerns = flows.flatMap((f) => (f.view ? concernsOf(f, f.view) : [])).sort(compareConcerns);
  const concernRows = concerns.slice(0, CONCERNS).map((f) => {
    const { product, group } = f.group.gn;
    const kind = f.blocked ? 'blocked' : f.queue?.growing ? 'growing' : 'queue';
    return `<tr class="${kind}" data-kind="${f.kind}"><td>${e(f.group.leader)}</td><td>${e(product)}/${e(group)}</td>
<td>${f.kind}</td><td><code>${e(f.id)}</code></td><td>${e(f.type)}</td><td>${concernState(f)}</td>
<td class="n">${f.queue ? formatBytes(f.queue.bytes) : ''}</td></tr>`;
  });
  const more = concerns.length > CONCERNS ? `<p class="muted">and ${concerns.length - CONCERNS} more.</p>` : '';
  const concernHeads = ['leader', 'group', 'kind', 'id', 'type', 'state', 'queue (per process)'];
  const concernTable =
    concernRows.length === 0
      ? '<p id="flow" class="up">No destination blocked, no persistent queue holds data.</p>'
      : `${table('flow', concernHeads, concernRows)}${more}`;
  const rows = [...flows]
    .sort((a, b) => groupRank(a.view) - groupRank(b.view))
    .map((f) => {
      const { product, group } = f.gn;
      const r = f.view && lastRates(f.view.history);
      const rates = r
        ? `<td class="n">${formatRate(r.in)}</td><td class="n">${formatRate(r.out)}</td>` +
          `<td class="n${r.dropped > 0 ? ' warn' : ''}">${formatRate(r.dropped)}</td>`
        : '<td class="n muted">?</td><td class="n muted">?</td><td class="n muted">?</td>';
      const spark = (f.view && sparkline(f.view.history)) ?? '<span class="muted">no window yet</span>';
      return `<tr data-group="${e(`${product}/${group}`)}"><td>${e(f.leader)}</td><td>${e(product)}</td>
<td>${e(group)}</td>${rates}<td>${spark}</td>
<td>${f.view ? groupConcerns(f.view) : '<span class="muted">not read</span>'}</td></tr>`;
    });
  const heads = ['leader', 'product', 'group', 'in/s', 'out/s', 'dropped/s', 'last hour', 'blocked or growing'];
  return `<h3>Blocked destinations and persistent queues</h3>
${concernTable}
<h3>Events per group</h3>
${table('throughput', heads, rows)}
<p class="muted">Events per second over the collector's last window, from the leader's metrics store. The last hour:
<span class="s-in">━ in</span>, <span class="s-out">╌ out</span>, <span class="s-dropped">┈ dropped</span>
(one scale per group). ? : not known (the throughput collector is off, or has not run).</p>`;
}
