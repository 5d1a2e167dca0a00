// Sections of BENCHMARKS.md that `npm run bench` does not generate and keeps across runs, each between two markers:
//   <!-- BEGIN KEPT name: who writes it -->  …  <!-- END KEPT name -->
// "mechanisms" is written by hand (the body engine's mechanisms, kept or cut, with their figures); "alternative" by
// `npm run bench:alternative`, which replaces only its own block. Pure: text in, text out.

const BLOCK = /<!-- BEGIN KEPT ([a-z-]+)(?:: [^>]*)? -->\n[\s\S]*?\n<!-- END KEPT \1 -->/g;

/** Who writes each kept section, as its BEGIN marker says. */
export const KEPT = {
  mechanisms: 'written by hand; npm run bench keeps it as it is',
  alternative: 'written by npm run bench:alternative; npm run bench keeps it as it is',
};

/** The kept blocks of a document, markers included, by name. */
export function keptSections(doc) {
  const out = {};
  for (const m of (doc ?? '').matchAll(BLOCK)) out[m[1]] = m[0];
  return out;
}

/** A block named `name` around `body` (its text without markers). */
export function keptBlock(name, body) {
  return `<!-- BEGIN KEPT ${name}: ${KEPT[name] ?? 'kept across runs'} -->\n${body.trim()}\n<!-- END KEPT ${name} -->`;
}

/**
 * `doc` with the block named like `block` replaced by it; where `doc` has none, the block is inserted before the
 * heading `before` (or appended).
 */
export function spliceKept(doc, block, before = '## How to reproduce') {
  const name = /<!-- BEGIN KEPT ([a-z-]+)/.exec(block)?.[1];
  if (!name) throw new Error('spliceKept: not a kept block');
  const existing = keptSections(doc)[name];
  if (existing !== undefined) return doc.replace(existing, () => block);
  const at = doc.indexOf(`\n${before}`);
  if (at < 0) return `${doc.trimEnd()}\n\n${block}\n`;
  return `${doc.slice(0, at + 1)}${block}\n\n${doc.slice(at + 1)}`;
}

/** The Mechanisms section until the lead writes it: a heading, what it is for, and an empty table. */
export const MECHANISMS_PLACEHOLDER = keptBlock(
  'mechanisms',
  [
    '## Mechanisms of the body engine',
    '',
    'Each speed or memory mechanism of the body engine, taken out in turn and measured with `npm run bench` (issue 38):',
    'a mechanism stays only where removing it costs more than 10 % on a headline figure (RSS, steady CPU, full-render',
    'loop time, gzip scrape, coverage) at 2k, 10k or 50k nodes. Written by hand; the figures are those of the runs',
    'named in each row.',
    '',
    '| mechanism | what it does | figure without it | kept/cut |',
    '|---|---|---|---|',
    '| (to be filled) | | | |',
  ].join('\n'),
);
