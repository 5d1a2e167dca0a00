// The runtime settings the image gives the exporter (the allocator's and V8's: `ENV MALLOC_*` and `ENV NODE_OPTIONS`
// lines of the Dockerfile, and the node flags of its ENTRYPOINT), so that the benchmarks measure memory as the
// image runs. One reader for bench/run.mjs and bench/alternative.mjs.
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
