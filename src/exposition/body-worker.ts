/**
 * Entry of the body worker thread: renders the node states the main thread posts at build time and assembles the
 * /metrics body, so the main thread's event loop never spends the rendering's time (about 0.6 s at 50,000 nodes;
 * see BENCHMARKS.md). It keeps no node state between builds, only the last build's compressed pieces and runs
 * (assemble.ts, PieceMemo and RunMemo). Messages: see builder-protocol.ts.
 */

import { parentPort, workerData } from 'node:worker_threads';
import { NODE_RENDERING } from '../collectors/index.js';
import type { NodeState } from '../collectors/state.js';
import { unpackNodes, type PackedNodes } from '../store/node-table.js';
import { BodyAssembler, type AssemblerOptions, type Build } from './assemble.js';
import { transferList, type FromWorker, type ToWorker } from './builder-protocol.js';

const port = parentPort;
if (!port) throw new Error('body-worker.js runs only as a worker thread');

const assembler = new BodyAssembler<NodeState>(workerData as AssemblerOptions, NODE_RENDERING, false);
const builds = new Map<number, Build<NodeState>>();
const post = (m: FromWorker, transfer?: ArrayBuffer[]): void => port.postMessage(m, transfer);

port.on('message', (m: ToWorker) => {
  switch (m.t) {
    case 'build':
      builds.set(m.id, assembler.begin(m.head));
      return;
    case 'nodes': {
      const took = (): void => post({ t: 'took', id: m.id });
      // The states are plain clones of the main thread's NodeState objects.
      builds
        .get(m.id)
        ?.addNodes(m.leader, m.states as readonly NodeState[])
        .then(took, took);
      return;
    }
    case 'packed': {
      const took = (): void => post({ t: 'took', id: m.id });
      // The store's columns (LeaderSnapshot.nodeView().pack): each state is made when it is rendered.
      builds
        .get(m.id)
        ?.addNodes(m.leader, unpackNodes(m.packed as PackedNodes))
        .then(took, took);
      return;
    }
    case 'end': {
      const build = builds.get(m.id);
      builds.delete(m.id);
      build?.finish().then(
        (body) => post({ t: 'built', id: m.id, body }, transferList(body)),
        (err: unknown) => post({ t: 'failed', id: m.id, message: err instanceof Error ? err.message : String(err) }),
      );
      return;
    }
  }
});
