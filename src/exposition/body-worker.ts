/**
 * Entry of the body worker thread: holds every node's text and assembles the /metrics body, so the
 * main thread's event loop never spends the assembly's time (about 1–2 s of copying and gzip at
 * 50,000 nodes; see BENCHMARKS.md). Messages: see builder.ts.
 */

import { parentPort, workerData } from 'node:worker_threads';
import { BodyAssembler, type AssemblerOptions } from './assemble.js';
import { transferList, type ToWorker } from './builder-protocol.js';

const port = parentPort;
if (!port) throw new Error('body-worker.js runs only as a worker thread');

const assembler = new BodyAssembler(workerData as AssemblerOptions);

port.on('message', (m: ToWorker) => {
  switch (m.t) {
    case 'apply':
      assembler.apply(m.leader, m.batch);
      return;
    case 'drop':
      assembler.drop(m.leader);
      return;
    case 'build':
      assembler.assemble(m.request).then(
        (body) => port.postMessage({ t: 'built', id: m.id, body }, transferList(body)),
        (err: unknown) =>
          port.postMessage({ t: 'failed', id: m.id, message: err instanceof Error ? err.message : String(err) }),
      );
      return;
  }
});
