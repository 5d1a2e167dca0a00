// When a new fleet's first metadata round is done, for the benchmarks' steady windows (bench/run.mjs,
// bench/alternative.mjs, bench/steady-probe.mjs). The metadata collector spreads each node's first
// fetch over its health polls 2 to 1 + FIRST_METADATA_SPREAD (src/collectors/node-metadata/, the owner of that
// figure), so the round ends that many health intervals after the start; 20 s more for the last answers and a build
// of the body with them. The figure is read from src/ through tsx: tsc's build/ no longer runs under plain node since
// the workspace packages (packages/api) are TypeScript sources, and a static import of it failed every benchmark on
// load (before bench/lib/image.mjs could even choose the node).
import { tsImport } from 'tsx/esm/api';

const { FIRST_METADATA_SPREAD } = await tsImport('../../src/collectors/node-metadata/index.ts', import.meta.url);

export { FIRST_METADATA_SPREAD };

/** Seconds from the exporter's start by which every node's first metadata fetch is done. */
export function firstMetadataDoneS(healthIntervalS) {
  return (1 + FIRST_METADATA_SPREAD) * healthIntervalS + 20;
}
