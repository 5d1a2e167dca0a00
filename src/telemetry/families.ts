/**
 * The exporter's own metric families, kept by the exporter: a counter, a gauge and a histogram over plain maps, each
 * series found once by its label values. They render through the JSON shape prom-client's `getMetricsAsJSON()` gives
 * (so its default process and Node.js metrics, rendered beside them, go through the same `renderJsonFamily`), in the
 * series order prom-client would keep: first set first, a removed series appended again when it comes back.
 *
 * Why not prom-client's own counters: its labelled children validate and hash their label set again on every inc(),
 * set() and observe(), which the leader's every request pays, and reaching past them into its private entries is not
 * its API.
 */
import { escapeHelp, escapeLabelValue, formatValue, labelText } from '../format/escape.js';
import type { Format } from '../format/format.js';

/** One family as prom-client's `getMetricsAsJSON()` gives it (its typings declare `type` as a numeric enum). */
export interface JsonMetric {
  name: string;
  help: string;
  type: unknown;
  values: { value: number; labels: Record<string, unknown>; metricName?: string }[];
}

/** Renders one family of that JSON shape in either format. */
export function renderJsonFamily(metric: JsonMetric, format: Format): string {
  const type = String(metric.type);
  const counter = type === 'counter';
  // OpenMetrics: the family of a counter is named without `_total`; its sample keeps the suffix.
  const family = format === 'openmetrics' && counter ? metric.name.replace(/_total$/, '') : metric.name;
  let out = `# HELP ${family} ${escapeHelp(metric.help, format)}\n# TYPE ${family} ${type}\n`;
  for (const v of metric.values) {
    let name = v.metricName ?? metric.name;
    if (counter && !name.endsWith('_total')) name += '_total';
    const pairs = Object.entries(v.labels).map(([k, l]) => `${k}="${escapeLabelValue(labelText(l))}"`);
    out += `${name}${pairs.length ? `{${pairs.join(',')}}` : ''} ${formatValue(v.value)}\n`;
  }
  return out;
}

type Labels<L extends string> = Readonly<Record<L, string>>;

/** What every family has: its name, HELP, label names and series by label values. */
abstract class Family<L extends string, S extends { labels: Labels<L> }> {
  readonly #series = new Map<string, S>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
  ) {}

  /** The series' key: its label values in the family's label order (a label set is one series in any key order). */
  protected key(labels: Labels<L>): string {
    return this.labelNames.map((n) => labels[n]).join('\u0000');
  }

  protected series(): IterableIterator<S> {
    return this.#series.values();
  }

  protected get(key: string): S | undefined {
    return this.#series.get(key);
  }

  protected put(key: string, s: S): S {
    this.#series.set(key, s);
    return s;
  }

  /** Drops the series of exactly these labels. */
  remove(labels: Labels<L>): void {
    this.#series.delete(this.key(labels));
  }

  /** Drops every series whose label `name` is `value`. */
  removeWhere(name: string, value: string): void {
    for (const [k, s] of this.#series) if ((s.labels as Record<string, string>)[name] === value) this.#series.delete(k);
  }

  abstract json(): JsonMetric;
}

interface ValueSeries<L extends string> {
  labels: Labels<L>;
  value: number;
}

/** A family of one number per series: `add` counts up (a counter), else the value is set (a gauge). */
abstract class ValueFamily<L extends string> extends Family<L, ValueSeries<L>> {
  protected abstract readonly type: 'counter' | 'gauge';

  constructor(name: string, help: string, labelNames: readonly L[]) {
    super(name, help, labelNames);
    // A family without labels has its one series from the start, at 0.
    if (labelNames.length === 0) this.put('', { labels: {} as Labels<L>, value: 0 });
  }

  json(): JsonMetric {
    return { name: this.name, help: this.help, type: this.type, values: [...this.series()] };
  }
}

/** A counter: a series starts at its first `inc` (0 counts), and only goes up. */
export class OwnCounter<L extends string = never> extends ValueFamily<L> {
  protected readonly type = 'counter';

  inc(labels: Labels<L>, n = 1): void {
    if (n && !Number.isFinite(n)) throw new TypeError(`Value is not a valid number: ${n}`);
    if (n < 0) throw new Error('It is not possible to decrease a counter');
    const key = this.key(labels);
    const s = this.get(key);
    if (s) s.value += n;
    else this.put(key, { labels, value: n });
  }

  /** `inc` of one series, its entry found once (again after a `remove`). */
  child(labels: Labels<L>): (n: number) => void {
    const key = this.key(labels);
    let s: ValueSeries<L> | undefined;
    return (n) => {
      if (s === undefined || this.get(key) !== s) {
        this.inc(labels, n);
        s = this.get(key);
      } else s.value += n;
    };
  }
}

/** A gauge: a series holds the last value set (and the labels it was set with). */
export class OwnGauge<L extends string = never> extends ValueFamily<L> {
  protected readonly type = 'gauge';

  set(labels: Labels<L>, value: number): void {
    if (typeof value !== 'number') throw new TypeError(`Value is not a valid number: ${String(value)}`);
    const key = this.key(labels);
    const s = this.get(key);
    if (s) {
      s.labels = labels;
      s.value = value;
    } else this.put(key, { labels, value });
  }

  /** `set` of one series, its entry found once (again after a `remove`). */
  child(labels: Labels<L>): (value: number) => void {
    const key = this.key(labels);
    let s: ValueSeries<L> | undefined;
    return (value) => {
      if (s === undefined || this.get(key) !== s) {
        this.set(labels, value);
        s = this.get(key);
      } else s.value = value;
    };
  }
}

interface HistogramSeries<L extends string> {
  labels: Labels<L>;
  sum: number;
  count: number;
  /** Observations per upper bound (not cumulative); one above every bound is in none. */
  buckets: number[];
}

/** A histogram over fixed upper bounds. */
export class OwnHistogram<L extends string> extends Family<L, HistogramSeries<L>> {
  constructor(
    name: string,
    help: string,
    labelNames: readonly L[],
    readonly bounds: readonly number[],
  ) {
    super(name, help, labelNames);
  }

  observe(labels: Labels<L>, seconds: number): void {
    const key = this.key(labels);
    this.#observe(this.get(key) ?? this.#create(key, labels), seconds);
  }

  /** `observe` of one series, its entry found once (again after a `remove`). */
  child(labels: Labels<L>): (seconds: number) => void {
    const key = this.key(labels);
    let s: HistogramSeries<L> | undefined;
    return (seconds) => {
      if (s === undefined || this.get(key) !== s) s = this.get(key) ?? this.#create(key, labels);
      this.#observe(s, seconds);
    };
  }

  #create(key: string, labels: Labels<L>): HistogramSeries<L> {
    return this.put(key, { labels, sum: 0, count: 0, buckets: this.bounds.map(() => 0) });
  }

  #observe(s: HistogramSeries<L>, seconds: number): void {
    if (!Number.isFinite(seconds)) throw new TypeError(`Value is not a valid number: ${seconds}`);
    s.sum += seconds;
    s.count += 1;
    const i = this.bounds.findIndex((b) => seconds <= b);
    if (i >= 0) s.buckets[i]! += 1;
  }

  /** prom-client's shape: cumulative buckets labelled `le` first, then `+Inf`, `_sum` and `_count`. */
  json(): JsonMetric {
    const values: JsonMetric['values'] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.series()) {
      let acc = 0;
      for (const [i, le] of this.bounds.entries()) {
        acc += s.buckets[i]!;
        values.push({ labels: { le, ...s.labels }, value: acc, metricName: bucket });
      }
      values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: bucket });
      values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...s.labels }, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: 'histogram', values };
  }
}

/** Any of them. */
export type OwnFamily = OwnCounter<string> | OwnGauge<string> | OwnHistogram<string>;
