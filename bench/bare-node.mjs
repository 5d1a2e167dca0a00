// A bare node process with the image's flags and allocator settings, for BENCHMARKS.md's memory table (bench/run.mjs):
// what the runtime itself holds resident before any of the exporter is loaded. Waits 3 s for start-up to settle, then
// sends its resident memory by mapping (bench/lib/smaps.mjs, residentMb: as the exporter reports its own) over IPC
// and exits.
import { readFileSync } from 'node:fs';
import { residentMb } from './lib/smaps.mjs';

setTimeout(() => {
  process.send?.({ ready: true, result: { mappings: residentMb(readFileSync('/proc/self/smaps', 'utf8')) } });
  process.disconnect?.();
}, 3000);
