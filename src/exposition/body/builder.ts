/**
 * Where a body is rendered: `inline` on the main thread (tests, fleets below WORKER_MIN_NODES) or in a worker thread
 * (worker-builder.ts); builder-choice.ts picks one. Both take the leaders' items as they were when the build started,
 * and ask the renderer (render.ts) to render again only the node families that staleness.ts finds stale.
 */
import type { FamilySet } from './families.js';
import { Renderer, type Rendered } from './render.js';
import { renderJob, Staleness, type BuildRequest } from './staleness.js';

export type { BuildRequest } from './staleness.js';

/** Renders builds. */
export interface Builder {
  build(request: BuildRequest): Promise<Rendered>;
  close(): Promise<void>;
}

/** Renders on the calling thread (it yields every few ms). */
export function createInlineBuilder(families: FamilySet, reads: readonly (readonly string[])[]): Builder {
  const renderer = new Renderer(families, true);
  const staleness = new Staleness(
    reads,
    families.node.map((f) => f.detail),
  );
  return {
    build: async (request) => {
      const { job } = renderJob(staleness, request);
      const build = renderer.begin(job);
      for (const [i, l] of request.leaders.entries()) {
        if (job.leaders[i]?.stale.length) void build.nodes(i, l.moment.nodes).catch(() => undefined);
      }
      const { texts, reads } = await build.finish();
      staleness.commit(reads);
      return texts;
    },
    close: () => Promise.resolve(),
  };
}
