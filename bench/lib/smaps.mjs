// /proc/PID/smaps, parsed once for every benchmark that reads it (bench/exporter.mjs,
// bench/bare-node.mjs): one entry a mapping.

/**
 * The mappings of an smaps text: `{ range, name, perms, sizeKb, rss, dirty }`, `name` the mapped file's path (or
 * `[heap]`, `[stack]`…; `[anon]` when none), `rss` and `dirty` (Private_Dirty) in kB.
 */
export function parseSmaps(text) {
  const out = [];
  let cur;
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      cur = {
        range: `${head[1]}-${head[2]}`,
        name: head[4] || '[anon]',
        perms: head[3],
        sizeKb: (parseInt(head[2], 16) - parseInt(head[1], 16)) / 1024,
        rss: 0,
        dirty: 0,
      };
      out.push(cur);
      continue;
    }
    const m = /^(Rss|Private_Dirty):\s+(\d+) kB/.exec(line);
    if (m && cur) cur[m[1] === 'Rss' ? 'rss' : 'dirty'] = Number(m[2]);
  }
  return out;
}

/** Kinds of mapping under this many resident kB are left out of `residentMb` (libraries' slivers). */
export const RESIDENT_FLOOR_KB = 256;

/** Resident MB by kind (`rssByMapping`) of an smaps text, the kinds of RESIDENT_FLOOR_KB or more, largest first. */
export function residentMb(smapsText) {
  return Object.fromEntries(
    [...rssByMapping(parseSmaps(smapsText))]
      .filter(([, kb]) => kb >= RESIDENT_FLOOR_KB)
      .sort((x, y) => y[1] - x[1])
      .map(([k, kb]) => [k, +(kb / 1024).toFixed(1)]),
  );
}

/**
 * Resident kB summed by file and kind of access: `node x` (the node binary's code), `node r` (its read-only data:
 * V8's snapshot, ICU), `[anon] w` (V8's heap, thread stacks, malloc's mmaps), `[heap] w` (malloc's brk heap)…
 */
export function rssByMapping(mappings) {
  const kb = new Map();
  for (const m of mappings) {
    const key = `${m.name.replace(/.*\//, '')} ${m.perms.includes('x') ? 'x' : m.perms.includes('w') ? 'w' : 'r'}`;
    kb.set(key, (kb.get(key) ?? 0) + m.rss);
  }
  return kb;
}
