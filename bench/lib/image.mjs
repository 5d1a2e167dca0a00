// The runtime settings the image gives the exporter (the allocator's and V8's: `ENV MALLOC_*` and `ENV NODE_OPTIONS`
// lines of the Dockerfile, and the node flags of its ENTRYPOINT), so that the benchmarks measure memory as the
// image runs, and the Node.js major it runs them on (onImageNode). One reader for every benchmark script.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `{ env, nodeFlags }` of the Dockerfile in `repo`. */
export function imageSettings(repo) {
  const dockerfile = readFileSync(join(repo, 'Dockerfile'), 'utf8');
  const env = {};
  for (const m of dockerfile.matchAll(/^ENV ((?:MALLOC_\w+|NODE_OPTIONS))=(\S+)$/gm))
    env[m[1]] = m[2].replace(/^"(.*)"$/, '$1');
  const nodeFlags = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]').filter((a) =>
    a.startsWith('--'),
  );
  return { env, nodeFlags };
}

/** The image's node flags with `extra` added, each replacing an image flag of the same name (`--name=value`). */
export function withFlags(imageFlags, extra) {
  const name = (f) => f.split('=')[0];
  return [...imageFlags.filter((f) => !extra.some((e) => name(e) === name(f))), ...extra];
}

/** The Node.js major the image runs: the Dockerfile's `ARG NODE_MAJOR=`. */
export function imageNodeMajor(repo) {
  const m = /^ARG NODE_MAJOR=(\d+)\s*$/m.exec(readFileSync(join(repo, 'Dockerfile'), 'utf8'));
  if (!m) throw new Error('Dockerfile: no "ARG NODE_MAJOR=<major>" line');
  return Number(m[1]);
}

/** The major of a Node.js version string (`v22.23.3` → 22; NaN when it is none). */
export function nodeMajor(version) {
  return Number(/^v?(\d+)\./.exec(version)?.[1]);
}

/**
 * Which node a benchmark runs on. The exporter's memory depends on the runtime: at 2,000 nodes `steady-probe`
 * read 88 MB on Node.js 20, 99–103 on 22 and 119 on 24 (bench/notes-gc.md, sixteenth round, in git history at bbf1e93), so the figures are
 * taken on the image's major. `benchNode` is the BENCH_NODE setting: unset (node@MAJOR from the npm registry, by
 * npx, when the current node is another major), a path to a node binary, or `current` (this node whatever its
 * major; the report then says it is not the image's). Returns `{ reexec: false }` or `{ reexec: true, path }`
 * (`path` undefined: fetch node@major).
 */
export function nodeChoice({ currentVersion, imageMajor, benchNode }) {
  if (benchNode === 'current') return { reexec: false };
  if (benchNode) return { reexec: true, path: benchNode };
  return nodeMajor(currentVersion) === imageMajor ? { reexec: false } : { reexec: true, path: undefined };
}

/**
 * Runs the calling benchmark script again on the image's Node.js major (nodeChoice) unless it already runs there,
 * with the same node flags and arguments, and exits with its status. Call it before starting any child process;
 * the children then run on the same node (child_process.fork uses process.execPath).
 */
export function onImageNode(repo) {
  if (process.env.BENCH_NODE_REEXEC) return;
  const imageMajor = imageNodeMajor(repo);
  const choice = nodeChoice({ currentVersion: process.version, imageMajor, benchNode: process.env.BENCH_NODE });
  if (!choice.reexec) return;
  const path =
    choice.path ??
    execFileSync('npx', ['-y', '-p', `node@${imageMajor}`, '-c', 'node -p process.execPath'], {
      encoding: 'utf8',
      timeout: 600_000,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
      .trim()
      .split('\n')
      .at(-1);
  process.stderr.write(`[bench] the image runs Node.js ${imageMajor} (Dockerfile): running on ${path}\n`);
  const r = spawnSync(path, [...process.execArgv, process.argv[1], ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_NODE_REEXEC: '1' },
  });
  if (r.error) throw r.error;
  process.exit(r.status ?? 1);
}

/** The runtime as a report names it (after "Node.js "): its version, and whether it is the image's major. */
export function runtimeNote(repo) {
  const imageMajor = imageNodeMajor(repo);
  return nodeMajor(process.version) === imageMajor
    ? `${process.version} (the image's major, Dockerfile NODE_MAJOR=${imageMajor})`
    : `${process.version}, **not the image's Node.js ${imageMajor}** (BENCH_NODE=${process.env.BENCH_NODE ?? ''}): memory differs by runtime`;
}
