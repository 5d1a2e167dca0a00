import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { ROOT } from './prometheusrule.js';

// No Docker engine runs where the tests run: the Dockerfile is read, and its stages are reproduced with the
// host's Node.js and npm (runtimeLayout).

export interface Instruction {
  op: string;
  args: string;
}

export interface Stage {
  from: string;
  name?: string;
  body: Instruction[];
}

/** Instructions of a Dockerfile: comments dropped, continuation lines joined, keyword upper-cased. */
export function instructions(text: string): Instruction[] {
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
export function stages(text: string): Stage[] {
  const out: Stage[] = [];
  for (const i of instructions(text)) {
    if (i.op === 'FROM') {
      const [, from = '', name] = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(i.args) ?? [];
      out.push({ from, name, body: [] });
    } else out.at(-1)?.body.push(i);
  }
  return out;
}

/** `KEY=value KEY2="value 2"` (ARG, ENV and LABEL arguments) as pairs, quotes removed. */
export function keyValues(args: string): [string, string][] {
  return [...args.matchAll(/([\w.-]+)(?:=("(?:[^"\\]|\\.)*"|\S*))?/g)].map((m) => [
    m[1]!,
    (m[2] ?? '').replace(/^"(.*)"$/, '$1'),
  ]);
}

/** Replaces $NAME and ${NAME} with `vars` (unknown names become empty, as Docker does). */
export function substitute(s: string, vars: Readonly<Record<string, string>>): string {
  return s.replace(/\$\{?(\w+)\}?/g, (_, k: string) => vars[k] ?? '');
}

/** The Dockerfile's final stage as built: its files under `root`, its environment, labels and entrypoint. */
export interface Layout {
  /** The stage's filesystem root: `/app` of the image is `join(root, 'app')`. */
  root: string;
  workdir: string;
  env: Record<string, string>;
  labels: Record<string, string>;
  entrypoint: string[];
}

const run = (cmd: string, args: string[], cwd: string): void => {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}): ${r.error?.message ?? ''}${r.stdout}${r.stderr}`);
  }
};

/**
 * Reproduces every stage of the Dockerfile into `dir` (one directory per stage, standing for its filesystem
 * root) and returns the final one. COPY takes from the build context (the repository, minus .dockerignore) or
 * from an earlier stage; RUN understands the Dockerfile's own commands only, and says so about any other:
 * - `npm ci` with dev dependencies links the repository's node_modules (installed from the same lock file);
 * - `npm ci --omit=dev …` and `npm run build` run for real, with the host's npm and Node.js.
 * The image's base (node, distroless) is the host's Node.js.
 */
export function runtimeLayout(dir: string, buildArgs: Record<string, string> = {}): Layout {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const ignored = new Set(
    readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#')),
  );
  const globalArgs: Record<string, string> = {};
  for (const i of instructions(text.slice(0, text.search(/^FROM\s/im)))) {
    if (i.op === 'ARG') for (const [k, v] of keyValues(i.args)) globalArgs[k] = buildArgs[k] ?? v;
  }
  const built = new Map<string, string>();
  let layout: Layout | undefined;
  stages(text).forEach((stage, n) => {
    const root = join(dir, `stage-${n}`);
    const base = built.get(substitute(stage.from, globalArgs));
    if (base !== undefined) cpSync(base, root, { recursive: true, verbatimSymlinks: true });
    mkdirSync(root, { recursive: true });
    const vars: Record<string, string> = {};
    const state: Layout = { root, workdir: '/', env: {}, labels: {}, entrypoint: [] };
    const at = (p: string): string => join(root, posix.resolve(state.workdir, p));
    for (const i of stage.body) {
      const args = substitute(i.args, { ...vars, ...state.env });
      switch (i.op) {
        case 'ARG':
          for (const [k, v] of keyValues(i.args)) vars[k] = buildArgs[k] ?? globalArgs[k] ?? v;
          break;
        case 'ENV':
          for (const [k, v] of keyValues(args)) state.env[k] = v;
          break;
        case 'LABEL':
          for (const [k, v] of keyValues(args)) state.labels[k] = v;
          break;
        case 'WORKDIR':
          state.workdir = posix.resolve(state.workdir, args);
          mkdirSync(at('.'), { recursive: true });
          break;
        case 'COPY': {
          const parts = args.split(' ');
          const from = /^--from=(\S+)$/.exec(parts[0] ?? '')?.[1];
          const paths = parts.filter((p) => !p.startsWith('--'));
          const dest = paths.pop()!;
          for (const src of paths) {
            let source: string;
            if (from !== undefined) {
              const other = built.get(from);
              if (other === undefined) throw new Error(`COPY --from=${from}: no such stage`);
              source = join(other, src);
            } else {
              if (ignored.has(src) || ignored.has(src.split('/')[0]!)) {
                throw new Error(`COPY ${src}: excluded by .dockerignore`);
              }
              source = join(ROOT, src);
            }
            if (!existsSync(source)) throw new Error(`COPY ${src}: not found`);
            // `COPY a b ./dir/` copies into dir; `COPY dir ./dir` copies dir's contents to ./dir.
            const target = dest.endsWith('/') && !src.endsWith('/') ? join(at(dest), posix.basename(src)) : at(dest);
            mkdirSync(dirname(target), { recursive: true });
            cpSync(source, target, { recursive: true, verbatimSymlinks: true });
          }
          break;
        }
        case 'RUN':
          if (/^npm ci\b/.test(args) && !args.includes('--omit=dev')) {
            symlinkSync(join(ROOT, 'node_modules'), at('node_modules'));
          } else if (/^npm ci\b.*--omit=dev/.test(args)) {
            run('npm', [...args.split(' ').slice(1), '--prefer-offline', '--loglevel=error'], at('.'));
          } else if (args === 'npm run build') {
            run('npm', ['run', 'build', '--silent'], at('.'));
          } else {
            throw new Error(`RUN ${args}: test/deploy/dockerfile.ts does not know how to reproduce it`);
          }
          break;
        case 'ENTRYPOINT':
          state.entrypoint = JSON.parse(args) as string[];
          break;
        case 'USER':
        case 'EXPOSE':
          break;
        default:
          throw new Error(`${i.op}: test/deploy/dockerfile.ts does not know how to reproduce it`);
      }
    }
    if (stage.name !== undefined) built.set(stage.name, root);
    layout = state;
  });
  if (!layout) throw new Error('the Dockerfile has no stage');
  return layout;
}
