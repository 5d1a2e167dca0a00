/**
 * Throughput and memory measurement of the simulator (not a test: no timing assertions anywhere).
 *
 *   node --expose-gc --import tsx test/simulator/measure.ts [seconds=5] [connections=8]
 *
 * The simulator runs in this process (one thread, so one core); a child process generates load on
 * /w/{id}/health over keep-alive connections with undici, for a bounded time, on 127.0.0.1 only.
 */
import { fork } from 'node:child_process';
import { Pool } from 'undici';
import { startSimulator } from '@cribl-exporter/simulator';

async function load(origin: string, token: string, ids: string[], seconds: number, connections: number): Promise<void> {
  // Pipelining keeps the load generator cheap, so that it measures the simulator rather than itself.
  const pool = new Pool(origin, { connections, pipelining: 8 });
  const headers = { authorization: `Bearer ${token}` };
  const end = Date.now() + seconds * 1000;
  let ok = 0;
  let other = 0;
  let i = 0;
  const worker = async (): Promise<void> => {
    while (Date.now() < end) {
      const id = ids[i++ % ids.length]!;
      const r = await pool.request({ path: `/api/v1/w/${encodeURIComponent(id)}/health`, method: 'GET', headers });
      await r.body.text();
      if (r.statusCode === 200) ok++;
      else other++;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: connections * 8 }, worker));
  const elapsed = (Date.now() - started) / 1000;
  await pool.close();
  process.send?.({ ok, other, rps: Math.round(ok / elapsed) });
}

async function main(): Promise<void> {
  const [mode, ...rest] = process.argv.slice(2);
  if (mode === 'load') {
    const [origin, token, idsJson, seconds, connections] = rest;
    await load(origin!, token!, JSON.parse(idsJson!) as string[], Number(seconds), Number(connections));
    return;
  }
  const seconds = Number(mode ?? 5);
  const connections = Number(rest[0] ?? 8);

  const sim = await startSimulator({ nodes: 1000 });
  const ids = sim.fleet.nodes().map((n) => n.id);
  const cpu0 = process.cpuUsage();
  const result = await new Promise<{ ok: number; other: number; rps: number }>((resolve, reject) => {
    const child = fork(
      new URL(import.meta.url).pathname,
      ['load', sim.origin, sim.token, JSON.stringify(ids), String(seconds), String(connections)],
      {
        execArgv: ['--import', 'tsx'],
      },
    );
    child.on('message', (m) => resolve(m as { ok: number; other: number; rps: number }));
    child.on('error', reject);
  });
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  console.log(
    `/w/{id}/health: ${result.rps} req/s over ${seconds}s, ${connections} connections ` +
      `(${result.ok} ok, ${result.other} other); ` +
      `simulator CPU ${cpuSeconds.toFixed(2)} s → ${Math.round(result.ok / cpuSeconds)} req per CPU-second`,
  );
  console.log(`stats: peakConcurrent=${sim.stats().peakConcurrent} total=${sim.stats().totalRequests}`);
  await sim.close();

  global.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  let t = performance.now();
  const big = await startSimulator({ nodes: 100_000 });
  const genMs = performance.now() - t;
  global.gc?.();
  const heapMb = (process.memoryUsage().heapUsed - heap0) / 1024 / 1024;
  const pool = new Pool(big.origin, { connections: 1 });
  const headers = { authorization: `Bearer ${big.token}` };
  const get = async (path: string): Promise<{ ms: number; bytes: number }> => {
    const t0 = performance.now();
    const r = await pool.request({ path: `/api/v1${path}`, method: 'GET', headers });
    let bytes = 0;
    for await (const chunk of r.body) bytes += (chunk as Buffer).length;
    return { ms: performance.now() - t0, bytes };
  };
  const median = async (path: string, n: number): Promise<{ ms: number; bytes: number }> => {
    const runs: { ms: number; bytes: number }[] = [];
    for (let i = 0; i < n; i++) runs.push(await get(path));
    runs.sort((a, b) => a.ms - b.ms);
    return runs[Math.floor(n / 2)]!;
  };
  const cold = await get('/products/stream/workers?limit=1000&offset=50000');
  const warm = await median('/products/stream/workers?limit=1000&offset=50000', 9);
  const full = await get('/master/workers');
  const fullAgain = await median('/master/workers', 3);
  const id = big.fleet.nodes()[70_000]!.id;
  t = performance.now();
  for (let i = 0; i < 1000; i++) big.fleet.setHealth(id, i % 2 ? 'standby' : 'healthy');
  const mutateUs = performance.now() - t;
  await pool.close();
  console.log(
    `100,000 nodes: built in ${genMs.toFixed(0)} ms, heap +${heapMb.toFixed(0)} MB before per-node JSON caches fill; ` +
      `GET page of 1000 (${(warm.bytes / 1024).toFixed(0)} KiB): ${cold.ms.toFixed(1)} ms first, ` +
      `${warm.ms.toFixed(1)} ms cached (median of 9); ` +
      `unpaged /master/workers (${(full.bytes / 1024 / 1024).toFixed(0)} MiB): ${full.ms.toFixed(0)} ms first, ` +
      `${fullAgain.ms.toFixed(0)} ms cached; ` +
      `setHealth on one node: ${mutateUs.toFixed(1)} µs`,
  );
  global.gc?.();
  console.log(`heap after caches filled: +${((process.memoryUsage().heapUsed - heap0) / 1024 / 1024).toFixed(0)} MB`);
  await big.close();
}

await main();
