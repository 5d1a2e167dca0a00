/**
 * What a metric family is, for every collector: its name, type, HELP, the labels it adds and how it samples one item
 * of its scope (a node, a group, a leader). A collector's families sit in its folder (src/collectors/<name>/); the
 * body renders them when /metrics is built, never per scrape.
 */
import { escapeHelp } from './escape.js';
import type { Format } from './format.js';

/** The metric type of a family. A counter's samples end in `_total`; its HELP/TYPE lines differ by format. */
export type FamilyType = 'gauge' | 'counter';

/**
 * One metric family of the snapshot. `S` is one item of its scope, `C` what the renderer gives besides it (a node's
 * group, for node families).
 */
export interface Family<S, C = unknown> {
  /** The family's name as its samples carry it (a counter's ends in `_total`). */
  readonly name: string;
  /** @default 'gauge' */
  readonly type?: FamilyType;
  /** What a value means; the collector's freshness sentence is added to make the HELP. */
  readonly what: string;
  /** Label names this family adds to its scope's (target labels, product, group, node_id). */
  readonly labels: readonly string[];
  /**
   * Collectors whose facts the samples read besides their own collector's (by name). A family is rendered again only
   * when the facts it reads changed.
   */
  readonly reads?: readonly string[];
  /**
   * The family's sample lines for one item, each ending in a newline; '' when the item has none. `base` is the
   * item's label set without the closing brace (`{site="a",product="edge"`), or '' when it has no labels.
   */
  sample(state: S, base: string, context: C): string;
}

/**
 * `# HELP` and `# TYPE` lines of a family in the given format. A counter's samples end in `_total` in both
 * formats, but OpenMetrics names the family without the suffix, and text 0.0.4 with it.
 */
export function familyHeader(name: string, type: FamilyType, help: string, format: Format): string {
  const family = type === 'counter' && format === 'openmetrics' ? name.replace(/_total$/, '') : name;
  return `# HELP ${family} ${escapeHelp(help, format)}\n# TYPE ${family} ${type}\n`;
}

/** `name{base,extra}`: a series name with its labels, for `base` and `extra` each possibly empty. */
export function series(name: string, base: string, extra = ''): string {
  if (!base) return extra ? `${name}{${extra}}` : name;
  return extra ? `${name}${base},${extra}}` : `${name}${base}}`;
}

/** An open label set (`{a="1"`, or '') with `extra` pairs added. */
export function withLabels(base: string, extra: string): string {
  return base ? `${base},${extra}` : `{${extra}`;
}

/** `{a="1",b="2"` (no closing brace): target labels first, then `rest`; '' when both are empty. */
export function openLabels(targetPairs: string, rest: string): string {
  if (!targetPairs) return rest ? `{${rest}` : '';
  return rest ? `{${targetPairs},${rest}` : `{${targetPairs}`;
}
