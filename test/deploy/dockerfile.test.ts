import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { flagTable } from '../../src/config/flags.js';
import { DEFAULT_PORT } from '../../src/config/flags.js';
import { instructions, keyValues, stages, substitute, type Stage } from './dockerfile.js';
import { repositoryUrl, ROOT } from './prometheusrule.js';

describe('Dockerfile parsing', () => {
  it.each<[string, string, Stage[]]>([
    ['one stage', 'FROM a\nRUN x', [{ from: 'a', name: undefined, body: [{ op: 'RUN', args: 'x' }] }]],
    [
      'named stages',
      'FROM a AS b\nfrom --platform=$X c as d\n',
      [
        { from: 'a', name: 'b', body: [] },
        { from: 'c', name: 'd', body: [] },
      ],
    ],
    [
      'continuations and comments',
      'FROM a\n# c\nRUN x \\\n  y',
      [{ from: 'a', name: undefined, body: [{ op: 'RUN', args: 'x y' }] }],
    ],
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
    expect(resolve(final.from)).toMatch(
      /^(gcr\.io\/distroless\/nodejs(22|24)-debian\d+|node:(22|24)[-.\w]*)(:[\w.-]+)?(@sha256:[0-9a-f]+)?$/,
    );
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
    expect(
      ops(final, 'COPY').some((c) => /\bpackage\.json\b/.test(c)),
      'package.json marks dist/ as ESM',
    ).toBe(true);
  });

  it('keeps the build context free of dependencies, history, outputs and secrets', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    for (const p of ['node_modules', '.git', 'dist', '.env*', '*.key']) expect(ignored).toContain(p);
    // Everything the build copies must stay in the context.
    const copied = all.flatMap((s) =>
      ops(s, 'COPY')
        .filter((c) => !c.startsWith('--from'))
        .flatMap((c) => c.split(' ').slice(0, -1)),
    );
    expect(copied.length).toBeGreaterThan(0);
    for (const c of copied) expect(ignored).not.toContain(c);
  });
});

describe('Dockerfile: what the image carries and says about itself', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const final = stages(text).at(-1)!;
  const finalOps = (op: string): string[] => final.body.filter((i) => i.op === op).map((i) => i.args);
  const labelsWith = (buildArgs: Record<string, string>): Record<string, string> => {
    const vars: Record<string, string> = {};
    for (const a of finalOps('ARG')) for (const [k, v] of keyValues(a)) vars[k] = buildArgs[k] ?? v;
    return Object.fromEntries(finalOps('LABEL').flatMap((l) => keyValues(substitute(l, vars))));
  };

  it('has the OCI labels source (the repository package.json names), version and revision from build arguments', () => {
    const given = labelsWith({ VERSION: '1.2.3', REVISION: 'a'.repeat(40) });
    expect(given).toMatchObject({
      'org.opencontainers.image.source': repositoryUrl(),
      'org.opencontainers.image.version': '1.2.3',
      'org.opencontainers.image.revision': 'a'.repeat(40),
    });
    // Built without arguments, the labels say what they do not know instead of being empty.
    expect(labelsWith({})).toMatchObject({
      'org.opencontainers.image.version': 'dev',
      'org.opencontainers.image.revision': 'unknown',
    });
  });

  it('carries examples/ next to dist/, where the demo looks for its scenario', () => {
    const copies = finalOps('COPY').filter((c) => !c.startsWith('--from'));
    expect(copies).toContain('examples ./examples');
    expect(finalOps('COPY').some((c) => / \.\/dist$/.test(c))).toBe(true);
  });

  it("listens on all interfaces: the exporter's default, and the demo's in the image", () => {
    const env = Object.fromEntries(finalOps('ENV').flatMap((e) => keyValues(e)));
    expect(flagTable().find((f) => f.name === 'web.listen-address')?.default).toBe(`:${DEFAULT_PORT}`);
    expect(env.CRIBL_DEMO_LISTEN_ADDRESS).toBe(`:${DEFAULT_PORT}`);
    // Not the setting itself: the environment would win over a config file's web.listen-address.
    expect(env.CRIBL_WEB_LISTEN_ADDRESS).toBeUndefined();
    expect([...finalOps('ENTRYPOINT'), ...finalOps('CMD')].join(' ')).not.toContain('listen-address');
  });

  it('hands its REVISION build argument to the exporter (cribl_exporter_build_info{revision})', () => {
    const env = Object.fromEntries(finalOps('ENV').flatMap((e) => keyValues(e)));
    expect(env.CRIBL_EXPORTER_REVISION).toBe('${REVISION}');
  });
});
