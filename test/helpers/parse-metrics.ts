/** One sample of a text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses Prometheus text (0.0.4) or OpenMetrics samples, unescaping label values; comments are skipped. */
export function parseSamples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    let i = 0;
    while (i < line.length && line[i] !== '{' && line[i] !== ' ') i++;
    const name = line.slice(0, i);
    const labels: Record<string, string> = {};
    if (line[i] === '{') {
      i++;
      while (line[i] !== '}') {
        const eq = line.indexOf('=', i);
        const key = line.slice(i, eq);
        i = eq + 2; // skip ="
        let value = '';
        while (line[i] !== '"') {
          if (line[i] === '\\') {
            const c = line[i + 1];
            value += c === 'n' ? '\n' : c;
            i += 2;
          } else value += line[i++];
        }
        labels[key] = value;
        i++; // closing quote
        if (line[i] === ',') i++;
      }
      i++;
    }
    const value = line
      .slice(i + 1)
      .trim()
      .split(' ')[0]!;
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
