/**
 * The status page's "Node detail and polling" table: per leader and product, the node detail level in force, how its
 * nodes' health is polled (every interval at full; a rotation at basic and minimal, with its rate and how long it
 * takes to poll every node once) and how fresh each fact is (the listing's at each discovery).
 */
import type { Product } from '@cribl-exporter/api/products';
import { detailFacts, type DetailFacts } from '../../collectors/detail.js';
import type { ScopeItem } from '../../collectors/collector.js';
import { formatAge } from './time.js';

/** A rotating product's health polls as the poller runs them. */
export interface RotationView {
  readonly nodes: number;
  readonly rps: number;
  /** Seconds to poll every node of the product once at `rps`. */
  readonly seconds: number;
}

/** What the table reads of one leader. */
export interface PollingSource {
  readonly name: string;
  readonly leader: ScopeItem;
  /** The health interval (--health.interval). */
  readonly targetMs: number;
  /** The discovery interval in force (longer than --discovery.interval from 100,000 listed nodes). */
  readonly discoveryIntervalMs?: number;
  readonly rotations?: Readonly<Partial<Record<Product, RotationView>>>;
}

const e = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const rate = (rps: number): string => (rps >= 10 ? rps.toFixed(0) : rps.toFixed(1));

/** One product's row. */
function row(s: PollingSource, facts: DetailFacts, product: Product): string {
  const level = facts.levels[product] ?? 'full';
  const listed = facts.nodes[product] ?? 0;
  const discovery =
    s.discoveryIntervalMs === undefined ? 'each discovery' : `every ${formatAge(s.discoveryIntervalMs)}`;
  const r = s.rotations?.[product];
  const health =
    r === undefined
      ? `every node every ${formatAge(s.targetMs)}`
      : `rotating, oldest first: ${rate(r.rps)}/s, every node once in ${formatAge(r.seconds * 1000)} ` +
        `(${r.nodes} polled here); never an overrun`;
  const fresh =
    r === undefined
      ? `health at most ${formatAge(s.targetMs)} old; listing ${discovery}`
      : `liveness (connected, last heartbeat) from the listing ${discovery}; health at most ` +
        `${formatAge(r.seconds * 1000)} old`;
  return (
    `<tr><td>${e(s.name)}</td><td>${e(product)}</td><td class="level">${e(level)}</td>` +
    `<td class="n">${listed}</td><td class="health">${health}</td><td class="muted">${fresh}</td></tr>`
  );
}

/** The table, or a line saying no discovery has decided a level yet. */
export function pollingTable(sources: readonly PollingSource[]): string {
  const rows: string[] = [];
  for (const s of sources) {
    const facts = detailFacts.of(s.leader);
    if (!facts) continue;
    for (const product of Object.keys(facts.levels) as Product[]) rows.push(row(s, facts, product));
  }
  if (rows.length === 0) return '<p id="polling" class="muted">No discovery has listed a fleet yet.</p>';
  const heads = ['leader', 'product', 'node detail', 'listed nodes', 'health polls', 'how fresh'];
  return `<div class="scroll"><table id="polling"><thead><tr>${heads.map((h) => `<th>${h}</th>`).join('')}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table></div>`;
}
