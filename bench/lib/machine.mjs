// What machine the benchmark ran on, and CPU time of other processes (from /proc, Linux only).

import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

function read(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** CPU model, cores, memory, OS and Node version, load average. */
export function machineInfo() {
  const model = /model name\s*:\s*(.+)/.exec(read('/proc/cpuinfo'))?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  return {
    cpuModel: model,
    cores: os.availableParallelism?.() ?? os.cpus().length,
    memoryBytes: os.totalmem(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    loadavg: os.loadavg(),
  };
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux, as /proc/<pid>/stat counts

/** CPU time (user + system, ms) a process has used so far; undefined when /proc is unreadable. */
export function processCpuMs(pid) {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  // Fields after the command (which may contain spaces) start at ") ".
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

/**
 * CPU time (user + system, ms) of each thread of a process so far, by thread id (/proc/<pid>/task; the main thread's
 * id is the pid). Node 20 names every thread `node`, so threads are told apart by id only. Empty when /proc is
 * unreadable.
 */
export function threadCpuMs(pid) {
  const out = {};
  let tids = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    const stat = read(`/proc/${pid}/task/${tid}/stat`);
    if (!stat) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out[tid] = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  }
  return out;
}

/** Current and peak resident memory of a process (bytes), from /proc/<pid>/status. */
export function processMemory(pid) {
  const status = read(`/proc/${pid}/status`);
  const kb = (name) => {
    const m = new RegExp(`${name}:\\s+(\\d+) kB`).exec(status);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  return { rss: kb('VmRSS'), peakRss: kb('VmHWM') };
}

/** Total CPU time of the whole machine so far (ms, all cores, busy only), from /proc/stat. */
export function machineBusyMs() {
  const line = read('/proc/stat').split('\n')[0] ?? '';
  const f = line.split(/\s+/).slice(1).map(Number);
  if (f.length < 8) return undefined;
  const [user, nice, system, , , irq, softirq, steal] = f;
  return ((user + nice + system + irq + softirq + steal) * 1000) / TICKS_PER_SECOND;
}

/** V8's platform worker threads in a Node.js process (`--v8-pool-size`, default 4). */
const V8_POOL_SIZE = 4;

/**
 * The kind of each thread of a Node.js process, by thread id: `main`; `v8` (V8's platform threads: the delayed-task
 * scheduler and the pool after it, which run the parallel and concurrent GC and concurrent compilation); `libuv`
 * (libuv's pool: zlib's deflate, file reads); `other` (worker threads such as the body worker, the CPU profiler's
 * sampler). Node.js 22 names them (`DelayedTaskSche`, `libuv-worker`, the rest `node`); the V8 pool is the
 * `v8PoolSize` threads named `node` right after the scheduler. Node.js 20 names every thread `node`: all but the main
 * thread are then `other`.
 */
export function classifyThreads(pid, comms, v8PoolSize = V8_POOL_SIZE) {
  const out = {};
  const tids = Object.keys(comms)
    .map(Number)
    .sort((a, b) => a - b);
  let pool = -1;
  for (const tid of tids) {
    const comm = comms[tid];
    if (tid === pid) out[tid] = 'main';
    else if (comm.startsWith('DelayedTaskSch')) {
      out[tid] = 'v8';
      pool = v8PoolSize;
    } else if (comm.startsWith('libuv-worker')) out[tid] = 'libuv';
    else if (pool > 0 && comm === 'node') {
      out[tid] = 'v8';
      pool--;
    } else out[tid] = 'other';
  }
  return out;
}

/** CPU time (ms) of a process so far by thread kind (classifyThreads): `{ main, v8, libuv, other }`. */
export function threadKindCpuMs(pid) {
  const cpu = threadCpuMs(pid);
  const comms = {};
  for (const tid of Object.keys(cpu)) comms[tid] = read(`/proc/${pid}/task/${tid}/comm`).trim();
  const kinds = classifyThreads(pid, comms);
  const out = { main: 0, v8: 0, libuv: 0, other: 0 };
  for (const [tid, ms] of Object.entries(cpu)) out[kinds[tid] ?? 'other'] += ms;
  return out;
}
