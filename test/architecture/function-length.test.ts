/**
 * No function of the exporter's src/ is longer than MAX_LINES: every function, method, constructor, accessor and
 * arrow, found with the TypeScript compiler API, counted from its first line to its last. A factory counts with the
 * closures it returns (they are inside it), and each closure counts on its own too. A long room is cut along its
 * seams, never squeezed: lines are not trimmed for this figure.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');
const MAX_LINES = 80;

/** Files not checked here: none (the simulator is its own package, packages/simulator, with its own rules). */
const EXCLUDED: readonly string[] = [];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

interface Fn {
  where: string;
  name: string;
  lines: number;
}

function nameOf(node: ts.SignatureDeclaration, sf: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return node.name.getText(sf);
  const p = node.parent;
  if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name)
    return p.name.getText(sf);
  return '(anonymous)';
}

/** Every function with a body in `text`, with its length in lines. */
export function functionsOf(file: string, text: string): Fn[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Fn[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ where: `${file}:${first + 1}`, name: nameOf(node, sf), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

describe('function length in src/', () => {
  const files = sourceFiles(SRC)
    .map((f) => relative(ROOT, f))
    .filter((f) => !EXCLUDED.some((e) => f.startsWith(e)));
  const all = files.flatMap((f) => functionsOf(f, readFileSync(join(ROOT, f), 'utf8')));

  it(`has no function longer than ${MAX_LINES} lines (outside the exclusions above)`, () => {
    const long = all.filter((f) => f.lines > MAX_LINES).map((f) => `${f.where} ${f.name}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });

  it('finds the functions it measures (a parser that found none would pass anything)', () => {
    expect(all.length).toBeGreaterThan(files.length);
    expect(all.some((f) => f.name === 'checkLeaderApi' && f.where.startsWith('src/check/leader.ts:'))).toBe(true);
    expect(all.some((f) => f.name === 'constructor')).toBe(true);
  });

  it('counts a factory with the closures it returns, and each closure on its own', () => {
    const body = Array.from({ length: 80 }, (_, i) => `      const v${i} = ${i};`).join('\n');
    const text = `export function factory() {\n  return {\n    run: () => {\n${body}\n    },\n  };\n}\n`;
    const found = functionsOf('x.ts', text);
    expect(found.find((f) => f.name === 'factory')?.lines).toBe(86);
    expect(found.find((f) => f.name === 'run')?.lines).toBe(82);
    const method = functionsOf('y.ts', 'class A {\n  #m(): void {\n    return;\n  }\n}\n');
    expect(method).toEqual([{ where: 'y.ts:2', name: '#m', lines: 3 }]);
  });
});
