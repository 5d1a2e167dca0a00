import { Worker } from 'node:worker_threads';

/**
 * Starts the worker thread whose entry is the module `name` beside `callerUrl` (the caller's import.meta.url):
 * `name.js` when running from dist/, `name.ts` through tsx (a dev dependency) when running from sources (vitest).
 */
export function startWorker(callerUrl: string, name: string, workerData?: unknown): Worker {
  if (callerUrl.endsWith('.ts')) {
    const entry = new URL(`./${name}.ts`, callerUrl).href;
    const code =
      `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); ` + `});`;
    return new Worker(code, { eval: true, workerData });
  }
  return new Worker(new URL(`./${name}.js`, callerUrl), { workerData });
}
