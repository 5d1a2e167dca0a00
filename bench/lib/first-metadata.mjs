// When a new fleet's first metadata round is done, for the benchmarks' steady windows (bench/run.mjs,
// bench/alternative.mjs, bench/steady-probe.mjs; all build first). The poller spreads each node's first metadata
// fetch over its health polls 2 to 1 + FIRST_METADATA_SPREAD (src/, the owner of that figure), so the round ends
// that many health intervals after the start; 20 s more for the last answers and a build of the body with them.
// The figure is read from build/ where it is found (src/polling/ is being re-cut: each place it may live is tried),
// else 4, the value when this was written, with a warning when build/ exists but no longer exports it.
import { existsSync } from 'node:fs';

const CANDIDATES = ['../../build/polling/poller.js', '../../build/polling/schedule.js'];
const FALLBACK = 4;

let found;
for (const c of CANDIDATES) {
  try {
    const m = await import(c);
    if (typeof m.FIRST_METADATA_SPREAD === 'number') {
      found = m.FIRST_METADATA_SPREAD;
      break;
    }
  } catch {
    // Not built, or not there: the next one.
  }
}
if (found === undefined && existsSync(new URL('../../build/', import.meta.url)))
  console.error(
    `bench: FIRST_METADATA_SPREAD not found in build/ (${CANDIDATES.join(', ')}); the steady windows assume ${FALLBACK}`,
  );

/** Health polls over which a new fleet's first metadata fetch is spread. */
export const FIRST_METADATA_SPREAD = found ?? FALLBACK;

/** Seconds from the exporter's start by which every node's first metadata fetch is done. */
export function firstMetadataDoneS(healthIntervalS) {
  return (1 + FIRST_METADATA_SPREAD) * healthIntervalS + 20;
}
