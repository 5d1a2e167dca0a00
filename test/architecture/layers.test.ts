/**
 * The layering of src/: a module may import modules of its own layer and of the layers below it, never above.
 * The order is written once, in docs/ARCHITECTURE.md (the line starting `layers, lowest first:`); this test reads
 * it there and checks every import of every file in src/ against it. Besides: no two files import each other, even
 * through others (type-only and lazy imports count), the body engine (src/exposition/body/) is entered only
 * through its index.ts, and the simulator only by the simulate and demo commands, through its index.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

/** The layer order from docs/ARCHITECTURE.md; `app` stands for the files directly in src/. */
function layerOrder(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const m = /^layers, lowest first: (.+)$/m.exec(doc);
  if (!m?.[1]) throw new Error('docs/ARCHITECTURE.md has no line starting "layers, lowest first:"');
  return m[1].split(',').map((s) => s.trim().replace(/[`.]/g, ''));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

function layerOf(file: string): string {
  const rel = relative(SRC, file).split('/');
  return rel.length === 1 ? 'app' : (rel[0] ?? '');
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every relative import of a file, resolved to a file path. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? '';
    if (spec.startsWith('.')) out.push(resolve(dirname(file), spec));
  }
  return out;
}

/** An import's target as a source file (`./x.js` is `./x.ts`). */
function asFile(target: string): string {
  return target.replace(/\.js$/, '.ts');
}

/** The strongly connected components of more than one file (or a file importing itself), each sorted. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      scc.push(w);
      if (w === v) break;
    }
    if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('layering of src/', () => {
  const order = layerOrder();
  const files = sourceFiles(SRC);

  it('names every folder of src/ in the documented order', () => {
    const folders = new Set(files.map(layerOf));
    expect([...folders].filter((f) => !order.includes(f))).toEqual([]);
  });

  it('has no import from a lower layer into a higher one', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const target of importsOf(file)) {
        const to = layerOf(target);
        if (order.indexOf(to) > order.indexOf(from)) {
          violations.push(`${relative(ROOT, file)} (${from}) imports ${relative(ROOT, target)} (${to})`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it('has no import cycle between files (type-only and lazy imports included)', () => {
    const known = new Set(files);
    const graph = new Map(
      files.map((f) => [
        f,
        importsOf(f)
          .map(asFile)
          .filter((t) => known.has(t)),
      ]),
    );
    expect(cycles(graph).map((c) => c.map((f) => relative(ROOT, f)).join(' → '))).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself)', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cycles(g)).toEqual([['a', 'b', 'c']]);
    expect(cycles(new Map([['a', ['a']]]))).toEqual([['a']]);
  });

  it('enters the body engine only through src/exposition/body/index.ts', () => {
    const engine = join(SRC, 'exposition/body') + '/';
    const outside = files.filter((f) => !f.startsWith(engine));
    const leaks = outside.flatMap((f) =>
      importsOf(f)
        .map(asFile)
        .filter((t) => t.startsWith(engine) && t !== join(engine, 'index.ts'))
        .map((t) => `${relative(ROOT, f)} imports ${relative(ROOT, t)}`),
    );
    expect(leaks).toEqual([]);
    expect(outside.some((f) => importsOf(f).map(asFile).includes(join(engine, 'index.ts')))).toBe(true);
  });

  it('imports the simulator only in the simulate and demo commands, through its index', () => {
    const sim = join(SRC, 'simulator') + '/';
    const allowed = ['commands/simulate.ts', 'commands/demo.ts'].map((f) => join(SRC, f));
    const importers = files
      .filter((f) => !f.startsWith(sim))
      .flatMap((f) =>
        importsOf(f)
          .map(asFile)
          .filter((t) => t.startsWith(sim))
          .map((t) => `${relative(ROOT, f)} imports ${relative(ROOT, t)}`),
      );
    const expected = allowed.map((f) => `${relative(ROOT, f)} imports src/simulator/index.ts`);
    expect([...new Set(importers)].sort()).toEqual(expected.sort());
  });

  it('finds the imports it checks (a parser that found none would pass anything)', () => {
    const all = files.flatMap(importsOf);
    expect(all.length).toBeGreaterThan(files.length);
    expect(importsOf(join(SRC, 'exporter/app.ts')).some((t) => layerOf(t) === 'polling')).toBe(true);
  });
});
