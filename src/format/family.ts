/**
 * What a metric family is, for every collector: its name, type, the labels it adds, where its values come
 * from (which decides the freshness sentence of its HELP) and how it samples one item of its scope (a node, a
 * group, a leader). Families are rendered to text when their data changes, never per scrape.
 */
import { formatDuration } from '../util/duration.js';
import { escapeHelp } from './escape.js';
import type { Format } from './format.js';

/** How often each source of data is refreshed, for HELP text. */
export interface RefreshIntervals {
  discoveryMs: number;
  healthMs: number;
  metadataMs: number;
}

/** Where a family's values come from. */
export type Source = 'discovery' | 'listing' | 'health' | 'metadata';

/** One metric family of the snapshot. `S` is the state of one item of its scope. */
export interface Family<S> {
  readonly name: string;
  readonly source: Source;
  /** What a value means; the freshness sentence is added from `source`. */
  readonly what: string;
  /** Label names this family adds to its scope's (target labels, product, group, node_id). */
  readonly labels: readonly string[];
  /**
   * The family's sample lines for one item, each ending in a newline; '' when the item has none. `base` is the
   * item's label set without the closing brace (`{site="a",product="edge"`), or '' when it has no labels.
   */
  sample(state: S, base: string): string;
}

/** A family as a plain description, for documentation and headers. */
export type FamilyDef = Pick<Family<unknown>, 'name' | 'source' | 'what'>;

function refreshSentence(source: Source, intervals: RefreshIntervals): string {
  switch (source) {
    case 'discovery':
      return `Refreshed by discovery every ${formatDuration(intervals.discoveryMs)}; cached in between.`;
    case 'listing':
      return (
        `From the leader's node listing, refreshed every ${formatDuration(intervals.discoveryMs)}; cached in ` +
        `between.`
      );
    case 'health':
      return `Polled every ${formatDuration(intervals.healthMs)} through the leader; cached between polls.`;
    case 'metadata':
      return `Polled every ${formatDuration(intervals.metadataMs)} through the leader; cached between polls.`;
  }
}

/** HELP text of a family, including how often it is refreshed. */
export function familyHelp(family: FamilyDef, intervals: RefreshIntervals): string {
  return `${family.what} ${refreshSentence(family.source, intervals)}`;
}

/** `# HELP` and `# TYPE` lines of a gauge family in the given format. */
export function gaugeHeader(name: string, help: string, format: Format): string {
  return `# HELP ${name} ${escapeHelp(help, format)}\n# TYPE ${name} gauge\n`;
}

/** `name{base,extra}`: a series name with its labels, for `base` and `extra` each possibly empty. */
export function series(name: string, base: string, extra = ''): string {
  if (!base) return extra ? `${name}{${extra}}` : name;
  return extra ? `${name}${base},${extra}}` : `${name}${base}}`;
}

/** `{a="1",b="2"` (no closing brace): target labels first, then `rest`; '' when both are empty. */
export function openLabels(targetPairs: string, rest: string): string {
  if (!targetPairs) return rest ? `{${rest}` : '';
  return rest ? `{${targetPairs},${rest}` : `{${targetPairs}`;
}
