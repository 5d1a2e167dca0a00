/**
 * Entry of a bcrypt worker thread: one comparison at a time, off the main thread, so that a flood of wrong
 * passwords costs CPU on this thread and never the event loop that answers /healthz. Messages: see bcrypt-pool.ts.
 */
import { parentPort } from 'node:worker_threads';
import bcrypt from 'bcryptjs';
import type { CompareRequest, CompareResult } from './bcrypt-pool.js';

const port = parentPort;
if (!port) throw new Error('bcrypt-worker.js runs only as a worker thread');

port.on('message', (m: CompareRequest) => {
  let ok = false;
  try {
    ok = bcrypt.compareSync(m.password, m.hash);
  } catch {
    // A malformed hash never matches.
  }
  const result: CompareResult = { id: m.id, ok };
  port.postMessage(result);
});
