/**
 * The body engine: families and the stores' items in, a cached /metrics body out. Nothing outside this folder
 * imports anything but this file (test/architecture/ holds it to that).
 */
export {
  createBodyCache,
  MAX_BODY_AGE_MS,
  WORKER_MIN_NODES,
  type BodyCache,
  type BodyCacheOptions,
  type BodySource,
  type BuildStats,
  type ManagementSource,
} from './cache.js';
export type { Selection, Served, SnapshotBody } from './served.js';
