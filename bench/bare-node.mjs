// A bare node process with the image's flags and allocator settings, for BENCHMARKS.md's memory table (bench/run.mjs):
// what the runtime itself holds resident before any of the exporter is loaded. Waits 3 s for start-up to settle, then
// sends its resident memory by mapping (bench/lib/smaps.mjs) over IPC and exits.
import { readFileSync } from 'node:fs';
import { parseSmaps, rssByMapping } from './lib/smaps.mjs';

setTimeout(() => {
  const kb = rssByMapping(parseSmaps(readFileSync('/proc/self/smaps', 'utf8')));
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024;
  process.send?.({ ready: true, result: { rss, mappings: Object.fromEntries([...kb].map(([k, v]) => [k, v / 1024])) } });
  process.disconnect?.();
}, 3000);
