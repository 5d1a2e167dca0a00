// dist/: the exporter as it ships (npm package, image), bundled and minified by esbuild from src/.
//   node scripts/bundle.mjs [--outdir DIR] [--unminified]   (--unminified: src/'s names in a CPU profile)
// Why a bundle (issue 17; bench/notes-gc.md at 19e074a^, eleventh round): V8 keeps every loaded module's source text in the heap
// and each CommonJS module its wrapper, and a bundler keeps only the parts of zod that are used (src/ imports it as a
// namespace for that). Idle with the image's flags (bench/base-mem.mjs at 19e074a^, 0 nodes), against tsc's one file per module:
// heap used 13.9 → 9.5 MB, RSS 62 → 57.7 MB; at 2,000 nodes (bench/rss-trace.mjs at 19e074a^) mean RSS 90–93 → 84–86 MB and the
// peak 95–98 → 89 MB. Minified identifiers are 0.5 MB of the heap (whitespace and syntax only: 10.9 MB).
//
// Layout: the entry points and every shared chunk sit in dist/ itself, so that what src/ resolves against its own
// module's URL still resolves (the workers beside their caller: src/util/worker.ts; ../package.json; the demo's
// ../examples/). undici is required from its own files at run time (src/http/undici.ts) and stays in node_modules;
// pino-pretty is loaded only for --log.format=pretty. Source maps are linked: `node --enable-source-maps` maps a
// stack back to src/.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: { outdir: { type: 'string', default: join(root, 'dist') }, unminified: { type: 'boolean', default: false } },
});

/** Entry points: `out` is the path under dist/ (without .js). */
const ENTRIES = [
  { in: 'src/cli.ts', out: 'cli' },
  // bench/exporter.mjs runs the exporter as cli.js does, with its own IPC channel.
  { in: 'src/commands/index.ts', out: 'commands' },
  { in: 'src/util/files.ts', out: 'util/files' },
  // Worker threads, started beside the module that starts them (src/util/worker.ts).
  { in: 'src/exposition/body/body-worker.ts', out: 'body-worker' },
  { in: 'src/exposition/bcrypt-worker.ts', out: 'bcrypt-worker' },
];

rmSync(values.outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ENTRIES,
  outdir: values.outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  minify: !values.unminified,
  sourcemap: 'linked',
  // The maps name src/'s files and lines; the sources themselves are in the repository, not in every package.
  sourcesContent: false,
  external: ['pino-pretty', 'undici'],
  // The CommonJS packages bundled in (prom-client, pino, …) call require() for node's modules.
  banner: {
    js: 'import { createRequire as __cjsRequire } from "node:module"; const require = __cjsRequire(import.meta.url);',
  },
  logLevel: 'warning',
});
