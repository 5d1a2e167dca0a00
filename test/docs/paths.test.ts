/**
 * The docs name only files that exist: every repository path (`src/…`, `test/…`, `bench/…`, …) in README.md and
 * docs/*.md, and every file name in backquotes (`poller.ts`), is a file or folder of this repository.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const TOP = ['src', 'test', 'bench', 'scripts', 'deploy', 'docs', 'examples', 'packages'];

/**
 * Repository paths a text names: `src/a/b.ts`, src/a/, …; placeholders (`<name>`, `*`, `{…}`, `…`) and kubectl's
 * resources (`kubectl exec deploy/x`) left out.
 */
export function namedPaths(text: string): string[] {
  const re = new RegExp(`(?<![\\w./-])(?:${TOP.join('|')})/[\\w./-]*[\\w/]`, 'g');
  return [...text.matchAll(re)]
    .filter((m) => {
      const line = text.slice(text.lastIndexOf('\n', m.index) + 1, m.index);
      return !/^[<*{…]/.test(text.slice(m.index + m[0].length)) && !/kubectl \S+ $/.test(line);
    })
    .map((m) => m[0]);
}

/** File names in backquotes (`poller.ts`, `bundle.mjs`), without a folder. */
export function namedFiles(text: string): string[] {
  return [...text.matchAll(/`([\w.-]+\.(?:ts|mjs|js|json|jsonnet|libsonnet))`/g)].map((m) => m[1]!);
}

describe('namedPaths', () => {
  it.each<[string, string[]]>([
    ['see `src/polling/poller.ts` and src/store/', ['src/polling/poller.ts', 'src/store/']],
    ['a folder `src/collectors/<name>/`, one per collector', []],
    ['`src/*.ts` and test/{a,b}', []],
    ['https://example.com/src/x.ts is no path of ours; ../shared/research is not either', []],
    ['(`test/golden`).', ['test/golden']],
    ['`kubectl exec deploy/cribl-exporter -- node` reads deploy/kubernetes/', ['deploy/kubernetes/']],
  ])('%s', (text, paths) => expect(namedPaths(text)).toEqual(paths));
});

describe('the docs', () => {
  const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n');
  const names = new Set(files.map((f) => basename(f)));

  it.each(DOCS)('%s names only paths that exist', (doc) => {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    expect(namedPaths(text).filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it.each(DOCS)('%s names only files that exist', (doc) => {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    expect(namedFiles(text).filter((f) => !names.has(f))).toEqual([]);
  });
});
