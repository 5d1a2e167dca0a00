/**
 * The body engine: families and the stores' items in, a cached /metrics body out. Nothing outside this folder
 * imports anything but this file (test/architecture/ holds it to that).
 */
export { MAX_BODY_AGE_MS } from './build-plan.js';
export { WORKER_MIN_NODES } from './builder-choice.js';
export {
  createBodyCache,
  type BodyCache,
  type BodyCacheOptions,
  type BodySource,
  type BuildStats,
  type ManagementSource,
} from './cache.js';
export type { Selection, Served, SnapshotBody } from './served.js';
