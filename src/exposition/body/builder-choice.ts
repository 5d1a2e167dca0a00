/**
 * Which builder renders a build: the one the settings name, or with `auto` the worker from WORKER_MIN_NODES nodes
 * (inline again below 80 % of it); a worker that keeps dying is given up on, and the main thread renders from then on.
 * The worker builds its families from the registry's own list (body-worker.ts): with a collector registered at run
 * time (a test's), which that thread does not have, the main thread renders every build.
 */
import type { Collector } from '../../collectors/collector.js';
import { LISTED } from '../../collectors/registry.js';
import { createInlineBuilder, type Builder, type BuildRequest } from './builder.js';
import { familySet, nodeReads, nodeTags } from './families.js';
import type { Rendered } from './render.js';
import { createWorkerBuilder } from './worker-builder.js';

/**
 * Default of `workerMinNodes`. Below it a build renders on the main thread, in slices of a few ms; above, the main
 * thread only compares facts and posts the nodes of the families to render, and the rendering's loop time grows no
 * more with the fleet (BENCHMARKS.md, "Mechanisms").
 */
export const WORKER_MIN_NODES = 12_000;

/** `auto` goes back to inline below this share of `workerMinNodes` (no switching back and forth at the edge). */
const WORKER_HYSTERESIS = 0.8;

/** Worker losses in a row (without a body in between) after which the main thread renders instead. */
const MAX_WORKER_LOSSES = 3;

/** Where bodies are rendered: the body cache's settings of it (BodyCacheOptions). */
export interface BuilderSettings {
  /** Where bodies are rendered: `auto` picks the worker from WORKER_MIN_NODES nodes. @default 'inline' */
  builder?: 'inline' | 'worker' | 'auto';
  /** Nodes (all leaders) from which `auto` renders in the worker. @default WORKER_MIN_NODES */
  workerMinNodes?: number;
  /** Makes the worker builder (tests inject one they can stop). @default createWorkerBuilder */
  createWorkerBuilder?: typeof createWorkerBuilder;
  /** Called when the body worker stopped; the build in flight fails, the next one starts a new worker. */
  onBuilderLost?: (err: Error) => void;
  /** `auto` switched builders (`nodes`: the fleet size that made it switch). */
  onBuilderSwitch?: (to: 'inline' | 'worker', nodes: number) => void;
}

/** Options of BuilderChoice. */
export interface BuilderChoiceOptions extends BuilderSettings {
  /** The collectors whose families the builders render. */
  collectors: readonly Collector[];
  onError?: (err: unknown) => void;
  /** The worker stopped: the build in flight failed, and the body needs another. */
  onLost: () => void;
}

/** The builder in use, switched by the fleet's size (`auto`) or by the worker's losses. */
export class BuilderChoice {
  readonly #o: BuilderChoiceOptions;
  #builder: Builder;
  #onWorker: boolean;
  #lostInARow = 0;
  /** The worker kept dying: inline from now on, whatever the mode. */
  #workerGivenUp = false;

  constructor(options: BuilderChoiceOptions) {
    this.#o = options;
    const unlisted = options.collectors.filter((c) => !LISTED.includes(c)).map((c) => c.name);
    if (unlisted.length > 0) this.#workerGivenUp = true;
    if (unlisted.length > 0 && options.builder === 'worker') {
      options.onError?.(
        new Error(
          `the body worker does not have the collector${unlisted.length > 1 ? 's' : ''} ${unlisted.join(', ')} ` +
            '(registered at run time): rendering /metrics on the main thread',
        ),
      );
    }
    this.#onWorker = options.builder === 'worker' && !this.#workerGivenUp;
    this.#builder = this.#onWorker ? this.#workerBuilder() : this.#inlineBuilder();
  }

  /** Renders `request` on the builder for a fleet of `nodes` nodes. */
  async build(request: BuildRequest, nodes: number): Promise<Rendered> {
    this.#choose(nodes);
    const rendered = await this.#builder.build(request);
    this.#lostInARow = 0;
    return rendered;
  }

  close(): Promise<void> {
    return this.#builder.close();
  }

  #inlineBuilder(): Builder {
    return createInlineBuilder(familySet(this.#o.collectors), nodeReads(this.#o.collectors));
  }

  #workerBuilder(): Builder {
    const onLost = (err: Error): void => this.#lost(err);
    const create = this.#o.createWorkerBuilder ?? createWorkerBuilder;
    return create(nodeReads(this.#o.collectors), onLost, nodeTags(this.#o.collectors));
  }

  #lost(err: Error): void {
    this.#o.onBuilderLost?.(err);
    // A worker that keeps dying before it delivers a body (it cannot start, or runs out of heap at once) is given
    // up on: the main thread renders from then on, slower but serving.
    if (++this.#lostInARow >= MAX_WORKER_LOSSES) {
      this.#o.onError?.(
        new Error(
          `the body worker stopped ${this.#lostInARow} times in a row (${err.message}); rendering /metrics on the ` +
            `main thread from now on`,
        ),
      );
      const dead = this.#builder;
      this.#builder = this.#inlineBuilder();
      this.#onWorker = false;
      this.#workerGivenUp = true;
      dead.close().catch(() => undefined);
    } else {
      this.#o.onError?.(new Error(`the body worker stopped (${err.message}); the next build starts a new one`));
    }
    this.#o.onLost();
  }

  /** `auto`: renders in the worker when the fleet reaches workerMinNodes, inline again below 80 % of it. */
  #choose(nodes: number): void {
    if (this.#o.builder !== 'auto' || this.#workerGivenUp) return;
    const min = this.#o.workerMinNodes ?? WORKER_MIN_NODES;
    const worker = this.#onWorker ? nodes >= min * WORKER_HYSTERESIS : nodes >= min;
    if (worker === this.#onWorker) return;
    const old = this.#builder;
    this.#onWorker = worker;
    this.#builder = worker ? this.#workerBuilder() : this.#inlineBuilder();
    old.close().catch((err: unknown) => this.#o.onError?.(err));
    this.#o.onBuilderSwitch?.(worker ? 'worker' : 'inline', nodes);
  }
}
