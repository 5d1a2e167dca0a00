// Preloaded with `node --import ./bench/lib/mem-report.mjs` by bench/base-mem.mjs: on SIGUSR2, a full GC (with
// --expose-gc), then writes memoryUsage, V8's heap spaces, smaps_rollup, the thread count and the modules loaded
// (Node's internal ones and every CommonJS/ESM file) as JSON to $MEM_REPORT_FILE. Adds nothing until signalled.
import { writeFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseSmaps } from './smaps.mjs';

process.on('SIGUSR2', async () => {
  const v8 = await import('node:v8');
  const before = process.memoryUsage();
  globalThis.gc?.();
  const mem = process.memoryUsage();
  const read = (p) => {
    try {
      return readFileSync(p, 'utf8');
    } catch {
      return '';
    }
  };
  const require = createRequire(import.meta.url);
  const out = {
    before,
    mem,
    spaces: v8.getHeapSpaceStatistics().map((s) => ({ name: s.space_name, size: s.space_size, used: s.space_used_size })),
    code: v8.getHeapCodeStatistics(),
    rollup: read('/proc/self/smaps_rollup'),
    maps: topMappings(read('/proc/self/smaps')),
    threads: Number(/Threads:\s+(\d+)/.exec(read('/proc/self/status'))?.[1]),
    internal: process.moduleLoadList.length,
    cjs: Object.keys(require.cache),
  };
  writeFileSync(process.env.MEM_REPORT_FILE, JSON.stringify(out));
});

/** The largest mappings by resident size (kB): address range, name (or [anon]), Rss, Private_Dirty. */
function topMappings(smaps, n = 25) {
  return parseSmaps(smaps)
    .sort((a, b) => b.rss - a.rss)
    .slice(0, n)
    .map(({ range, sizeKb, name, rss, dirty }) => ({ range, sizeKb, name, rss, dirty }));
}
