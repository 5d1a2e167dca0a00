import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PORT } from '../../src/config/types.js';
import { ROOT } from './prometheusrule.js';

// No Docker engine runs where the tests run, so the image is checked by reading its recipe.

interface Instruction {
  op: string;
  args: string;
}

interface Stage {
  from: string;
  name?: string;
  body: Instruction[];
}

/** Instructions of a Dockerfile: comments dropped, continuation lines joined, keyword upper-cased. */
function instructions(text: string): Instruction[] {
  return text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const [, op = '', args = ''] = /^(\S+)\s*(.*)$/.exec(l) ?? [];
      return { op: op.toUpperCase(), args: args.replace(/\s+/g, ' ') };
    });
}

/** The build stages of a Dockerfile, in order. */
function stages(text: string): Stage[] {
  const out: Stage[] = [];
  for (const i of instructions(text)) {
    if (i.op === 'FROM') {
      const [, from = '', name] = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(i.args) ?? [];
      out.push({ from, name, body: [] });
    } else out.at(-1)?.body.push(i);
  }
  return out;
}

describe('Dockerfile parsing', () => {
  it.each<[string, string, Stage[]]>([
    ['one stage', 'FROM a\nRUN x', [{ from: 'a', name: undefined, body: [{ op: 'RUN', args: 'x' }] }]],
    ['named stages', 'FROM a AS b\nfrom --platform=$X c as d\n', [{ from: 'a', name: 'b', body: [] }, { from: 'c', name: 'd', body: [] }]],
    ['continuations and comments', 'FROM a\n# c\nRUN x \\\n  y', [{ from: 'a', name: undefined, body: [{ op: 'RUN', args: 'x y' }] }]],
  ])('%s', (_, text, expected) => expect(stages(text)).toEqual(expected));
});

describe('Dockerfile', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const all = stages(text);
  const final = all.at(-1)!;
  const args = Object.fromEntries(
    instructions(text)
      .filter((i) => i.op === 'ARG')
      .map((i) => i.args.split('=') as [string, string]),
  );
  const resolve = (s: string): string => s.replace(/\$\{?(\w+)\}?/g, (_, k: string) => args[k] ?? '');
  const named = (name: string): Stage | undefined => all.find((s) => s.name === name);
  const ops = (s: Stage, op: string): string[] => s.body.filter((i) => i.op === op).map((i) => i.args);

  it('builds in one stage and runs from another', () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    const build = all.find((s) => ops(s, 'RUN').some((r) => /\bnpm run build\b/.test(r)));
    expect(build, 'a stage running npm run build').toBeDefined();
    expect(ops(build!, 'RUN').some((r) => /^npm ci\b/.test(r) && !r.includes('--omit=dev'))).toBe(true);
    expect(build).not.toBe(final);
  });

  it('runs on a current Node.js LTS (22 or 24) base', () => {
    expect(resolve(final.from)).toMatch(/^(gcr\.io\/distroless\/nodejs(22|24)-debian\d+|node:(22|24)[-.\w]*)(:[\w.-]+)?(@sha256:[0-9a-f]+)?$/);
    for (const s of all) expect(resolve(s.from)).toMatch(/(nodejs|node:)(22|24)\b/);
  });

  it('installs nothing in the final stage and takes production dependencies only', () => {
    expect(ops(final, 'RUN').filter((r) => /\bnpm\b/.test(r))).toEqual([]);
    const modules = ops(final, 'COPY').find((c) => /node_modules/.test(c));
    const from = /--from=(\S+)/.exec(modules ?? '')?.[1];
    expect(from, 'node_modules copied from a stage').toBeDefined();
    const deps = named(from!)!;
    expect(ops(deps, 'RUN').some((r) => /^npm ci\b.*--omit=dev/.test(r))).toBe(true);
    expect(ops(deps, 'RUN').some((r) => /npm run build/.test(r))).toBe(false);
  });

  it('runs as a numeric non-root user', () => {
    const user = ops(final, 'USER').at(-1);
    expect(user).toMatch(/^\d+(:\d+)?$/);
    expect(Number(user!.split(':')[0])).toBeGreaterThan(0);
  });

  it('exposes the default port and starts dist/cli.js in exec form', () => {
    expect(ops(final, 'EXPOSE')).toEqual([String(DEFAULT_PORT)]);
    const entrypoint = JSON.parse(ops(final, 'ENTRYPOINT').at(-1) ?? 'null') as string[] | null;
    expect(entrypoint?.at(-1)).toMatch(/dist\/cli\.js$/);
    expect(ops(final, 'COPY').some((c) => /\bdist\b/.test(c))).toBe(true);
    expect(ops(final, 'COPY').some((c) => /\bpackage\.json\b/.test(c)), 'package.json marks dist/ as ESM').toBe(true);
  });

  it('keeps the build context free of dependencies, history, outputs and secrets', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    for (const p of ['node_modules', '.git', 'dist', '.env*', '*.key']) expect(ignored).toContain(p);
    // Everything the build copies must stay in the context.
    const copied = all.flatMap((s) => ops(s, 'COPY').filter((c) => !c.startsWith('--from')).flatMap((c) => c.split(' ').slice(0, -1)));
    expect(copied.length).toBeGreaterThan(0);
    for (const c of copied) expect(ignored).not.toContain(c);
  });
});
