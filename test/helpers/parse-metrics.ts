/** One sample of a text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Parses Prometheus text (0.0.4) or OpenMetrics samples, unescaping label values; comments are skipped. Tests parse
 * large bodies many times (a scrape a second of fake time): it slices, never walks a line a character at a time.
 * With `only`, samples of other metrics are skipped before their labels are read.
 */
export function parseSamples(text: string, only?: ReadonlySet<string>): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.indexOf(' ');
    const brace = line.indexOf('{');
    const hasLabels = brace >= 0 && (space < 0 || brace < space);
    let i = hasLabels ? brace : space < 0 ? line.length : space;
    const name = line.slice(0, i);
    if (only && !only.has(name)) continue;
    const labels: Record<string, string> = {};
    if (hasLabels) {
      i++;
      while (line[i] !== '}') {
        const eq = line.indexOf('=', i);
        const key = line.slice(i, eq);
        i = eq + 2; // skip ="
        // Up to the closing quote: escapes (\\, \", \n) are rare.
        let value = '';
        for (;;) {
          const quote = line.indexOf('"', i);
          if (quote < 0) throw new Error(`unterminated label value: ${line}`);
          const backslash = line.indexOf('\\', i);
          if (backslash < 0 || backslash > quote) {
            value += line.slice(i, quote);
            i = quote;
            break;
          }
          const c = line[backslash + 1];
          value += line.slice(i, backslash) + (c === 'n' ? '\n' : c);
          i = backslash + 2;
        }
        labels[key] = value;
        i++; // closing quote
        if (line[i] === ',') i++;
      }
      i++;
    }
    // The value, then perhaps a timestamp.
    const rest = line.slice(i + 1).trim();
    const end = rest.indexOf(' ');
    const value = end < 0 ? rest : rest.slice(0, end);
    out.push({ name, labels, value: value === '+Inf' ? Infinity : value === '-Inf' ? -Infinity : Number(value) });
  }
  return out;
}

/** Samples of one metric, keyed by node_id. */
export function byNode(samples: readonly Sample[], name: string): Map<string, Sample[]> {
  const m = new Map<string, Sample[]>();
  for (const s of samples) {
    if (s.name !== name) continue;
    const id = s.labels.node_id ?? '';
    m.set(id, [...(m.get(id) ?? []), s]);
  }
  return m;
}
