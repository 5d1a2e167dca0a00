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
  /** `--packs.interval` (read only with `--collector.packs`). */
  packsMs?: number;
  /** `--search.probe-interval`; absent when the probe is off. */
  searchProbeMs?: number;
}

/** Where a family's values come from. */
export type Source = 'discovery' | 'listing' | 'health' | 'metadata' | 'packs' | 'search' | 'management';

/** The metric type of a family. A counter's samples end in `_total`; its HELP/TYPE lines differ by format. */
export type FamilyType = 'gauge' | 'counter';

/** One metric family of the snapshot. `S` is the state of one item of its scope. */
export interface Family<S> {
  /** The family's name as its samples carry it (a counter's ends in `_total`). */
  readonly name: string;
  /** @default 'gauge' */
  readonly type?: FamilyType;
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
  /**
   * The family reads a value that changes with nearly every poll or listing (a node family: one of the store's
   * VOLATILE_FIELDS, src/store/node-table.ts). A build renders such a family every time; any other node family's
   * text of a run of nodes whose states did not change but for those values is taken from the last build.
   */
  readonly volatile?: true;
}

/** The same family, marked `volatile`. */
export function volatile<S>(family: Family<S>): Family<S> {
  return { ...family, volatile: true };
}

/** A family as a plain description, for documentation and headers. */
export type FamilyDef = Pick<Family<unknown>, 'name' | 'type' | 'source' | 'what'>;

const every = (ms: number | undefined): string => (ms ? formatDuration(ms) : 'interval (off by default)');

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
    case 'packs':
      return `Read every ${every(intervals.packsMs)} through the leader (--collector.packs); cached in between.`;
    case 'search':
      return `Probed every ${every(intervals.searchProbeMs)} through the leader; cached between probes.`;
    case 'management':
      return (
        `From the Cribl.Cloud management plane, refreshed every ${formatDuration(intervals.discoveryMs)}; cached in ` +
        `between.`
      );
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

/**
 * `# HELP` and `# TYPE` lines of a family in the given format. A counter's samples end in `_total` in both
 * formats, but OpenMetrics names the family without the suffix, and text 0.0.4 with it.
 */
export function familyHeader(name: string, type: FamilyType, help: string, format: Format): string {
  if (type === 'gauge') return gaugeHeader(name, help, format);
  const family = format === 'openmetrics' ? name.replace(/_total$/, '') : name;
  return `# HELP ${family} ${escapeHelp(help, format)}\n# TYPE ${family} counter\n`;
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
