/**
 * Entry of the body worker thread: renders the families of the nodes the main thread posts at build time and
 * compresses them, so the main thread's event loop never spends the rendering's time (see BENCHMARKS.md). It keeps
 * each leader's node family texts of the last build (render.ts); its families come from the registry, as the main
 * thread's do. Messages: worker-builder.ts (ToWorker, FromWorker).
 */
import { parentPort } from 'node:worker_threads';
import { COLLECTORS } from '../../collectors/registry.js';
import type { FromWorker, ToWorker } from './worker-builder.js';
import { familySet } from './families.js';
import { Renderer, type Build } from './render.js';

const port = parentPort;
if (!port) throw new Error('body-worker.js runs only as a worker thread');

const renderer = new Renderer(familySet(COLLECTORS), false);
const builds = new Map<number, Build>();
const post = (m: FromWorker): void => port.postMessage(m);

port.on('message', (m: ToWorker) => {
  switch (m.t) {
    case 'begin':
      builds.set(m.id, renderer.begin(m.job));
      return;
    case 'nodes': {
      const took = (): void => post({ t: 'took', id: m.id });
      builds.get(m.id)?.nodes(m.leader, m.nodes).then(took, took);
      return;
    }
    case 'end': {
      const build = builds.get(m.id);
      builds.delete(m.id);
      // The pieces are in shared memory (render.ts): posted, they are the same bytes on both threads.
      build?.finish().then(
        (rendered) => post({ t: 'built', id: m.id, rendered }),
        (err: unknown) => post({ t: 'failed', id: m.id, message: err instanceof Error ? err.message : String(err) }),
      );
      return;
    }
  }
});
