import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './prometheusrule.js';

/** A `## heading` section of a docs file (up to the next `## `), without the fenced blocks' false headings. */
export function docsSection(file: string, heading: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${file} has no section "## ${heading}"`);
  const rest = text.slice(start + 1);
  const lines = rest.split('\n');
  let fenced = false;
  const out: string[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.startsWith('```')) fenced = !fenced;
    if (i > 0 && !fenced && line.startsWith('## ')) break;
    out.push(line);
  }
  return out.join('\n');
}

/** The fenced blocks of a text in a language, in order. */
export function fencedBlocks(text: string, lang: string): string[] {
  return [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

/** The commands of `sh` blocks: continuation lines joined, comments and blank lines dropped. */
export function shellCommands(text: string): string[] {
  return fencedBlocks(text, 'sh')
    .flatMap((b) => b.replace(/\\\n\s*/g, '').split('\n'))
    .map((l) => l.replace(/\s+#\s.*$/, '').trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}
