// Types of metrics-text.mjs (for the TypeScript tests in test/bench).

/** One sample line of the text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A family of the snapshot part, as prom-client needs it. */
export interface SnapshotFamily {
  name: string;
  help: string;
  labelNames: string[];
  samples: Sample[];
}

/** Turns an exposition value ("1", "+Inf", "NaN", "1.5e9") into a number. */
export function parseValue(text: string): number;
/** Undoes label value escaping (\\, \", \n). */
export function unescapeLabel(text: string): string;
/** Parses one sample line; undefined for comments, blank and malformed lines. */
export function parseSampleLine(line: string): Sample | undefined;
/** Calls `fn(line)` for each line of `text`. */
export function forEachLine(text: string, fn: (line: string) => void): void;
/** Counts all sample lines, and those of the snapshot part (not cribl_exporter_*, process_*, nodejs_*). */
export function countSeries(text: string): { all: number; snapshot: number };
/** Counts nodes whose cribl_node_health_up is 1. */
export function countHealthUp(text: string): number;
/** The value of the first sample of `name` whose labels include `labels`; undefined when absent. */
export function sampleValue(text: string, name: string, labels?: Record<string, string>): number | undefined;
/** Families of the snapshot part with their HELP, label names and samples, in body order. */
export function snapshotFamilies(text: string): SnapshotFamily[];
/** The sum of every sample of `name` by the value of its label `label`. */
export function sumBy(text: string, name: string, label: string): Record<string, number>;
