/**
 * The layering of src/: a module may import modules of its own layer and of the layers below it, never above.
 * The order is written once, in docs/ARCHITECTURE.md (the line starting `layers, lowest first:`); this test reads
 * it there and checks every import of every file in src/ against it. Besides: no two files import each other, even
 * through others (type-only and lazy imports count; src/ and the workspace packages in packages/ together), the
 * body engine (src/exposition/body/) is entered only through its index.ts, and the packages keep apart: the
 * simulator (packages/simulator) imports nothing of the exporter's but the shared API package (packages/api), which
 * imports neither, and the exporter imports the simulator only in its simulate and demo commands.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');
const PACKAGES = join(ROOT, 'packages');
const API = join(PACKAGES, 'api/src');
const SIMULATOR = join(PACKAGES, 'simulator/src');

/** Where the exporter may import the simulator: the simulate and demo commands (src/commands/). */
const SIMULATOR_IMPORTERS = /^src\/commands\/(simulate|demo)\.ts$/;

/** The workspace packages by name, each with its `exports` (subpath → source file), from their package.json. */
const WORKSPACE = new Map(
  readdirSync(PACKAGES).map((dir) => {
    const pkg = JSON.parse(readFileSync(join(PACKAGES, dir, 'package.json'), 'utf8')) as {
      name: string;
      exports: Record<string, string>;
    };
    return [pkg.name, { dir: join(PACKAGES, dir), exports: pkg.exports }] as const;
  }),
);

/** A workspace package's import (`@cribl-exporter/api/shapes`) as the source file its `exports` map it to. */
function workspaceFile(spec: string): string | undefined {
  for (const [name, { dir, exports }] of WORKSPACE) {
    if (spec !== name && !spec.startsWith(name + '/')) continue;
    const sub = '.' + spec.slice(name.length);
    const exact = exports[sub];
    if (exact) return join(dir, exact);
    const wildcard = exports['./*'];
    if (wildcard && sub.startsWith('./')) return join(dir, wildcard.replace('*', sub.slice(2)));
    throw new Error(`${spec}: not in the exports of ${name}`);
  }
  return undefined;
}

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

/** Every import of a file as written. */
function specifiersOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? '');
}

/** Every relative import of a file, resolved to a file path. */
function importsOf(file: string): string[] {
  return specifiersOf(file)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => resolve(dirname(file), spec));
}

/** Every import of a file within the repository (relative, or of a workspace package), as a source file. */
function localImportsOf(file: string): string[] {
  return specifiersOf(file).flatMap((spec) => {
    if (spec.startsWith('.')) return [asFile(resolve(dirname(file), spec))];
    const target = workspaceFile(spec);
    return target === undefined ? [] : [target];
  });
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

  it('has no import cycle between files, src/ and packages/ together (type-only and lazy imports included)', () => {
    const all = [...files, ...sourceFiles(PACKAGES).filter((f) => f.includes('/src/'))];
    const known = new Set(all);
    const graph = new Map(all.map((f) => [f, localImportsOf(f).filter((t) => known.has(t))]));
    expect(graph.get(join(SRC, 'commands/demo.ts'))?.some((t) => t.startsWith(SIMULATOR))).toBe(true);
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

  it('finds the imports it checks (a parser that found none would pass anything)', () => {
    const all = files.flatMap(importsOf);
    expect(all.length).toBeGreaterThan(files.length);
    expect(importsOf(join(SRC, 'exporter/app.ts')).some((t) => layerOf(t) === 'polling')).toBe(true);
  });
});

describe('the workspace packages', () => {
  const exporter = sourceFiles(SRC);
  const simulator = sourceFiles(SIMULATOR);
  const api = sourceFiles(API);
  const rel = (f: string): string => relative(ROOT, f);
  /** Imports of `files` that are neither inside `allowed` nor npm packages: relative paths out, other workspaces. */
  const reachingOut = (files: string[], inside: string, packages: readonly string[]): string[] =>
    files.flatMap((f) =>
      specifiersOf(f)
        .filter((spec) => {
          if (spec.startsWith('.')) return !resolve(dirname(f), spec).startsWith(inside + '/');
          if (!spec.startsWith('@cribl-exporter/') && spec !== 'cribl-exporter') return false;
          return !packages.some((p) => spec === p || spec.startsWith(p + '/'));
        })
        .map((spec) => `${rel(f)} imports ${spec}`),
    );

  it('the simulator imports nothing of the exporter, only itself, the API package and npm packages', () => {
    expect(simulator.length).toBeGreaterThan(20);
    expect(reachingOut(simulator, SIMULATOR, ['@cribl-exporter/api'])).toEqual([]);
    expect(simulator.some((f) => specifiersOf(f).some((s) => s.startsWith('@cribl-exporter/api/')))).toBe(true);
  });

  it('the API package imports neither the exporter nor the simulator', () => {
    expect(api.length).toBeGreaterThan(5);
    expect(reachingOut(api, API, [])).toEqual([]);
  });

  it('the exporter reaches the packages by name only, and the simulator only in the simulate and demo commands', () => {
    expect(reachingOut(exporter, SRC, ['@cribl-exporter/api', '@cribl-exporter/simulator'])).toEqual([]);
    const importers = exporter
      .filter((f) =>
        specifiersOf(f).some((s) => s === '@cribl-exporter/simulator' || s.startsWith('@cribl-exporter/simulator/')),
      )
      .map(rel);
    expect(importers.length).toBeGreaterThan(0);
    expect(importers.filter((f) => !SIMULATOR_IMPORTERS.test(f))).toEqual([]);
  });

  it('finds a reach across packages when there is one (the check itself)', () => {
    const bad = join(SIMULATOR, 'core/app.ts');
    expect(resolve(dirname(bad), '../../../../src/app.js').startsWith(SIMULATOR + '/')).toBe(false);
    expect(SIMULATOR_IMPORTERS.test('src/collectors/listing/index.ts')).toBe(false);
    expect(SIMULATOR_IMPORTERS.test('src/commands/simulate.ts')).toBe(true);
    expect(workspaceFile('@cribl-exporter/api/shapes')).toBe(join(API, 'shapes.ts'));
    expect(workspaceFile('@cribl-exporter/simulator')).toBe(join(SIMULATOR, 'index.ts'));
  });
});
