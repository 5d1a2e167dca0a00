// Reading Prometheus text exposition in the benchmark: series counts, single values, and samples with
// labels (to rebuild the same series in prom-client). Pure functions over strings.

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \S+)?$/;
const PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Turns an exposition value ("1", "+Inf", "NaN", "1.5e9") into a number. */
export function parseValue(text) {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  return Number(text);
}

/** Undoes label value escaping (\\, \", \n). */
export function unescapeLabel(text) {
  return text.replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
}

/** Parses one sample line; undefined for comments, blank and malformed lines. */
export function parseSampleLine(line) {
  if (line === '' || line.startsWith('#')) return undefined;
  const m = SAMPLE.exec(line);
  if (!m) return undefined;
  const labels = {};
  for (const p of (m[2] ?? '').matchAll(PAIR)) labels[p[1]] = unescapeLabel(p[2]);
  return { name: m[1], labels, value: parseValue(m[3]) };
}

/** Calls `fn(line)` for each line of `text` without splitting it into one huge array. */
export function forEachLine(text, fn) {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    fn(text.slice(start, end));
    start = end + 1;
  }
}

/**
 * Counts series of a body: all sample lines, and those of the snapshot part (every family except the
 * exporter's own cribl_exporter_*, process_* and nodejs_*), which is what the cache and prom-client hold.
 */
export function countSeries(text) {
  let all = 0;
  let snapshot = 0;
  forEachLine(text, (line) => {
    if (line === '' || line.startsWith('#')) return;
    all++;
    if (line.startsWith('cribl_') && !line.startsWith('cribl_exporter_')) snapshot++;
  });
  return { all, snapshot };
}

/** Counts nodes whose cribl_node_health_up is 1 (answered their last health poll). */
export function countHealthUp(text) {
  let up = 0;
  forEachLine(text, (line) => {
    if (line.startsWith('cribl_node_health_up{') && line.endsWith(' 1')) up++;
  });
  return up;
}

/** The value of the first sample of `name` whose labels include `labels`; undefined when absent. */
export function sampleValue(text, name, labels = {}) {
  let found;
  const prefix = `${name}`;
  forEachLine(text, (line) => {
    if (found !== undefined || !line.startsWith(prefix)) return;
    const s = parseSampleLine(line);
    if (s && s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) found = s.value;
  });
  return found;
}

/**
 * Families of the snapshot part with their HELP, label names and samples, in body order: what a
 * prom-client registry needs to hold the same series.
 */
export function snapshotFamilies(text) {
  const families = new Map();
  const family = (name) => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, help: name, labelNames: new Set(), samples: [] }));
    return f;
  };
  forEachLine(text, (line) => {
    if (line.startsWith('# HELP ')) {
      const rest = line.slice(7);
      const sp = rest.indexOf(' ');
      const name = sp === -1 ? rest : rest.slice(0, sp);
      if (name.startsWith('cribl_') && !name.startsWith('cribl_exporter_'))
        family(name).help =
          sp === -1
            ? name
            : rest
                .slice(sp + 1)
                .replace(/\\n/g, '\n')
                .replace(/\\\\/g, '\\');
      return;
    }
    if (!line.startsWith('cribl_') || line.startsWith('cribl_exporter_')) return;
    const s = parseSampleLine(line);
    if (!s) return;
    const f = family(s.name);
    for (const k of Object.keys(s.labels)) f.labelNames.add(k);
    f.samples.push(s);
  });
  return [...families.values()].map((f) => ({ ...f, labelNames: [...f.labelNames] }));
}

/** The sum of every sample of `name` by the value of its label `label` (e.g. requests by endpoint). */
export function sumBy(text, name, label) {
  const out = {};
  forEachLine(text, (line) => {
    if (!line.startsWith(name)) return;
    const s = parseSampleLine(line);
    if (!s || s.name !== name) return;
    const key = s.labels[label] ?? '';
    out[key] = (out[key] ?? 0) + s.value;
  });
  return out;
}
